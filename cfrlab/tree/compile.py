"""Enumerate a game breadth first into a ``GameTree`` (one Python pass, then arrays only)."""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

import numpy as np

from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, State, payoff_scale
from cfrlab.tree.arrays import GameTree

COMPILER_VERSION = 2
"""Bump when the array layout changes, so cached trees are rebuilt."""

DEFAULT_MAX_NODES = 20_000_000

ANNOUNCED_NODES = 1_000_000
"""Trees estimated larger than this are announced on the ``cfrlab.tree`` logger before they are built (a build of
millions of nodes takes minutes of Python and, unannounced, looked like a hang)."""

logger = logging.getLogger(__name__)

SIZE_PROBES = 64
"""Random root-to-leaf walks of the tree-size estimate ``estimate_nodes`` takes before compiling."""


class TreeTooLarge(GameDefinitionError):
    """The game has more nodes than the limit it was compiled under (use a sampling solver instead)."""


def compile_tree(game: Game, max_nodes: int = DEFAULT_MAX_NODES, direct: bool = True) -> GameTree:
    """Enumerate ``game`` into a ``GameTree``.

    Raises ``GameDefinitionError`` if the game breaks the protocol (two histories
    with one key but different players or legal actions), ``TreeTooLarge`` (a
    subclass) if it has more than ``max_nodes`` nodes (then use a sampling solver).
    A game with its own ``tree_builder`` (Leduc) is built by it unless ``direct`` is False.
    """
    builder = game.tree_builder() if direct else None
    if builder is not None:
        size, build = builder
        if size > max_nodes:
            raise TreeTooLarge(f"{game.spec()} has {size:,} nodes, more than {max_nodes:,}; too large to compile "
                               "(use a sampling solver such as external-sampling MCCFR)")
        _announce(game, size, estimated=False)
        return assemble_tree(game, **build())
    _refuse_clearly_too_large(game, max_nodes)
    nodes = _Enumeration(game)
    queue: deque[_Pending] = deque([(game.new_initial_state(), -1, -1, 0, 1.0, -1)])
    while queue:
        if len(nodes) + len(queue) >= max_nodes:  # nodes built so far and waiting in the queue
            raise TreeTooLarge(
                f"{game.spec()} has more than {max_nodes:,} nodes; too large to compile "
                "(use a sampling solver such as external-sampling MCCFR)"
            )
        queue.extend(nodes.add(*queue.popleft()))
    return assemble_tree(game, **nodes.arrays())


def _refuse_clearly_too_large(game: Game, max_nodes: int) -> None:
    """Raise ``TreeTooLarge`` before enumerating a game whose tree is clearly beyond ``max_nodes``: a node's
    children alone, or the estimate of ``estimate_nodes`` (not after minutes of enumeration)."""
    if max(game.info.max_chance_outcomes, game.info.max_actions) >= max_nodes:
        raise TreeTooLarge(f"{game.spec()} has nodes with up to {game.info.max_chance_outcomes:,} outcomes, more "
                           f"than the {max_nodes:,} nodes a tree may have; use a sampling solver")
    estimate = estimate_nodes(game, cap=4 * max_nodes)
    if estimate > 2 * max_nodes:
        raise TreeTooLarge(f"{game.spec()} has about {estimate:.1e} nodes (estimated from {SIZE_PROBES} random "
                           f"playthroughs), more than {max_nodes:,}; too large to compile (use a sampling solver "
                           "such as external-sampling MCCFR)")
    _announce(game, estimate, estimated=True)


_Pending = tuple[State, int, int, int, float, int]
"""A node waiting in the breadth-first queue: its state, parent, action, depth, chance probability and the
sequence that leads to it (-1 at chance and the root)."""


class _Enumeration:
    """The node and infoset lists of a breadth-first enumeration, checked against the game protocol as they
    grow."""

    def __init__(self, game: Game) -> None:
        self.num_players = game.num_players
        self.player: list[int] = []
        self.parent: list[int] = []
        self.action: list[int] = []
        self.depth: list[int] = []
        self.n_children: list[int] = []
        self.chance_prob: list[float] = []
        self.infoset: list[int] = []
        self.parent_sequence: list[int] = []
        self.terminal_nodes: list[int] = []
        self.terminal_returns: list[list[float]] = []
        self.keys: dict[str, int] = {}
        self.infoset_player: list[int] = []
        self.infoset_actions: list[list[int]] = []
        self.infoset_node: list[int] = []
        self.infoset_start: list[int] = []
        self.num_sequences = 0

    def __len__(self) -> int:
        return len(self.player)

    def add(self, state: State, parent: int, action: int, depth: int, prob: float, pseq: int) -> list[_Pending]:
        """Add ``state``'s node; the children to enumerate after it."""
        node, cur = len(self.player), state.current_player()
        self.player.append(cur)
        self.parent.append(parent)
        self.action.append(action)
        self.depth.append(depth)
        self.chance_prob.append(prob)
        self.parent_sequence.append(pseq)
        if cur == TERMINAL:
            self._add_terminal(node, state)
            return []
        if cur == CHANCE:
            self.infoset.append(-1)
            outcomes = state.chance_outcomes()
            self.n_children.append(len(outcomes))
            return [(state.child(a), node, a, depth + 1, float(p), -1) for a, p in outcomes]
        legal = state.legal_actions()
        base = self._add_decision(node, state, cur, legal)
        return [(state.child(a), node, a, depth + 1, 1.0, base + k) for k, a in enumerate(legal)]

    def _add_terminal(self, node: int, state: State) -> None:
        self.infoset.append(-1)
        self.n_children.append(0)
        self.terminal_nodes.append(node)
        returns = state.returns()
        if len(returns) != self.num_players:
            raise GameDefinitionError(f"returns() gave {len(returns)} values for {self.num_players} players")
        self.terminal_returns.append(returns)

    def _add_decision(self, node: int, state: State, cur: int, legal: list[int]) -> int:
        """Record a player's node under its infoset (new, or checked against the infoset's first node); the id of
        the infoset's first sequence."""
        if not 0 <= cur < self.num_players:
            raise GameDefinitionError(f"current_player() returned {cur}, not a player, CHANCE or TERMINAL")
        if not legal:
            raise GameDefinitionError(f"non-terminal state with no legal actions: {state}")
        key = state.information_state_key(cur)
        idx = self.keys.get(key)
        if idx is None:
            idx = len(self.infoset_player)
            self.keys[key] = idx
            self.infoset_player.append(cur)
            self.infoset_actions.append(list(legal))
            self.infoset_node.append(node)
            self.infoset_start.append(self.num_sequences)
            self.num_sequences += len(legal)
        elif self.infoset_player[idx] != cur or self.infoset_actions[idx] != list(legal):
            raise GameDefinitionError(
                f"infoset {key!r} is reached by histories with different players or legal actions "
                f"({self.infoset_player[idx]}: {self.infoset_actions[idx]} vs {cur}: {legal})"
            )
        self.infoset.append(idx)
        self.n_children.append(len(legal))
        return self.infoset_start[idx]

    def arrays(self) -> dict[str, Any]:
        """The arguments of ``assemble_tree``."""
        utility = np.zeros((len(self.player), self.num_players))
        if self.terminal_nodes:
            utility[np.array(self.terminal_nodes)] = np.array(self.terminal_returns, dtype=np.float64)
        return dict(
            player=np.array(self.player, dtype=np.int8),
            parent=np.array(self.parent, dtype=np.int32),
            action=np.array(self.action, dtype=np.int32),
            depth=np.array(self.depth, dtype=np.int32),
            child_count=np.array(self.n_children, dtype=np.int64),
            chance_prob=np.array(self.chance_prob, dtype=np.float64),
            infoset=np.array(self.infoset, dtype=np.int32),
            parent_sequence=np.array(self.parent_sequence, dtype=np.int64),
            utility=utility,
            infoset_player=np.array(self.infoset_player, dtype=np.int8),
            infoset_offset=np.array(self.infoset_start + [self.num_sequences], dtype=np.int64),
            infoset_node=np.array(self.infoset_node, dtype=np.int64),
            sequence_action=np.array([a for acts in self.infoset_actions for a in acts], dtype=np.int32),
            infoset_keys=list(self.keys),
        )


def _announce(game: Game, nodes: float, estimated: bool) -> None:
    """Say on the ``cfrlab.tree`` logger that a tree of more than ``ANNOUNCED_NODES`` nodes is being built."""
    if nodes > ANNOUNCED_NODES:
        size = f"about {nodes:,.0f} nodes (estimated)" if estimated else f"{nodes:,} nodes"
        logger.info("building the game tree of %s: %s; this can take minutes (it is cached for later runs)",
                    game.spec(), size)


def estimate_nodes(game: Game, probes: int = SIZE_PROBES, cap: float = float("inf"), seed: int = 0) -> float:
    """An unbiased estimate of the number of nodes of ``game``'s tree from ``probes`` random walks (Knuth 1975,
    "Estimating the efficiency of backtrack programs"): a walk choosing uniformly among ``b_1, b_2, ...``
    children counts ``1 + b_1 + b_1 b_2 + ...`` nodes. A walk stops once its count passes ``cap`` (a game far
    beyond any limit, such as chess, is told apart in a few moves); the result is then at least ``cap / probes``.
    """
    rng = np.random.default_rng(seed)
    total = 0.0
    for _ in range(probes):
        state, weight, count = game.new_initial_state(), 1.0, 1.0
        while count <= cap and state.current_player() != TERMINAL:
            children = ([a for a, _ in state.chance_outcomes()] if state.current_player() == CHANCE
                        else state.legal_actions())
            if not children:
                break  # compile_tree reports the broken protocol
            weight *= len(children)
            count += weight
            state = state.child(children[int(rng.integers(len(children)))])
        total += count
    return total / probes


def assemble_tree(game: Game, *, player: np.ndarray, parent: np.ndarray, depth: np.ndarray, child_count: np.ndarray,
                  chance_prob: np.ndarray, infoset_offset: np.ndarray, sequence_action: np.ndarray,
                  infoset_keys: list[str], **arrays: np.ndarray) -> GameTree:
    """A validated ``GameTree`` from breadth-first node arrays (``compile_tree``'s or a game's own builder).

    ``utility`` holds the game's payoffs; the tree keeps them divided by ``game.payoff_scale``."""
    scale = payoff_scale(game.info)
    arrays["utility"] = _normalised(arrays["utility"], scale, game)
    node_arrays: dict[str, Any] = arrays  # the remaining fields of ``GameTree``, by name
    n = player.shape[0]
    chance_reach = np.ones(n)
    bounds = np.searchsorted(depth, np.arange(int(depth[-1]) + 2)) if n else np.zeros(1, dtype=np.int64)
    for lo, hi in zip(bounds[1:-1], bounds[2:]):  # breadth first: one depth level is one range of ids
        chance_reach[lo:hi] = chance_reach[parent[lo:hi]] * chance_prob[lo:hi]
    if sequence_action.size and sequence_action.max() >= game.max_actions:
        raise GameDefinitionError(f"action id {sequence_action.max()} is not below max_actions={game.max_actions}")
    sequence_infoset = np.repeat(np.arange(len(infoset_keys), dtype=np.int32), np.diff(infoset_offset))
    # Children were queued in node order, so node n's children follow those of node n-1 (ids from 1).
    child_ptr = np.empty(n + 1, dtype=np.int64)
    child_ptr[0] = 1
    np.cumsum(child_count, out=child_ptr[1:])
    child_ptr[1:] += 1
    tree = GameTree(
        game_spec=game.spec(),
        fingerprint=game.fingerprint(),
        num_players=game.num_players,
        max_actions=game.max_actions,
        player=player,
        parent=parent,
        depth=depth,
        child_ptr=child_ptr,
        chance_prob=chance_prob,
        chance_reach=chance_reach,
        sequence_action=sequence_action,
        sequence_infoset=sequence_infoset,
        infoset_offset=infoset_offset,
        infoset_keys=infoset_keys,
        utility_scale=scale,
        **node_arrays,
    )
    tree.validate()
    return tree


def _normalised(utility: np.ndarray, scale: float, game: Game) -> np.ndarray:
    """``utility / scale``, refusing payoffs that are not finite or whose range no float can hold."""
    if not np.isfinite(utility).all():
        bad = utility[~np.isfinite(utility)][0]
        raise GameDefinitionError(f"{game.spec()} pays {bad} at a terminal history: payoffs that are not finite "
                                  "cannot be solved; use finite payoffs")
    with np.errstate(over="ignore"):
        span = utility.max() - utility.min() if utility.size else 0.0
    if not np.isfinite(span):
        raise GameDefinitionError(f"{game.spec()}'s payoffs range from {utility.min():g} to {utility.max():g}, a "
                                  "range wider than the largest float; scale them down")
    return utility / scale
