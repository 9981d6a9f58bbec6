"""Any agent's moves tabulated on every information set of a compiled tree, for its exact exploitability.

An agent is a function of the information set it moves at only if it never reads the hidden cards of the state it
is given (the arena tests each agent for that). ``tabulate_policy`` hands it one real state per infoset, the first
met breadth first (``cfrlab.tree.states.infoset_states``): a deal consistent with what the acting player knows.

An agent that offers ``action_probabilities(state, rng)`` (random, policy files, Online Outcome Sampling) is
tabulated by those probabilities; any other by the action of one ``act`` call per infoset, a pure strategy. Each
infoset's call draws from its own stream, ``np.random.default_rng([seed, infoset])``, so the table depends on the
seed only, not on the order of the calls. An agent with memory between moves (OOS keeps its tables for the moves
of a round) is ``reset()`` before each infoset: each move is searched as a game's first move would be.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from cfrlab.policy_tabulate import tabulate_policy

if TYPE_CHECKING:
    from cfrlab.agents.base import Agent
    from cfrlab.game import Game, State
    from cfrlab.policy import TabularPolicy
    from cfrlab.tree import GameTree

PROBABILITIES = "probabilities"
"""Tabulated by the agent's action probabilities."""
SAMPLED = "sampled"
"""Tabulated by the action of one seeded ``act`` call per infoset."""


def tabulation(agent: Agent) -> str:
    """How ``agent`` is tabulated: ``PROBABILITIES`` when it offers them, else ``SAMPLED``."""
    return PROBABILITIES if callable(getattr(agent, "action_probabilities", None)) else SAMPLED


def agent_policy(
    game: Game,
    tree: GameTree,
    agent: Agent,
    seed: int = 0,
    states: Sequence[State] | None = None,
    on_infoset: Callable[[int], None] | None = None,
) -> TabularPolicy:
    """``agent``'s moves at every infoset of ``tree`` as a ``TabularPolicy`` (see the module's docstring);
    ``states`` replaces the representative states (one per infoset, in infoset order), ``on_infoset(done)`` is
    called after each infoset (progress)."""
    by_probabilities = tabulation(agent) == PROBABILITIES
    reset = getattr(agent, "reset", None)
    done = [0]

    def row(state: State) -> NDArray[np.float64]:
        out = np.zeros(tree.max_actions)
        rng = np.random.default_rng([seed, done[0]])
        if callable(reset):
            reset()
        if by_probabilities:
            for a, p in agent.action_probabilities(state, rng).items():  # type: ignore[attr-defined]
                out[int(a)] = p
        else:
            out[int(agent.act(state, rng))] = 1.0
        done[0] += 1
        if on_infoset is not None:
            on_infoset(done[0])
        return out

    def probs(chunk: Sequence[State]) -> NDArray[np.float64]:
        return np.array([row(s) for s in chunk]).reshape(len(chunk), tree.max_actions)

    return tabulate_policy(game, tree, probs, states=states)
