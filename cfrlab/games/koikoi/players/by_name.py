"""Koi-Koi's agents by name, as ``make_agent`` builds them (``cfrlab.games.koikoi.family`` registers each)."""

from __future__ import annotations

from typing import Any

from cfrlab.agents.limits import MAX_PLAYOUTS
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
