"""The ``Agent`` protocol and the generic agents (uniform random, any tabular or network policy).

Specification in cfrlab:
* ``Agent.act(state, rng) -> action`` at a decision node of the acting player; ``rng`` is the agent's own
  ``np.random.Generator`` (the arena gives each seat its own stream, so agents never disturb chance). An agent
  may also offer ``action_probabilities(state, rng) -> {action: p}`` (what ``act`` draws from) and ``reset()``
  (forget earlier moves); ``cfrlab.agents.tabulate`` reads them to tabulate the agent on every infoset.
* ``PolicyAgent`` samples from ``TabularPolicy.action_probabilities(key)`` (or from any ``key -> {action: p}`` or
  ``state -> probabilities over max_actions`` callable, which is how a network policy plugs in). Unknown keys fall
  back to uniform over the legal actions when ``fallback='uniform'`` (the default) and raise otherwise.
* ``make_agent(name, game)`` (``cfrlab.agents.names``): an agent by name, read once into an ``AgentSpec``
  (``cfrlab.agents.spec``) by its kind's grammar. The generic kinds: ``random`` (``random_agent``),
  ``oos[:SECONDS][:cpu|wall][:ist|pst][:points|match]`` (Online Outcome Sampling, SECONDS of CPU time a move or of
  wall-clock time with ``wall``, any game whose tree can be walked or that offers a conditioned deal; ``pst``
  targets the public state; ``oos_agent``) and ``policy:PATH`` (a saved strategy file for ``game``;
  ``policy_agent``). A game family registers its own (``cfrlab.registry.GameFamily.agents``), asked first:
  Koi-Koi's ``greedy``, ``search``, ``cfr`` and ``blueprint`` (``cfrlab.games.koikoi.family``), hold'em's ``call``,
  ``raise``, ``strength``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from cfrlab.agents.names import (  # noqa: F401 - agents by name, part of this module's API
    GENERIC_AGENTS,
    agent_choices,
    make_agent,
    on_wall_clock,
    plays_only,
    with_search_options,
    with_search_options_for,
)
from cfrlab.agents.spec import AgentSpec
from cfrlab.game import Game, State


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(state, rng) -> action`` (and a ``name`` for tables)."""

    name: str

    def act(self, state: State, rng: np.random.Generator) -> int:
        """A legal action for the acting player of ``state``."""
        ...


class RandomAgent:
    """Uniform over the legal actions."""

    name = "random"

    def action_probabilities(self, state: State, rng: np.random.Generator) -> dict[int, float]:
        """Uniform over the legal actions (what ``act`` draws from)."""
        legal = state.legal_actions()
        return {int(a): 1.0 / len(legal) for a in legal}

    def act(self, state: State, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        return int(legal[int(rng.integers(len(legal)))])


def _sample(probs: Mapping[int, float], legal: list[int], rng: np.random.Generator) -> int:
    p = np.array([max(float(probs.get(a, 0.0)), 0.0) for a in legal], dtype=np.float64)
    total = p.sum()
    if not np.isfinite(total) or total <= 0.0:
        return int(legal[int(rng.integers(len(legal)))])
    return int(legal[int(rng.choice(len(legal), p=p / total))])


class PolicyAgent:
    """Plays a tabular policy (``TabularPolicy`` or a ``key -> {action: prob}`` mapping or callable)."""

    def __init__(self, policy: Any, name: str = "policy", fallback: str = "uniform") -> None:
        if fallback not in ("uniform", "raise"):
            raise ValueError(f"fallback must be 'uniform' or 'raise', got {fallback!r}")
        self.policy = policy
        self.name = name
        self.fallback = fallback

    def _probs(self, key: str) -> Mapping[int, float] | None:
        pol = self.policy
        try:
            if hasattr(pol, "action_probabilities"):
                return pol.action_probabilities(key)
            if callable(pol):
                return pol(key)
            return pol[key]
        except KeyError:
            if self.fallback == "raise":
                raise
            return None

    def action_probabilities(self, state: State, rng: np.random.Generator) -> Mapping[int, float]:
        """The policy's row at the acting player's infoset (uniform where it has none): what ``act`` draws from."""
        probs = self._probs(state.information_state_key())
        return RandomAgent().action_probabilities(state, rng) if probs is None else probs

    def act(self, state: State, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        probs = self._probs(state.information_state_key())
        if probs is None:
            return int(legal[int(rng.integers(len(legal)))])
        return _sample(probs, legal, rng)


class CallableAgent:
    """Plays ``fn(state) -> probabilities over max_actions`` (e.g. a network on ``information_state_tensor``)."""

    def __init__(self, fn: Callable[[State], NDArray[np.float64]], name: str = "network") -> None:
        self.fn = fn
        self.name = name

    def act(self, state: State, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        p = np.asarray(self.fn(state), dtype=np.float64)
        return _sample({a: p[a] for a in legal}, legal, rng)


def random_agent(spec: AgentSpec, game: Game) -> Agent:
    """``random``: uniform over the legal actions."""
    return RandomAgent()


def policy_agent(spec: AgentSpec, game: Game) -> Agent:
    """``policy:PATH``: the strategy file at PATH, checked against ``game``."""
    from cfrlab.policy import TabularPolicy

    policy, _ = TabularPolicy.load(str(spec.path), game)
    policy.check_fits_game(game)  # infosets and legal actions, as eval and serve check them
    return PolicyAgent(policy, name=f"policy:{spec.path}")


def oos_agent(spec: AgentSpec, game: Game) -> Agent:
    """``oos[:SECONDS][:cpu|wall][:ist|pst][:points|match]``: Online Outcome Sampling (``cfrlab.agents.oos``)."""
    from cfrlab.agents.oos import DEFAULT_SECONDS, OOSAgent

    return OOSAgent(game, seconds=spec.seconds or DEFAULT_SECONDS, clock=spec.clock or "cpu",
                    targeting=spec.targeting or "ist", objective=spec.objective or "points")
