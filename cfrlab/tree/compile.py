"""Enumerate a game breadth first into a ``GameTree`` (one Python pass, then arrays only)."""

from __future__ import annotations

from collections import deque

import numpy as np

from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, payoff_scale
from cfrlab.tree.arrays import GameTree

COMPILER_VERSION = 2
"""Bump when the array layout changes, so cached trees are rebuilt."""

DEFAULT_MAX_NODES = 20_000_000

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
        return assemble_tree(game, **build())
    num_players = game.num_players
    player: list[int] = []
    parent: list[int] = []
    action: list[int] = []
    depth: list[int] = []
    n_children: list[int] = []
    chance_prob: list[float] = []
    infoset: list[int] = []
    parent_sequence: list[int] = []
    terminal_nodes: list[int] = []
    terminal_returns: list[list[float]] = []
    keys: dict[str, int] = {}
    infoset_player: list[int] = []
    infoset_actions: list[list[int]] = []
    infoset_node: list[int] = []
    infoset_start: list[int] = []
    num_sequences = 0

    if max(game.info.max_chance_outcomes, game.info.max_actions) >= max_nodes:  # one node's children alone
        raise TreeTooLarge(f"{game.spec()} has nodes with up to {game.info.max_chance_outcomes:,} outcomes, more "
                           f"than the {max_nodes:,} nodes a tree may have; use a sampling solver")
    estimate = estimate_nodes(game, cap=4 * max_nodes)
    if estimate > 2 * max_nodes:  # clearly too large: refused at once, not after minutes of enumeration
        raise TreeTooLarge(f"{game.spec()} has about {estimate:.1e} nodes (estimated from {SIZE_PROBES} random "
                           f"playthroughs), more than {max_nodes:,}; too large to compile (use a sampling solver "
                           "such as external-sampling MCCFR)")
    queue: deque = deque([(game.new_initial_state(), -1, -1, 0, 1.0, -1)])
    while queue:
        state, par, act, dep, prob, pseq = queue.popleft()
        node = len(player)
        if node + len(queue) >= max_nodes:  # nodes built so far and waiting in the queue
            raise TreeTooLarge(
                f"{game.spec()} has more than {max_nodes:,} nodes; too large to compile "
                "(use a sampling solver such as external-sampling MCCFR)"
            )
        cur = state.current_player()
        player.append(cur)
        parent.append(par)
        action.append(act)
        depth.append(dep)
        chance_prob.append(prob)
        parent_sequence.append(pseq)
        if cur == TERMINAL:
            infoset.append(-1)
            n_children.append(0)
            terminal_nodes.append(node)
            returns = state.returns()
            if len(returns) != num_players:
                raise GameDefinitionError(f"returns() gave {len(returns)} values for {num_players} players")
            terminal_returns.append(returns)
            continue
        if cur == CHANCE:
            infoset.append(-1)
            outcomes = state.chance_outcomes()
            n_children.append(len(outcomes))
            for a, p in outcomes:
                queue.append((state.child(a), node, a, dep + 1, float(p), -1))
            continue
        if not 0 <= cur < num_players:
            raise GameDefinitionError(f"current_player() returned {cur}, not a player, CHANCE or TERMINAL")
        legal = state.legal_actions()
        if not legal:
            raise GameDefinitionError(f"non-terminal state with no legal actions: {state}")
        key = state.information_state_key(cur)
        idx = keys.get(key)
        if idx is None:
            idx = len(infoset_player)
            keys[key] = idx
            infoset_player.append(cur)
            infoset_actions.append(list(legal))
            infoset_node.append(node)
            infoset_start.append(num_sequences)
            num_sequences += len(legal)
        elif infoset_player[idx] != cur or infoset_actions[idx] != list(legal):
            raise GameDefinitionError(
                f"infoset {key!r} is reached by histories with different players or legal actions "
                f"({infoset_player[idx]}: {infoset_actions[idx]} vs {cur}: {legal})"
            )
        infoset.append(idx)
        n_children.append(len(legal))
        base = infoset_start[idx]
        for k, a in enumerate(legal):
            queue.append((state.child(a), node, a, dep + 1, 1.0, base + k))

    utility = np.zeros((len(player), num_players))
    if terminal_nodes:
        utility[np.array(terminal_nodes)] = np.array(terminal_returns, dtype=np.float64)
    return assemble_tree(
        game,
        player=np.array(player, dtype=np.int8),
        parent=np.array(parent, dtype=np.int32),
        action=np.array(action, dtype=np.int32),
        depth=np.array(depth, dtype=np.int32),
        child_count=np.array(n_children, dtype=np.int64),
        chance_prob=np.array(chance_prob, dtype=np.float64),
        infoset=np.array(infoset, dtype=np.int32),
        parent_sequence=np.array(parent_sequence, dtype=np.int64),
        utility=utility,
        infoset_player=np.array(infoset_player, dtype=np.int8),
        infoset_offset=np.array(infoset_start + [num_sequences], dtype=np.int64),
        infoset_node=np.array(infoset_node, dtype=np.int64),
        sequence_action=np.array([a for acts in infoset_actions for a in acts], dtype=np.int32),
        infoset_keys=list(keys),
    )


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
        **arrays,
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
