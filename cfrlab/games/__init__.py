"""Built-in games, registered lazily by name."""

from cfrlab.registry import register_game

register_game("kuhn", "cfrlab.games.kuhn:KuhnPoker")
register_game("leduc", "cfrlab.games.leduc:LeducHoldem")
register_game("leduc_suitless", "cfrlab.games.leduc:SuitlessLeduc")
register_game("holdem", "cfrlab.games.holdem.game:LimitHoldem")
register_game("random_game", "cfrlab.games.random_game:RandomGame")
register_game("koikoi", "cfrlab.games.koikoi.game:KoiKoiGame")
register_game("koikoi_mini", "cfrlab.games.koikoi.game:KoiKoiMini")
