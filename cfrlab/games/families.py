"""The small built-in games as game families (``cfrlab.registry``): their games and web views."""

from cfrlab.registry import GameFamily, Views

KUHN = GameFamily(
    name="kuhn",
    title="Kuhn poker",
    games={"kuhn": "cfrlab.games.kuhn:KuhnPoker"},
    views=Views(web="cfrlab.games.ui.table_views:KuhnView"),
    observation="cfrlab.envs.encoding:BinaryTensor",
)

LEDUC = GameFamily(
    name="leduc",
    title="Leduc hold'em",
    games={"leduc": "cfrlab.games.leduc:LeducHoldem", "leduc_suitless": "cfrlab.games.leduc:SuitlessLeduc"},
    views=Views(web="cfrlab.games.ui.table_views:LeducView"),
    observation="cfrlab.envs.encoding:BinaryTensor",
)
