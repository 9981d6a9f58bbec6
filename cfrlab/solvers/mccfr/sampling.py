"""The sampled walk over the game protocol: one chunk of MCCFR traversals, in Python.

For games too large to compile (OpenSpiel games through the adapter included):
it walks ``child``/``information_state_key`` and never enumerates the tree. It
does the control flow only; its numbers come from ``arithmetic`` (the same
functions the compiled-tree walker calls, in the same order, so both give the
same tables bit for bit) and its draws from a ``Sampler``.

``Sampler`` is the pluggable piece: which actions a traversal follows and with
what probability. The default is MCCFR's (``MCCFRConfig.sampling``): the
traverser draws min(k, |A(I)|) actions from eps * uniform + (1 - eps) * sigma,
chance and the other players one action on policy. A sampler that draws
otherwise (Online Outcome Sampling's targeted mixture, Lisy, Lanctot & Bowling
2015) reports the probability of each draw and the walker's importance weights
stay unbiased (``arithmetic``'s frames).

``sample_iteration`` is the public contract Double Neural CFR builds on with
networks in place of the tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import CHANCE, TERMINAL, Game, State, payoff_scale
from cfrlab.solvers.mccfr import arithmetic as ar
from cfrlab.solvers.mccfr.config import MCCFRConfig
from cfrlab.solvers.mccfr.streams import pick, stream_key, uniform

StrategyFn = Callable[[str, Sequence[int]], NDArray[np.float64]]
"""``strategy_fn(key, legal_actions) -> sigma^t(I)``: probabilities over ``legal_actions``, in their order."""


class InfosetIncrement(NamedTuple):
    """What one mini-batch adds at one infoset."""

    player: int
    """Owner of the infoset."""
    actions: tuple[int, ...]
    """Legal actions, in ``legal_actions()`` order (the order of the two arrays)."""
    regret: NDArray[np.float64]
    """Sampled counterfactual regret increment, summed over the batch (zero at non-traverser infosets)."""
    strategy: NDArray[np.float64]
    """Strategy-sum increment, summed over the batch, *before* the averaging weight w_t."""


class Increments(dict[str, InfosetIncrement]):
    """Infoset key -> ``InfosetIncrement`` for one mini-batch; keys in first-visit order."""

    def add(self, other: Increments) -> Increments:
        """In-place sum (a key new to ``self`` is copied, so 0 + x = x exactly)."""
        for key, row in other.items():
            mine = self.get(key)
            if mine is None:
                self[key] = InfosetIncrement(row.player, row.actions, row.regret.copy(), row.strategy.copy())
            else:
                np.add(mine.regret, row.regret, out=mine.regret)
                np.add(mine.strategy, row.strategy, out=mine.strategy)
        return self


class Sampler:
    """How a traversal chooses the actions it follows, and their probabilities (MCCFR's schemes).

    Subclass and override a hook to sample otherwise. Each hook reads the
    frame of depth ``d`` (``walker.frames``, see ``arithmetic``) and draws with
    ``walker.uniform()``; ``start`` runs before each traversal, after its
    stream is keyed (a sampler that decides something per traversal, such as
    whether it is targeted, draws it there).
    """

    def __init__(self, config: MCCFRConfig) -> None:
        self.k = int(config.effective_k)
        self.eps = float(config.epsilon)

    def start(self, walker: Walker) -> None:
        """Before each traversal."""

    def chance(self, walker: Walker, state: State, d: int) -> tuple[int, float]:
        """(outcome, ratio): the chance outcome to follow and its sampling probability over its chance
        probability (1: drawn from the chance distribution)."""
        outcomes = state.chance_outcomes()
        c = int(pick(np.array([p for _, p in outcomes], dtype=np.float64), walker.uniform()))
        return outcomes[c][0], 1.0

    def other(self, walker: Walker, state: State, d: int, sigma: NDArray[np.float64]) -> tuple[int, float]:
        """(action index, ratio) at a node of a sampled player other than the traverser (``sigma`` is theirs):
        the action to follow and its sampling probability over sigma(a) (1: drawn from sigma)."""
        return int(pick(sigma, walker.uniform())), 1.0

    def traverser(self, walker: Walker, state: State, d: int, sigma: NDArray[np.float64]) -> bool:
        """Set ``frames[CHOSEN, d]`` (the actions to follow) and ``frames[RHO, d]`` (their inclusion
        probabilities) at the traverser's node of depth d (``sigma`` is also in ``frames[SIG, d]``); True when
        every action is followed."""
        if self.k <= 0 or self.k >= len(sigma):  # draw_traverser's first case, without its draws
            ar.explore(walker.frames, d, len(sigma))
            return True
        walker.ctr = ar.draw_traverser(walker.frames, d, len(sigma), self.k, self.eps, walker.key, walker.ctr)
        return False


class Walker:
    """Sampled traversals over the game protocol for one traverser, summed per chunk (``run``).

    The Python twin of ``tree_walk.iterate_tree``'s walk: the same calls to ``arithmetic``, in
    the same order. ``rows`` holds the increments of the chunk being walked:
    key -> (player, actions, regret increment, strategy increment).
    """

    def __init__(self, strategy_fn: StrategyFn, traverser: int, config: MCCFRConfig, game: Game,
                 sampler: Sampler | None = None) -> None:
        self.strategy_fn = strategy_fn
        self.trav = traverser
        self.sample_opp = bool(config.samples_opponents)
        self.scheme = config.traversal.scheme
        self.num_players = game.num_players
        self.sampler = sampler if sampler is not None else Sampler(config)
        self.frames = ar.new_frames(64, game.num_players, game.max_actions)
        self.rows: dict[str, tuple[int, tuple[int, ...], NDArray[np.float64], NDArray[np.float64]]] = {}
        self.key = 0
        self.ctr = 0
        self.visited = 0

    def run(self, game: Game, pass_key: int, start: int, stop: int) -> Increments:
        """Traversals ``start..stop-1`` of the pass keyed ``pass_key``, summed."""
        root = game.new_initial_state()
        self.scale = payoff_scale(game.info)  # the tree path's utilities are divided by it too
        for j in range(start, stop):
            self.key = int(stream_key(pass_key, j))
            self.ctr = 0
            self.sampler.start(self)
            ar.start_walk(self.frames)
            self.walk(root, 0)
        return self.increments()

    def uniform(self) -> float:
        """The traversal's next uniform draw."""
        u = float(uniform(self.key, self.ctr))
        self.ctr += 1
        return u

    def walk(self, state: State, d: int) -> float:
        """V(h): the sampled value of ``state`` for the traverser, given it was reached (frame d is set)."""
        self.visited += 1
        p = state.current_player()
        if p == TERMINAL:
            return float(state.returns()[self.trav]) / self.scale
        if d + 2 > self.frames.shape[1]:
            self.frames = np.concatenate([self.frames, np.zeros_like(self.frames)], axis=1)
        frames = self.frames  # (the recursion may grow it: read self.frames again after it)
        if p == CHANCE:
            action, ratio = self.sampler.chance(self, state, d)
            ar.descend(frames, d, -1, 0, ratio)
            value = self.walk(state.child(action), d + 1)
            return value if ratio == 1.0 else value / ratio
        key = state.information_state_key(p)
        legal = state.legal_actions()
        na = len(legal)
        sigma = self.strategy_fn(key, legal)
        if sigma.shape != (na,):
            raise ValueError(f"strategy_fn gave {sigma.shape} probabilities for {na} legal actions at {key!r}")
        ar.set_strategy(frames, d, sigma)
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = (p, tuple(legal), np.zeros(na), np.zeros(na))
        if p == self.trav:
            if self.sampler.traverser(self, state, d, sigma):
                followed: Sequence[int] = range(na)
            else:
                followed = [a for a, chosen in enumerate(frames[ar.CHOSEN, d, :na].tolist()) if chosen]
            for a in followed:
                ar.follow(self.frames, d, p, a)
                ar.child_value(self.frames, d, a, self.walk(state.child(legal[a]), d + 1))
            return ar.leave_traverser(self.frames, d, na, row[2], row[3], self.trav, self.num_players,
                                   self.sample_opp, self.scheme)
        ar.enter_other(frames, d, na, row[3], self.trav, p, self.num_players, self.sample_opp, self.scheme)
        if self.sample_opp:
            a, ratio = self.sampler.other(self, state, d, sigma)
            ar.descend(frames, d, p, a, ratio)
            value = self.walk(state.child(legal[a]), d + 1)
            return value if ratio == 1.0 else value / ratio
        ar.explore(frames, d, na)
        for a in range(na):
            ar.follow(self.frames, d, p, a)
            ar.child_value(self.frames, d, a, self.walk(state.child(legal[a]), d + 1))
        return ar.node_value(self.frames, d, na)

    def increments(self) -> Increments:
        """The chunk's increments (and a fresh chunk)."""
        out = Increments()
        for key, (player, actions, regret, strategy) in self.rows.items():
            out[key] = InfosetIncrement(player, actions, regret, strategy)
        self.rows = {}
        return out


def chunk_ranges(batch: int, chunk: int) -> list[tuple[int, int]]:
    """The traversal index ranges [start, stop) of a mini-batch's chunks, in summation order."""
    return [(s, min(s + chunk, batch)) for s in range(0, batch, chunk)]


def draw_pass_key(rng: np.random.Generator) -> int:
    """The key of one pass's random streams, drawn from the solver's generator."""
    return int(rng.integers(0, 2**63 - 1))


def sample_chunk(game: Game, strategy_fn: StrategyFn, traverser: int, config: MCCFRConfig, pass_key: int,
                 start: int, stop: int, sampler: Sampler | None = None) -> Increments:
    """Traversals ``start..stop-1`` of the pass keyed ``pass_key``, summed (one chunk; see ``sample_iteration``);
    ``sampler`` replaces MCCFR's sampling (``Sampler(config)``)."""
    return Walker(strategy_fn, traverser, config, game, sampler).run(game, pass_key, start, stop)


def sample_iteration(game: Game, strategy_fn: StrategyFn, traverser: int, config: MCCFRConfig,
                     rng: np.random.Generator) -> Increments:
    """One mini-batch of MCCFR for ``traverser``: b sampled traversals of ``game``, their increments summed.

    The contract (Double Neural CFR builds on it with networks for the tables):

    * ``strategy_fn(key, legal_actions)`` returns sigma^t at the infoset ``key``
      as a float array over ``legal_actions`` (same order), summing to 1. It is
      called once per visit of a decision node, for every player; for the
      tabular solver it is regret matching(+) of the stored regrets (uniform at
      unseen infosets). It must not change during the call.
    * ``config`` (an ``MCCFRConfig``) gives the sampling scheme (``sampling``,
      ``k``, ``epsilon``), the batch size ``batch`` and chunk size ``chunk``,
      and the strategy-sum estimator ``average_update``; the other fields
      (update rule, averaging weights, path, workers) belong to the caller.
    * ``rng`` is advanced by exactly one draw (the pass key); the traversals'
      randomness comes from counter-based streams keyed by it, so the result is
      a function of (game, strategy_fn, traverser, config, rng state).
    * The result maps every visited infoset key to ``InfosetIncrement(player,
      actions, regret, strategy)``: ``regret`` is the sampled counterfactual
      regret (seed 000 sec. 6.7) summed over the b traversals (sec. 6.8), an
      unbiased estimate of b times the exact counterfactual regret at the
      traverser's infosets (zeros elsewhere); ``strategy`` is the strategy-sum
      increment of ``average_update``, summed over the batch, without w_t.

    The tabular solver then does, per infoset: r += regret (then max(r, 0) for
    MCCFR+); s += w_t * strategy (lazy: (W(t) - W(c_I)) * strategy, c_I = t at
    non-traverser infosets). A caller that stores r and s in the same way
    reproduces ``MCCFR(path="generic")`` iteration for iteration.
    """
    return sample_pass(game, strategy_fn, traverser, config, draw_pass_key(rng))


def sample_pass(game: Game, strategy_fn: StrategyFn, traverser: int, config: MCCFRConfig,
                pass_key: int) -> Increments:
    """``sample_iteration`` with the pass key given: chunk sums added in chunk order."""
    total = Increments()
    for start, stop in chunk_ranges(config.batch, config.chunk):
        total.add(sample_chunk(game, strategy_fn, traverser, config, pass_key, start, stop))
    return total


def table_strategy_fn(regret: Mapping[str, NDArray[np.float64]],
                      prediction: Callable[[str], NDArray[np.float64] | None] | None = None) -> StrategyFn:
    """``strategy_fn`` of a regret table: regret matching of the stored row, uniform where there is none;
    with ``prediction`` (key -> m or None), predictive RM of R + m where m is given (``predicted_strategy``)."""

    def strategy(key: str, legal: Sequence[int]) -> NDArray[np.float64]:
        row = regret.get(key)
        if row is None:
            n = len(legal)
            return np.full(n, 1.0 / n)
        m = prediction(key) if prediction is not None else None
        if m is not None:
            return ar.predicted_strategy(row, m)
        if not row.flags.writeable:  # shared read-only by Ray; the kernel's signature wants a writable row
            row = row.copy()
        return ar.current_strategy(row)

    return strategy

