"""The opponent a person plays against (terminal and web page): a strategy file, random play or a heuristic."""

from __future__ import annotations

from pathlib import Path

from cfrlab.agents.base import Agent, PolicyAgent, RandomAgent, make_agent
from cfrlab.game import Game

OPPONENTS = ("policy", "random", "greedy", "search", "cfr", "blueprint", "oos")


def build_opponent(game: Game, opponent: str | None = None, strategy: str | Path | None = None) -> Agent:
    """The opponent agent: ``policy`` (needs ``strategy``, a strategy file for ``game``), ``random``, ``greedy``,
    ``search`` (Koi-Koi determinized search, 200 playouts per action), ``cfr`` (the same search with the shipped
    CFR blueprint's koi-koi decisions in its playouts), ``blueprint`` (the blueprint alone) or ``oos[:SECONDS]``
    (Online Outcome Sampling from the current information set, 0.5 s per move by default); the search, cfr,
    blueprint and oos opponents take ``make_agent``'s options (``search:500``, ``cfr:20ms``, ``oos:0.5``).

    Without ``opponent``: ``policy`` when a strategy is given, ``greedy`` for Koi-Koi, ``random`` otherwise.
    Raises ``ValueError`` (``PolicyFileError`` for bad files) with a sentence saying what to change.
    """
    if opponent is None:
        opponent = "policy" if strategy is not None else ("greedy" if game.name.startswith("koikoi") else "random")
    kind = opponent.split(":", 1)[0]  # search:500, cfr:20ms, oos:0.5, ... take make_agent's options
    if kind not in OPPONENTS or (kind != opponent and kind in ("policy", "random")):
        raise ValueError(f"unknown opponent {opponent!r}; choose one of: {', '.join(OPPONENTS)} (the search, cfr, "
                         "blueprint and oos agents take options as in `cfrlab arena`, e.g. search:500)")
    if kind != "policy" and strategy is not None:
        raise ValueError(f"--strategy is only used with --opponent policy, not with --opponent {opponent}")
    if kind == "random":
        return RandomAgent()
    if kind == "oos":
        return make_agent(opponent, game)
    if kind in ("greedy", "search", "cfr", "blueprint"):
        if not game.name.startswith("koikoi"):
            raise ValueError(f"the {kind} opponent plays Koi-Koi only, not {game.spec()}; use random or policy")
        return make_agent(opponent, game)
    if strategy is None:
        raise ValueError("--opponent policy needs --strategy FILE (a strategy file written by `cfrlab solve --out`)")
    from cfrlab.policy_file import read_policy_meta

    path = Path(strategy)
    agent = make_agent(f"policy:{path}", game)  # the one loading path: file, infosets and legal actions checked
    if not isinstance(agent, PolicyAgent):
        return agent  # an abstract hold'em strategy plays through its buckets
    meta = read_policy_meta(path)
    solver, iterations = meta.get("solver"), meta.get("iterations")
    about = ", ".join(str(x) for x in (solver, f"{iterations} iterations" if iterations else None) if x)
    agent.name = f"{path.name} ({about})" if about else path.name
    return agent
