"""Limit hold'em as a game family: its games, agents, web view and solvers, registered by name (``cfrlab.registry``)."""

from cfrlab.registry import GameFamily

FAMILY = GameFamily(
    name="holdem",
    title="hold'em",
    games={
        "holdem": "cfrlab.games.holdem.rules.game:LimitHoldem",
        "holdem_suitiso": "cfrlab.games.holdem.rules.game:SuitQuotientHoldem",
        "holdem_ehs2": "cfrlab.games.holdem.abstraction.abstract_game:AbstractHoldem",
    },
    agents={"*": "cfrlab.games.holdem.players.agents:make_real_game_agent"},  # call, raise, strength, policy:PATH
    web_view="cfrlab.games.holdem.ui.web_view:HoldemView",
    abstraction="cfrlab.games.holdem.abstraction.abstract_game:with_abstraction",
    prepare="cfrlab.games.holdem.ui.build:prepare_abstraction",
    evaluation="cfrlab.games.holdem.ui.evaluate:RealGamePlay",
    observation="cfrlab.games.holdem.rules.observation:observation",
    algorithms=(
        "cfrlab.games.holdem.solvers.cfr:ChanceSampledHoldemCFR",
        "cfrlab.games.holdem.solvers.vector_cfr:VectorHoldemCFRPlus",
        "cfrlab.games.holdem.solvers.vector_cfr:VectorHoldemPCFRPlus",
        "cfrlab.games.holdem.solvers.vector_cfr:VectorHoldemDCFRPlus",
        "cfrlab.games.holdem.solvers.vector_cfr:VectorHoldemPDCFRPlus",
    ),
)
