"""Koi-Koi's agents by name, as ``make_agent`` builds them (``cfrlab.games.koikoi.family`` registers each)."""

from __future__ import annotations

import re
from typing import Any

from cfrlab.agents.limits import CFR_COUNT, CFR_TIME, MAX_PLAYOUTS, MAX_SECONDS_PER_MOVE
from cfrlab.game import Game


def greedy(name: str, game: Game) -> Any:
    """``greedy``: the one-ply heuristic (``cfrlab.games.koikoi.players.greedy``)."""
    from cfrlab.games.koikoi.players.greedy import GreedyAgent

    if name != "greedy":
        raise ValueError(f"unknown agent {name!r}; greedy takes no options")
    return GreedyAgent()


def search(name: str, game: Game) -> Any:
    """``search[:N|:Tms][:points|match]``: determinized search with N playouts per action or T CPU milliseconds of
    the searching thread per decision, for the round's points or the match-win probability
    (``cfrlab.games.koikoi.players.search``)."""
    from cfrlab.games.koikoi.players.search import DEFAULT_ROLLOUTS, make_search_agent

    parts = name.split(":")[1:]
    objective = parts.pop() if parts and parts[-1] in ("points", "match") else "points"
    budget = parts[0] if parts else str(DEFAULT_ROLLOUTS)
    usage = "search[:N|:Tms][:points|match] needs a positive number of playouts per action"
    if len(parts) > 1 or not re.fullmatch(f"{CFR_COUNT}|{CFR_TIME}", budget):
        raise ValueError(f"{usage} (at most {MAX_PLAYOUTS:,}) or a time per decision (T milliseconds such as "
                         f"20ms), got {name!r}")
    if budget.endswith("ms"):
        seconds = float(budget[:-2]) / 1000.0
        if not 0.0 < seconds <= MAX_SECONDS_PER_MOVE:
            raise ValueError(f"{usage} or a positive time per decision of at most "
                             f"{MAX_SECONDS_PER_MOVE * 1000:.0f}ms, got {name!r}")
        return make_search_agent(game, seconds=seconds, objective=objective)
    if not 1 <= int(budget) <= MAX_PLAYOUTS:
        raise ValueError(f"{usage} (at most {MAX_PLAYOUTS:,}), got {name!r}")
    return make_search_agent(game, rollouts=int(budget), objective=objective)


def cfr(name: str, game: Game) -> Any:
    """``cfr[:N|:Tms][:points|match][:PATH]``: the search refined by the CFR blueprint
    (``cfrlab.games.koikoi.players.cfr``)."""
    from cfrlab.games.koikoi.players.cfr import make_cfr_agent

    return make_cfr_agent(game, name)


def neural(name: str, game: Game) -> Any:
    """``neural[:N|:Tms][:points|match][:PATH]``: the search with playouts cut and valued by a learned network
    (``cfrlab.games.koikoi.players.neural``)."""
    from cfrlab.games.koikoi.players.neural import make_neural_agent

    return make_neural_agent(game, name)


def net(name: str, game: Game) -> Any:
    """``net[:PATH]``: a policy learned from self-play outcomes, alone (``cfrlab.games.koikoi.players.net``)."""
    from cfrlab.games.koikoi.players.net import make_net_agent

    return make_net_agent(game, name)


def blueprint(name: str, game: Game) -> Any:
    """``blueprint[:PATH]``: the blueprint alone, the shipped one or one trained by ``cfrlab train``."""
    if game.name != "koikoi":
        raise ValueError(f"the cfr blueprint plays full Koi-Koi (koikoi[...]), not {game.name!r}")
    from cfrlab.games.koikoi.players.blueprint import load_agent

    return load_agent(name.split(":", 1)[1] if ":" in name else None, game)


def search_options(name: str, rollouts: int | None, objective: str | None) -> str:
    """``search`` with a command's ``--rollouts`` and ``--objective`` where it leaves them out (``search`` becomes
    ``search:400``, ``search:400`` becomes ``search:400:match``; ``search:20ms`` keeps its time)."""
    parts = name.split(":")[1:]
    if rollouts is not None and not any(re.fullmatch(f"{CFR_COUNT}|{CFR_TIME}", p) for p in parts):
        parts.insert(0, str(rollouts))
    if objective is not None and not (parts and parts[-1] in ("points", "match")):
        parts.append(objective)
    return ":".join(["search", *parts])


def budget_options(name: str, rollouts: int | None, objective: str | None) -> str:
    """``cfr[:N|:Tms][:points|match][:PATH]`` or ``neural[...]`` with a command's ``--objective`` where it leaves it
    out (``cfr:20ms:bp/`` becomes ``cfr:20ms:match:bp/``); ``neural:oos...`` plays for the round's points only and
    is left as it is."""
    from cfrlab.games.koikoi.players.spec import with_objective

    return name if name.startswith("neural:oos") else with_objective(name, objective)
