"""Koi-Koi as a game family: its games, agents, views and commands, registered by name (``cfrlab.registry``)."""

from cfrlab.registry import AgentKind, GameFamily

_AGENTS = "cfrlab.games.koikoi.players.by_name"

FAMILY = GameFamily(
    name="koikoi",
    title="Koi-Koi",
    games={
        "koikoi": "cfrlab.games.koikoi.rules.game:KoiKoiGame",
        "koikoi_mini": "cfrlab.games.koikoi.rules.game:KoiKoiMini",
        "koikoi_mini_tsukifuda": "cfrlab.games.koikoi.rules.game:KoiKoiMiniTsukifuda",
    },
    agents={
        "greedy": AgentKind(f"{_AGENTS}:greedy", "greedy"),
        "search": AgentKind(f"{_AGENTS}:search", "search[:N|:Tms][:points|match]", options=f"{_AGENTS}:search_options"),
        "cfr": AgentKind(f"{_AGENTS}:cfr", "cfr[:N|:Tms][:points|match][:PATH]", plays="full Koi-Koi",
                         options=f"{_AGENTS}:budget_options"),
        "neural": AgentKind(f"{_AGENTS}:neural", "neural[:N|:Tms][:points|match][:PATH]",
                            options=f"{_AGENTS}:budget_options"),
        "blueprint": AgentKind(f"{_AGENTS}:blueprint", "blueprint[:PATH]", plays="full Koi-Koi"),
        "net": AgentKind(f"{_AGENTS}:net", "net[:PATH]"),
    },
    web_view="cfrlab.games.koikoi.ui.web_view:KoiKoiView",
    terminal="cfrlab.games.koikoi.ui.terminal:play_in_terminal",
    commands=("cfrlab.games.koikoi.ui.bot", "cfrlab.games.koikoi.ui.train"),
    solvers=("cfrlab.games.koikoi.solvers",),
    default_opponent="greedy",
    play_default="koikoi",
    match="cfrlab.games.koikoi.rules.game:match_params",
    round_search="cfrlab.games.koikoi.players.oos_rounds:RoundByRound",
    solve_refusal="cfrlab.games.koikoi.rules.game:solve_refusal",
    observation="cfrlab.games.koikoi.neural.features:FeatureObservation",
    text_view="cfrlab.games.koikoi.ui.terminal:screen_text",
)
