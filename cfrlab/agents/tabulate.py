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

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from cfrlab.policy_tabulate import tabulate_policy
from cfrlab.tree.states import infoset_states

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


def agent_row(agent: Agent, state: State, index: int, seed: int, width: int) -> NDArray[np.float64]:
    """The agent's move at infoset ``index`` (``state`` one of its states) as ``width`` action probabilities: its
    own, or 1 on the action of one ``act`` call; drawn from ``default_rng([seed, index])``, after ``reset()``."""
    out = np.zeros(width)
    rng = np.random.default_rng([seed, index])
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset()
    if tabulation(agent) == PROBABILITIES:
        for a, p in agent.action_probabilities(state, rng).items():  # type: ignore[attr-defined]
            out[int(a)] = p
    else:
        out[int(agent.act(state, rng))] = 1.0
    return out


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
    done = [0]

    def probs(chunk: Sequence[State]) -> NDArray[np.float64]:
        rows = []
        for state in chunk:
            rows.append(agent_row(agent, state, done[0], seed, tree.max_actions))
            done[0] += 1
            if on_infoset is not None:
                on_infoset(done[0])
        return np.array(rows).reshape(len(chunk), tree.max_actions)

    return tabulate_policy(game, tree, probs, states=states)


@functools.lru_cache(maxsize=2)
def _tabulator(spec: str, agent_name: str) -> tuple[Agent, list[State], int]:
    """A worker's agent, representative states and row width for game ``spec`` (made once per process)."""
    from cfrlab.agents import make_agent
    from cfrlab.registry import load_game
    from cfrlab.tree import load_tree

    game = load_game(spec)
    tree = load_tree(game)
    return make_agent(agent_name, game), infoset_states(game, tree), tree.max_actions


def agent_rows(spec: str, agent_name: str, seed: int, indices: Sequence[int]) -> NDArray[np.float64]:
    """Rows ``indices`` of agent ``agent_name``'s table on game ``spec`` (``agent_row``), in that order: a unit of
    work that any process computes alike (``cfrlab eval GAME --agent A --workers N``)."""
    agent, states, width = _tabulator(spec, agent_name)
    return np.array([agent_row(agent, states[i], i, seed, width) for i in indices]).reshape(len(indices), width)


RAY_ROWS = 32
"""Rows per Ray task: a batch is ``workers`` tasks, heard (logged, counted) when all are back."""


def table_rows(game: Game, tree: GameTree, agent: Agent, agent_name: str, seed: int = 0, workers: int = 1,
               address: str | None = None, done: dict[int, NDArray[np.float64]] | None = None,
               on_rows: Callable[[list[int], NDArray[np.float64]], None] | None = None) -> NDArray[np.float64]:
    """Every infoset's row of ``agent``'s table (``agent_row``; ``agent_name`` makes it again on Ray workers),
    those in ``done`` taken as they are; the others in this process, or over ``workers`` Ray workers
    (``agent_rows``: the same rows). ``on_rows(indices, rows)`` hears each row or batch as it is computed."""
    from cfrlab.distributed import WorkerPool, split_evenly

    rows = np.zeros((tree.num_infosets, tree.max_actions))
    for i, row in (done or {}).items():
        rows[i] = row
    todo = [i for i in range(tree.num_infosets) if i not in (done or {})]
    with WorkerPool(workers, address=address) as pool:
        if not pool.parallel:
            states = infoset_states(game, tree)
            for i in todo:
                rows[i] = agent_row(agent, states[i], i, seed, tree.max_actions)
                if on_rows is not None:
                    on_rows([i], rows[i:i + 1])
            return rows
        size = RAY_ROWS * workers
        for start in range(0, len(todo), size):
            batch = todo[start:start + size]
            parts = split_evenly(batch, min(workers, len(batch)))
            computed = np.concatenate(pool.map(agent_rows, [(game.spec(), agent_name, seed, part) for part in parts]))
            rows[batch] = computed
            if on_rows is not None:
                on_rows(batch, computed)
    return rows
