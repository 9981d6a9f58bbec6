"""Koi-Koi's agents by name, as ``make_agent`` builds them (``cfrlab.games.koikoi.family`` registers each)."""

from __future__ import annotations

import re
from typing import Any

from cfrlab.agents.limits import CFR_COUNT, CFR_TIME, MAX_PLAYOUTS
from cfrlab.game import Game


def greedy(name: str, game: Game) -> Any:
    """``greedy``: the one-ply heuristic (``cfrlab.games.koikoi.agents``)."""
    from cfrlab.games.koikoi.agents import GreedyAgent

    if name != "greedy":
        raise ValueError(f"unknown agent {name!r}; greedy takes no options")
    return GreedyAgent()


def search(name: str, game: Game) -> Any:
    """``search[:N][:points|match]``: determinized search with N playouts per action, for the round's points or
    the match-win probability (``cfrlab.games.koikoi.search``)."""
    from cfrlab.games.koikoi.search import DEFAULT_ROLLOUTS, make_search_agent

    parts = name.split(":")[1:]
    objective = parts.pop() if parts and parts[-1] in ("points", "match") else "points"
    budget = parts[0] if parts else str(DEFAULT_ROLLOUTS)
    if len(parts) > 1 or not budget.isdigit() or not 1 <= int(budget) <= MAX_PLAYOUTS:
        raise ValueError(f"search[:N][:points|match] needs a positive number of playouts per action "
                         f"(at most {MAX_PLAYOUTS:,}), got {name!r}")
    return make_search_agent(game, rollouts=int(budget), objective=objective)


def cfr(name: str, game: Game) -> Any:
    """``cfr[:N|:Tms][:points|match][:PATH]``: the search refined by the CFR blueprint
    (``cfrlab.games.koikoi.players.cfr``)."""
    from cfrlab.games.koikoi.players.cfr import make_cfr_agent

    return make_cfr_agent(game, name)


def blueprint(name: str, game: Game) -> Any:
    """``blueprint[:PATH]``: the blueprint alone, the shipped one or one trained by ``cfrlab train``."""
    if game.name != "koikoi":
        raise ValueError(f"the cfr blueprint plays full Koi-Koi (koikoi[...]), not {game.name!r}")
    from cfrlab.games.koikoi.players.blueprint import load_agent

    return load_agent(name.split(":", 1)[1] if ":" in name else None, game)


def search_options(name: str, rollouts: int | None, objective: str | None) -> str:
    """``search`` with a command's ``--rollouts`` and ``--objective`` where it leaves them out (``search`` becomes
    ``search:400``, ``search:400`` becomes ``search:400:match``)."""
    parts = name.split(":")[1:]
    if rollouts is not None and not any(p.isdigit() for p in parts):
        parts.insert(0, str(rollouts))
    if objective is not None and not (parts and parts[-1] in ("points", "match")):
        parts.append(objective)
    return ":".join(["search", *parts])


def cfr_options(name: str, rollouts: int | None, objective: str | None) -> str:
    """``cfr[:N|:Tms][:points|match][:PATH]`` with a command's ``--objective`` where it leaves it out
    (``cfr:20ms:bp/`` becomes ``cfr:20ms:match:bp/``)."""
    parts = name.split(":")[1:]
    at = 1 if parts and re.fullmatch(f"{CFR_COUNT}|{CFR_TIME}", parts[0]) else 0
    if objective is None or (len(parts) > at and parts[at] in ("points", "match")):
        return name
    return ":".join(["cfr", *parts[:at], objective, *parts[at:]])
