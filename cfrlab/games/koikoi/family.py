"""Koi-Koi as a game family: its games, agents, options, views and commands, registered by name
(``cfrlab.registry``)."""

from cfrlab.registry import AgentKind, CommandOption, GameFamily, Rounds, Solvers, Views

_AGENTS = "cfrlab.games.koikoi.players.by_name"
_MOST_ROUNDS = 100
"""Most rounds of a match an option may ask for: the game's own bound (``rules.rules.MAX_ROUNDS``; not imported,
so ``cfrlab --help`` imports no game code)."""
_BUDGET = ("N|Tms", "points|match")
"""A search agent's options: N playouts per action or T CPU milliseconds per decision, then the objective."""
_DEFAULT_OPPONENT = ("cfr:500ms", "search:500ms")
"""The agent a person meets: the strongest (``cfr``, BENCHMARKS.md "Koi-Koi: the cfr agent") at half a CPU second a
decision, a wait of 0.5 s a move, 1 s at the 90th percentile (BENCHMARKS.md "Koi-Koi: the web page's pace");
``search`` on the small variants, which the blueprint does not play."""

FAMILY = GameFamily(
    name="koikoi",
    title="Koi-Koi",
    games={
        "koikoi": "cfrlab.games.koikoi.rules.game:KoiKoiGame",
        "koikoi_mini": "cfrlab.games.koikoi.rules.game:KoiKoiMini",
        "koikoi_mini_tsukifuda": "cfrlab.games.koikoi.rules.game:KoiKoiMiniTsukifuda",
    },
    agents={
        "greedy": AgentKind(f"{_AGENTS}:greedy",
                            about="the one-ply heuristic: the largest capture, a careful koi-koi"),
        "search": AgentKind(f"{_AGENTS}:search", takes=_BUDGET, fills=("count", "objective"),
                            about="determinized Monte Carlo search (200 playouts per action by default)"),
        "cfr": AgentKind(f"{_AGENTS}:cfr", takes=(*_BUDGET, "PATH"), fills=("count", "objective"),
                         plays="full Koi-Koi", about="the search refined by the CFR blueprint (the shipped one, or "
                                                     "PATH written by `cfrlab train koikoi`)"),
        "neural": AgentKind(f"{_AGENTS}:neural", takes=(*_BUDGET, "PATH"), fills=("objective",),
                            about="the search with playouts cut and valued by a learned network (PATH: weights)"),
        "neural:oos": AgentKind(f"{_AGENTS}:neural_oos", takes=("SECONDS", "PATH"),
                                about="Online Outcome Sampling valued by the learned network beyond its tree"),
        "netsearch": AgentKind(f"{_AGENTS}:netsearch", takes=(*_BUDGET, "playout", "prior", "cut", "blend", "PATH"),
                               fills=("objective",),
                               about="the search with a policy learned from outcomes (PATH: a net file) as its "
                                     "playouts, root prior (top 4, halving), cut value (after 8 half-turns) or "
                                     "half of the root's ranking (blend)"),
        "netsearch:oos": AgentKind(f"{_AGENTS}:netsearch_oos", takes=("SECONDS", "PATH"),
                                   about="Online Outcome Sampling that follows the learned policy beyond its tree"),
        "blueprint": AgentKind(f"{_AGENTS}:blueprint", takes=("PATH",), plays="full Koi-Koi",
                               about="the CFR blueprint alone, the shipped one or PATH"),
        "net": AgentKind(f"{_AGENTS}:net", takes=("PATH",),
                         about="a policy learned from self-play outcomes, alone (PATH: weights from `cfrlab train "
                               "koikoi --method dmc|ppo`)"),
    },
    options=(
        CommandOption("--rules", ("play",), "Koi-Koi rules preset (nintendo, fudawiki, koikoi_japan, ...)."),
        CommandOption("--rounds", ("play",), "Koi-Koi: 1 for one round, 6 or 12 for a match.", type="int",
                      low=1, high=_MOST_ROUNDS),
        CommandOption("--rounds", ("serve",), "Koi-Koi: play matches of this many rounds (12 or 6), with the match "
                      "score, each round's summary and the match result.", type="int", low=1, high=_MOST_ROUNDS,
sets="game.rounds"),
        CommandOption("--rollouts", ("play", "arena"), "Koi-Koi: playouts per action of a search or cfr agent that "
                      "gives none (default 200).", type="int", low=1, high=10**9,
                      sets="agent.count"),
        CommandOption("--objective", ("play", "arena"), "Koi-Koi: what a search, cfr, neural or oos agent that names "
                      "none maximises: points (the round's) or match (the match-win probability).",
                      sets="agent.objective"),
        CommandOption("--match", ("arena",), "Koi-Koi: play matches (the preset's rounds, 12 unless koikoi_japan's "
                      "8) instead of single rounds.", type="switch", sets="params",
                      apply="cfrlab.games.koikoi.rules.game:match_option"),
    ),
    views=Views(web="cfrlab.games.koikoi.ui.web_view:KoiKoiView",
                terminal="cfrlab.games.koikoi.ui.terminal:play_in_terminal", default_opponent=_DEFAULT_OPPONENT,
                play_default="koikoi", text="cfrlab.games.koikoi.ui.terminal:screen_text"),
    solvers=Solvers(modules=("cfrlab.games.koikoi.solvers",), refusal="cfrlab.games.koikoi.rules.game:solve_refusal"),
    rounds=Rounds(match="cfrlab.games.koikoi.rules.game:match_params",
                  search="cfrlab.games.koikoi.players.oos_rounds:RoundByRound"),
    commands=("cfrlab.games.koikoi.ui.bot", "cfrlab.games.koikoi.ui.train"),
    observation="cfrlab.games.koikoi.neural.features:FeatureObservation",
)
