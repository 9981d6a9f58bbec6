"""Limit hold'em as a game family: its games, agents, web view and solvers, registered by name (``cfrlab.registry``)."""

from cfrlab.registry import AgentKind, CommandOption, GameFamily, Solvers, Views

_AGENTS = "cfrlab.games.holdem.players.agents"
_MOST = 10**9
"""Deals or completions an option may ask for (``cfrlab.cli.common.MAX_DEALS``)."""

FAMILY = GameFamily(
    name="holdem",
    title="hold'em",
    games={
        "holdem": "cfrlab.games.holdem.rules.game:LimitHoldem",
        "holdem_suitiso": "cfrlab.games.holdem.rules.game:SuitQuotientHoldem",
        "holdem_ehs2": "cfrlab.games.holdem.abstraction.abstract_game:AbstractHoldem",
    },
    agents={
        "call": AgentKind(f"{_AGENTS}:fixed_agent", about="always checks or calls (the real game holdem)"),
        "raise": AgentKind(f"{_AGENTS}:fixed_agent", about="raises whenever allowed, else calls (holdem)"),
        "strength": AgentKind(f"{_AGENTS}:fixed_agent", about="raises a strong hand, calls a fair one, else folds "
                                                              "(holdem)"),
        "policy": AgentKind(f"{_AGENTS}:abstract_policy_agent", takes=("PATH",), required=("PATH",),
                            about="a strategy file of the game, or of holdem_ehs2 played on real cards"),
    },
    options=(
        CommandOption("--lbr", ("eval",), "Hold'em: play Local Best Response (Lisý & Bowling 2017) on this many deals "
                      "of the real game, both seats; a lower bound on the real exploitability, in mb/h with its 95 % "
                      "interval.", type="int", low=1, high=_MOST),
        CommandOption("--lbr-log", ("eval",), "LBR: keep each deal's return in this .jsonl as it ends; a log an "
                      "interrupted run left (same strategy, seed and rollouts) is continued, not replayed.",
                      type="path"),
        CommandOption("--rollouts", ("eval",), "LBR: board completions per equity estimate (all of them when "
                      "fewer; default 200).", type="int", low=1, high=_MOST),
        CommandOption("--versus", ("eval",), "Hold'em: play these agents in the real game with duplicate deals, "
                      "comma-separated (call, raise, strength, random, policy:PATH), e.g. call,raise,strength."),
        CommandOption("--versus-log", ("eval",), "--versus (one agent): keep each deal's result in this .jsonl as it "
                      "ends; a log an interrupted run left (same strategy, agent and seed) is continued, not "
                      "replayed.", type="path"),
        CommandOption("--real-exact", ("eval",), "Hold'em, small variants only: compile the real game and give the "
                      "strategy's exact real exploitability (LBR stays below it).", type="switch"),
        CommandOption("--hands", ("eval",), "--versus: deals per opponent (each from both seats; default 1000).",
                      type="int", low=1, high=_MOST),
        CommandOption("--abstraction", ("solve",), "Card abstraction for holdem: ehs2:N (N E[HS^2] buckets a round) "
                      "or ehs2:N1,N2,... (one count per round); ehs2:N:exact counts every deal in the joint table "
                      "(decks above 32 cards; a long first build, checkpointed, then cached).", sets="game",
                      apply="cfrlab.games.holdem.abstraction.abstract_game:with_abstraction"),
    ),
    views=Views(web="cfrlab.games.holdem.ui.web_view:HoldemView"),
    solvers=Solvers(algorithms=(
        "cfrlab.games.holdem.solvers.cfr:ChanceSampledHoldemCFR",
        "cfrlab.games.holdem.solvers.vector_cfr:VectorHoldemCFRPlus",
        "cfrlab.games.holdem.solvers.vector_cfr:VectorHoldemPCFRPlus",
        "cfrlab.games.holdem.solvers.vector_cfr:VectorHoldemDCFRPlus",
        "cfrlab.games.holdem.solvers.vector_cfr:VectorHoldemPDCFRPlus",
    )),
    prepare="cfrlab.games.holdem.ui.build:prepare_abstraction",
    evaluation="cfrlab.games.holdem.ui.evaluate:RealGamePlay",
    observation="cfrlab.games.holdem.rules.observation:observation",
)
