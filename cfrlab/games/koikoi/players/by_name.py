"""Koi-Koi's agents by name, built from the name read as an ``AgentSpec`` (``cfrlab.agents.spec``), as
``make_agent`` builds them (``cfrlab.games.koikoi.family`` registers each with its options)."""

from __future__ import annotations

from typing import Any

from cfrlab.agents.spec import AgentSpec
from cfrlab.game import Game


def greedy(spec: AgentSpec, game: Game) -> Any:
    """``greedy``: the one-ply heuristic (``cfrlab.games.koikoi.players.greedy``)."""
    from cfrlab.games.koikoi.players.greedy import GreedyAgent

    return GreedyAgent()


def search(spec: AgentSpec, game: Game) -> Any:
    """``search[:N|:Tms][:points|match]``: determinized search with N playouts per action or T CPU milliseconds of
    the searching thread per decision, for the round's points or the match-win probability
    (``cfrlab.games.koikoi.players.search``)."""
    from cfrlab.games.koikoi.players.search import DEFAULT_ROLLOUTS, make_search_agent

    objective = spec.objective or "points"
    if spec.seconds is not None:
        return make_search_agent(game, seconds=spec.seconds, objective=objective)
    return make_search_agent(game, rollouts=spec.count or DEFAULT_ROLLOUTS, objective=objective)


def cfr(spec: AgentSpec, game: Game) -> Any:
    """``cfr[:N|:Tms][:points|match][:PATH]``: the search refined by the CFR blueprint
    (``cfrlab.games.koikoi.players.cfr``)."""
    from cfrlab.games.koikoi.players.cfr import make_cfr_agent

    return make_cfr_agent(game, spec)


def neural(spec: AgentSpec, game: Game) -> Any:
    """``neural[:N|:Tms][:points|match][:PATH]``: the search with playouts cut and valued by a learned network
    (``cfrlab.games.koikoi.players.neural``)."""
    from cfrlab.games.koikoi.players.neural import make_neural_agent

    return make_neural_agent(game, spec)


def net(spec: AgentSpec, game: Game) -> Any:
    """``net[:PATH]``: a policy learned from self-play outcomes, alone (``cfrlab.games.koikoi.players.net``)."""
    from cfrlab.games.koikoi.players.net import make_net_agent

    return make_net_agent(game, spec)


def neural_oos(spec: AgentSpec, game: Game) -> Any:
    """``neural:oos[:SECONDS][:PATH]``: Online Outcome Sampling with the network beyond its tree
    (``cfrlab.games.koikoi.players.neural``)."""
    from cfrlab.games.koikoi.players.neural import make_neural_oos_agent

    return make_neural_oos_agent(game, spec)


def netsearch(spec: AgentSpec, game: Game) -> Any:
    """``netsearch[:N|:Tms][:points|match][:playout][:prior][:cut][:blend][:PATH]``: the learned policy of
    ``net`` inside the search (``cfrlab.games.koikoi.players.guided``)."""
    from cfrlab.games.koikoi.players.guided import make_guided_agent

    return make_guided_agent(game, spec)


def netsearch_oos(spec: AgentSpec, game: Game) -> Any:
    """``netsearch:oos[:SECONDS][:PATH]``: OOS that follows the learned policy beyond its tree
    (``cfrlab.games.koikoi.players.guided``)."""
    from cfrlab.games.koikoi.players.guided import make_guided_agent

    return make_guided_agent(game, spec)


def blueprint(spec: AgentSpec, game: Game) -> Any:
    """``blueprint[:PATH]``: the blueprint alone, the shipped one or one trained by ``cfrlab train``."""
    if game.name != "koikoi":
        raise ValueError(f"the cfr blueprint plays full Koi-Koi (koikoi[...]), not {game.name!r}")
    from cfrlab.games.koikoi.players.blueprint import load_agent

    return load_agent(spec.path, game)
