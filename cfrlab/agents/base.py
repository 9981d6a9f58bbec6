"""The ``Agent`` protocol and the generic agents (uniform random, any tabular or network policy).

Specification in cfrlab:
* ``Agent.act(state, rng) -> action`` at a decision node of the acting player; ``rng`` is the agent's own
  ``np.random.Generator`` (the arena gives each seat its own stream, so agents never disturb chance). An agent
  may also offer ``action_probabilities(state, rng) -> {action: p}`` (what ``act`` draws from) and ``reset()``
  (forget earlier moves); ``cfrlab.agents.tabulate`` reads them to tabulate the agent on every infoset.
* ``PolicyAgent`` samples from ``TabularPolicy.action_probabilities(key)`` (or from any ``key -> {action: p}`` or
  ``state -> probabilities over max_actions`` callable, which is how a network policy plugs in). Unknown keys fall
  back to uniform over the legal actions when ``fallback='uniform'`` (the default) and raise otherwise.
* ``make_agent(name, game)``: a registry of agent factories by kind (the part of the name before ``:``). The generic
  kinds (``GENERIC_AGENTS``): ``random``, ``oos[:SECONDS][:cpu|wall][:ist|pst][:points|match]`` (Online Outcome
  Sampling, SECONDS of CPU time a move or of wall-clock time with ``wall``, any game whose tree can be walked or that
  offers a conditioned deal; ``pst`` targets the public state; ``cfrlab.agents.oos``) and ``policy:PATH`` (a saved
  strategy file for ``game``). A game family registers its own (``cfrlab.registry.GameFamily.agents``), asked first:
  Koi-Koi's ``greedy``, ``search``, ``cfr`` and ``blueprint`` (``cfrlab.games.koikoi.family``), hold'em's ``call``,
  ``raise``, ``strength``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from cfrlab.agents.limits import MAX_SECONDS_PER_MOVE
from cfrlab.game import Game, State
from cfrlab.registry import AgentKind, families, family_of, resolve


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


def with_search_options(name: str, rollouts: int | None = None, objective: str | None = None) -> str:
    """``name`` with a command's ``--rollouts`` and ``--objective`` filled in where the agent leaves them out; each
    agent kind fills its own (``AgentKind.options``): ``oos:0.5`` becomes ``oos:0.5:match``, Koi-Koi's ``search``
    ``search:400`` and ``search:400:match``, its ``cfr:20ms:bp/`` ``cfr:20ms:match:bp/``."""
    if objective not in (None, "points", "match"):
        raise ValueError(f"--objective must be points or match, got {objective!r}")
    kind = name.split(":", 1)[0]
    entry = GENERIC_AGENTS.get(kind) or next(
        (e for family in families() if kind != "*" and (e := family.agent_kind(kind)) is not None), None)
    if entry is None or entry.options is None:
        return name
    return resolve(entry.options)(name, rollouts, objective)


def with_search_options_for(names: list[str], rollouts: int | None, objective: str | None) -> list[str]:
    """``with_search_options`` on each agent of a command; refused when the options fill in nothing (no
    ``search`` agent, or each already gives them): they would be silently ignored."""
    filled = [with_search_options(n, rollouts, objective) for n in names]
    given = [f"{f} {v}" for f, v in (("--rollouts", rollouts), ("--objective", objective)) if v is not None]
    if given and filled == list(names):
        raise ValueError(f"{' and '.join(given)} would change no agent of {', '.join(names)}: they fill in what a "
                         "search agent leaves out (search, search:N) and an oos or cfr agent's objective")
    return filled


def _random(name: str, game: Game) -> Agent:
    if name != "random":
        raise ValueError(f"unknown agent {name!r}; random takes no options")
    return RandomAgent()


def _policy(name: str, game: Game) -> Agent:
    from cfrlab.policy import TabularPolicy

    if ":" not in name:
        raise ValueError(f"unknown agent {name!r}; policy:PATH names a strategy file")
    path = name.split(":", 1)[1]
    policy, _ = TabularPolicy.load(path, game)
    policy.check_fits_game(game)  # infosets and legal actions, as eval and serve check them
    return PolicyAgent(policy, name=f"policy:{path}")


def _oos_options(name: str, rollouts: int | None, objective: str | None) -> str:
    given = name.split(":")[-1] in ("points", "match")
    return name if objective is None or given else f"{name}:{objective}"


OOS_USAGE = "oos[:SECONDS][:cpu|wall][:ist|pst][:points|match]"
"""An OOS agent spec: seconds per move, counted on the CPU clock (the default: a loaded machine does not shrink
the search) or the wall clock (what a person waiting for the move sees), targeting and objective."""


def _oos(name: str, game: Game) -> Agent:
    from cfrlab.agents.oos import DEFAULT_SECONDS, OOSAgent

    parts = name.split(":")[1:]
    objective = parts.pop() if parts and parts[-1] in ("points", "match") else "points"
    targeting = parts.pop() if parts and parts[-1] in ("ist", "pst") else "ist"
    clock = parts.pop() if parts and parts[-1] in ("cpu", "wall") else "cpu"
    if len(parts) > 1:  # what is left after the clock, targeting and objective: the seconds, and a stray token
        raise ValueError(f"{OOS_USAGE} takes the seconds (oos:SECONDS), then cpu or wall, then ist or pst, then "
                         f"points or match, each at most once and in that order; got {name!r}")
    try:
        seconds = float(parts[0]) if parts else DEFAULT_SECONDS
    except ValueError:
        seconds = float("nan")
    if not (seconds > 0.0 and seconds <= MAX_SECONDS_PER_MOVE):
        raise ValueError(f"{OOS_USAGE} needs a positive number of seconds per move (oos:SECONDS), at most "
                         f"{MAX_SECONDS_PER_MOVE:g}, got {name!r}")
    return OOSAgent(game, seconds=seconds, clock=clock, targeting=targeting, objective=objective)


def on_wall_clock(name: str) -> str:
    """An OOS spec that names no clock, timed on the wall clock (``oos:0.5`` -> ``oos:0.5:wall``): a person
    playing it waits the seconds it asks for, however loaded the machine. Any other spec is returned as given."""
    parts = name.split(":")
    if parts[0] != "oos" or "cpu" in parts or "wall" in parts:
        return name
    at = 2 if len(parts) > 1 and parts[1] not in ("ist", "pst", "points", "match") else 1
    return ":".join([*parts[:at], "wall", *parts[at:]])


GENERIC_AGENTS: dict[str, AgentKind] = {
    "random": AgentKind(_random, "random"),
    "oos": AgentKind(_oos, "oos[:SECONDS]", options=_oos_options),
    "policy": AgentKind(_policy, "policy:PATH"),
}
"""The agents every game has, by kind; a game family adds its own (``GameFamily.agents``) and may override these."""


def make_agent(name: str, game: Game) -> Agent:
    """An agent by name, ``KIND[:OPTIONS]``: ``random``, ``oos[:SECONDS][:cpu|wall][:ist|pst][:points|match]`` (Online
    Outcome Sampling, SECONDS per move of CPU or wall-clock time, information-set or public-subgame targeting, a round's
    points or the match-win probability), ``policy:PATH`` (a strategy file of ``game``), or an agent of the game's
    family (``GameFamily.agents``, asked first: e.g. Koi-Koi's ``greedy``, ``search[:N|:Tms]``, ``cfr``, ``blueprint``).
    ``ValueError`` with the agents ``game`` has, for a name it has not."""
    kind = name.split(":", 1)[0]
    family = family_of(game)
    for entry in ([family.agent_kind(kind), family.agent_kind("*")] if family is not None else []):
        if entry is not None:
            agent = resolve(entry.factory)(name, game)
            if agent is not None:
                return agent
    if kind in GENERIC_AGENTS:
        return resolve(GENERIC_AGENTS[kind].factory)(name, game)
    choices = agent_choices(game)
    owner = plays_only(kind)
    if owner is not None:
        raise ValueError(f"no {kind} agent for game {game.name!r}: the {kind} agent plays {owner} only; "
                         f"agents: {choices}")
    raise ValueError(f"unknown agent {name!r}; choose {choices}")


def agent_choices(game: Game) -> str:
    """The agents ``game`` has, as a user writes them: ``random, greedy, ..., oos[:SECONDS] or policy:PATH``."""
    family = family_of(game)
    own = [(family.agent_kind(k).usage or k) for k in family.agents if k != "*"] if family is not None else []  # type: ignore[union-attr]
    usages = [GENERIC_AGENTS["random"].usage, *own, *(e.usage for k, e in GENERIC_AGENTS.items() if k != "random")]
    return ", ".join(usages[:-1]) + " or " + usages[-1]


def plays_only(kind: str) -> str | None:
    """The games agent ``kind`` plays when a game family offers it and no generic agent does (``full Koi-Koi``);
    None for a kind no family offers."""
    if kind in GENERIC_AGENTS or kind == "*":
        return None
    for family in families():
        entry = family.agent_kind(kind)
        if entry is not None:
            return entry.plays or family.title or family.name
    return None
