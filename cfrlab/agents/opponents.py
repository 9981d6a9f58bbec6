"""The opponent a person plays against (terminal and web page): a strategy file, random play or a game's agent."""

from __future__ import annotations

from pathlib import Path

from cfrlab.agents.base import Agent, PolicyAgent, RandomAgent
from cfrlab.agents.names import GENERIC_AGENTS, kind_of, make_agent, parse_agent, plays_only
from cfrlab.agents.spec import AgentSpec
from cfrlab.game import Game
from cfrlab.registry import families, family_of


def opponent_kinds() -> tuple[str, ...]:
    """Every opponent kind: the generic agents' and each game family's (Koi-Koi's greedy, search, ...)."""
    own = [kind for family in families() for kind in family.agents]
    return tuple(dict.fromkeys(["policy", "random", *own, "oos"]))


def __getattr__(name: str) -> tuple[str, ...]:
    if name == "OPPONENTS":  # computed: the families registered so far
        return opponent_kinds()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_opponent_name(game: Game) -> str:
    """The name of the agent a person meets without choosing one: the first of its family's
    ``Views.default_opponent`` that plays ``game`` (Koi-Koi: ``cfr:500ms``, on the small variants ``search:500ms``);
    ``random`` for a game of no family."""
    family = family_of(game)
    names = family.views.default_opponent if family is not None else "random"
    names = (names,) if isinstance(names, str) else names
    for name in names[:-1]:
        try:
            make_agent(name, game)  # cheap once built: Koi-Koi's blueprint is read once
        except ValueError:  # plays other games of the family only (the blueprint plays full Koi-Koi)
            continue
        return name
    return names[-1]


def default_opponent(game: Game) -> Agent:
    """The agent of ``default_opponent_name(game)``, named so."""
    name = default_opponent_name(game)
    agent = make_agent(name, game)
    agent.name = name  # as a person would write it: search:500ms, not search(500ms)
    return agent


def build_opponent(game: Game, opponent: str | AgentSpec | None = None, strategy: str | Path | None = None) -> Agent:
    """The opponent agent: ``policy`` (needs ``strategy``, a strategy file for ``game``), ``random``, ``oos[:SECONDS]``
    (Online Outcome Sampling from the current information set, 0.5 s per move by default) or an agent of the game's
    family (Koi-Koi: ``greedy``, ``search``, ``cfr``, ``blueprint``), with ``make_agent``'s options
    (``search:500``, ``cfr:20ms``, ``oos:0.5``).

    Without ``opponent``: ``policy`` when a strategy is given, else ``default_opponent(game)``. Raises
    ``ValueError`` (``PolicyFileError`` for bad files) with a sentence saying what to change.
    """
    family = family_of(game)
    if opponent is None and strategy is None:
        return default_opponent(game)
    opponent = "policy" if opponent is None else opponent
    found = kind_of(opponent, game) if isinstance(opponent, str) else None
    kind = opponent.kind if isinstance(opponent, AgentSpec) else found[0] if found else None  # search:500, oos:0.5
    if kind is None or (kind == "random" and opponent != "random"):
        raise ValueError(f"unknown opponent {str(opponent)!r}; choose one of: {', '.join(opponent_kinds())} (the "
                         "search, cfr, blueprint and oos agents take options as in `cfrlab arena`, e.g. search:500)")
    if kind != "policy" and strategy is not None:
        raise ValueError(f"--strategy is only used with --opponent policy, not with --opponent {opponent}")
    if kind == "random":
        return RandomAgent()
    if kind != "policy" or opponent != "policy":
        if kind not in GENERIC_AGENTS and (family is None or kind not in family.agents):
            raise ValueError(f"the {kind} opponent plays {plays_only(kind)} only, not {game.spec()}; use random "
                             "or policy")
        return make_agent(opponent if isinstance(opponent, AgentSpec) else parse_agent(opponent, game), game)
    if strategy is None:
        raise ValueError("--opponent policy needs --strategy FILE (a strategy file written by `cfrlab solve --out`)")
    from cfrlab.policy_file import read_policy_meta

    path = Path(strategy)
    agent = make_agent(f"policy:{path}", game)  # the one loading path: file, infosets and legal actions checked
    if not isinstance(agent, PolicyAgent):
        return agent  # the family plays it its own way (an abstract hold'em strategy through its buckets)
    meta = read_policy_meta(path)
    solver, iterations = meta.get("solver"), meta.get("iterations")
    about = ", ".join(str(x) for x in (solver, f"{iterations} iterations" if iterations else None) if x)
    agent.name = f"{path.name} ({about})" if about else path.name
    return agent
