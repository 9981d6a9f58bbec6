"""Monte Carlo CFR: chance, external, outcome and robust sampling, mini-batches, MCCFR+.

One iteration t, for each traverser i (alternating: i's tables are updated
before the next traverser samples; simultaneous: all sample sigma^t first):
  1. draw b sampled blocks Q_j (a mini-batch): chance and the other players
     sample one action by their strategy; i keeps min(k, |A(I)|) actions drawn
     from sigma'_i = eps * uniform + (1 - eps) * sigma_i (seed 000 Alg. 5
     l. 5-15; k = 1 is outcome sampling, k = inf external sampling; chance
     sampling explores every player action and samples chance only);
  2. walk each Q_j depth first, returning the sampled value
     V(h) = sum_{a in A^rs} sigma(a) V(ha) / rho(a), where rho(a) is the
     probability that a is among the drawn actions (sigma^rs(a|I), seed 000 sec. 6.6);
  3. add to r_I[a] the sampled counterfactual regret
     (1 / pi_i^rs(h)) * (1{a drawn} V(ha) / rho(a) - V(h)) (seed 000 sec. 6.7),
     summed over the b blocks (sec. 6.8), clamped at 0 for MCCFR+ (sec. 6.9);
  4. add the current strategy of the other players' visited infosets to the
     strategy sum (see ``average_update``), times the averaging weight w_t;
  5. sigma^{t+1} = regret matching(+) of r (``cfrlab.solvers.regret``).
The average strategy converges to a Nash equilibrium in two-player zero-sum
games: each sampled regret is an unbiased estimate of the exact one (seed 000
sec. 6.3, Lanctot et al. 2009 Lemma 1), which ``tests/solvers/test_mccfr.py`` checks.

Sources: seed 000 sec. 6-7 (Alg. 5-6: robust sampling, mini-batch MCCFR+),
seed 001 Alg. 3-4 (external and outcome sampling; the lazy strategy sum with c_I).

Deviations from the pseudo-code, and why:
* Regret at traverser nodes with k > 1: seed 000 Alg. 5 l. 32 adds
  (1 - sigma(a)) u_sigma / (pi_i sigma(a)) with u_sigma the sum over *all* drawn
  actions; that equals the estimator of sec. 6.7 only when one action is drawn
  (its derivation sums z through h where it means z through ha). We add
  (V(ha)/rho(a) - V(h)) / pi_i^rs(h), which is unbiased for every k and reduces
  to seed 001 Alg. 3 (k = inf) and Alg. 4 (k = 1). Like the seed's note on
  F = 0, actions not drawn are updated too (with -V(h)/pi_i^rs(h)).
* Values are carried as "value given h was reached" (V above), so no division
  by sigma(a) or pi_i(h) happens: actions of probability 0 stay finite.
* Seed 000 Alg. 6 l. 43-47 traverses both players and then regret-matches
  once; ``alternating=True`` (default) regret-matches after each traverser,
  ``alternating=False`` is the seed's order.
* Strategy sums (``average_update``): ``"stochastic"`` (default) adds
  pi_j(h) sigma_j(I) / q(h) at the other players' visited nodes, q(h) the
  probability the sampler reached h (chance excluded): unbiased for every
  scheme and any number of players; in two-player external sampling it equals
  ``"simple"`` (seed 001 Alg. 3 l. 23: add sigma_j(I)), which is exact in
  expectation only there (OpenSpiel's note). ``"lazy"`` is seed 001 Alg. 4
  l. 27-30: (W(t) - W(c_I)) pi_{-i} sigma(I), c_I <- t, with W the cumulative
  averaging weight (t - c_I for uniform weights); an optimistic, biased
  scheme. ``"traverser"`` is seed 000 Alg. 5 l. 36: pi_i(h) sigma_i(I) at the
  traverser's own nodes; its expectation is weighted by the others' reach of I.
* Randomness: counter-based streams keyed by one draw per pass from the
  solver's Generator (``cfrlab.solvers.sampling_kernels``), so the compiled and
  generic paths, and any number of workers, give the same tables bit for bit.
  Per-traversal sums are added chunk by chunk (``chunk`` traversals each) in
  chunk order, which fixes the floating-point summation order.
* Parallel mini-batches (seed 000 sec. 7.1; ``workers > 1`` or ``address``):
  long-lived replicas (Ray actors, ``WorkerPool.actors``) hold the game or the
  compiled tree and a copy of the regret table. Each pass sends them the regret
  rows the driver changed since their last pass (new values, so the copies are
  exact) and one contiguous run of chunks each; they return every chunk's
  increments (sparse: the infosets touched), which the driver adds in chunk
  order, as one process does. The first replica's chunks are a prefix of that
  order, so on the generic path it sums them itself.

Two execution paths: ``path="tree"`` runs numba kernels over a compiled
``GameTree`` (no Python per node); ``path="generic"`` walks the game protocol
(``child``/``information_state_key``) and never enumerates the tree, for games
too large to compile (OpenSpiel games through the adapter included). The
generic path is "a table store + ``sample_iteration``", the function that
Double Neural CFR reuses with networks in place of the tables.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, State
from cfrlab.policy import TabularPolicy
from cfrlab.seeding import as_generator
from cfrlab.solvers import sampling_kernels as sk
from cfrlab.distributed import split_evenly
from cfrlab.solvers.base import Solver, SolverConfig
from cfrlab.solvers.regret import AVERAGING_SCHEMES, average_strategy, averaging_weight, regret_matching

SAMPLINGS = ("external", "outcome", "robust", "chance")
AVERAGE_UPDATES = ("stochastic", "simple", "lazy", "traverser")
PATHS = ("auto", "tree", "generic")
AUTO_MAX_NODES = 2_000_000
"""``path="auto"`` compiles games up to this many nodes and walks larger ones generically."""

_SCHEME_CODE = {"stochastic": sk.STOCHASTIC, "simple": sk.SIMPLE, "lazy": sk.LAZY, "traverser": sk.TRAVERSER}
_AVG_CODE = {"uniform": 0, "linear": 1, "quadratic": 2}


@dataclasses.dataclass(frozen=True)
class MCCFRConfig(SolverConfig):
    """Every variant of Monte Carlo CFR in the seeds."""

    sampling: str = "external"
    """'external', 'outcome', 'robust' (uses k) or 'chance' (sample chance only, explore every action)."""
    k: int = 1
    """Robust sampling: the traverser draws min(k, |A(I)|) distinct actions; 0 means all (k = infinity)."""
    epsilon: float = 0.6
    """Exploration of the traverser's sampling policy: eps * uniform + (1 - eps) * sigma (when k < |A(I)|)."""
    batch: int = 1
    """Mini-batch size b: sampled traversals per traverser and iteration, their regrets summed (seed 000 sec. 6.8)."""
    regret_matching_plus: bool = False
    """Clamp cumulative regrets at 0 after each update (MCCFR+, seed 000 Alg. 6)."""
    averaging: str = "uniform"
    """Weight w_t of iteration t in the average: 'uniform' (1), 'linear' (max(t - d, 0)), 'quadratic'."""
    delay: int = 0
    """Averaging delay d: iterations t <= d get no weight (seed 000 Alg. 5 l. 44)."""
    average_update: str = "stochastic"
    """Strategy-sum estimator: 'stochastic' (unbiased), 'simple' (seed 001 Alg. 3), 'lazy' (seed 001 Alg. 4), 'traverser' (seed 000 Alg. 5)."""
    alternating: bool = True
    """Regret-match after each traverser's batch (True) or after all traversers sampled sigma^t (False)."""
    path: str = "auto"
    """'tree' (numba over the compiled tree), 'generic' (game protocol, never compiles), 'auto' (tree if small)."""
    workers: int = 1
    """Parallel workers for the mini-batch (Ray); 1 runs in process. Results do not depend on it."""
    address: str | None = None
    """Ray cluster address (None: start a local Ray when workers > 1)."""
    chunk: int = 64
    """Traversals summed per chunk, the unit of parallel work; fixes the summation order."""

    def __post_init__(self) -> None:
        if self.sampling not in SAMPLINGS:
            raise ValueError(f"sampling must be one of {SAMPLINGS}, got {self.sampling!r}")
        if self.average_update not in AVERAGE_UPDATES:
            raise ValueError(f"average_update must be one of {AVERAGE_UPDATES}, got {self.average_update!r}")
        if self.averaging not in AVERAGING_SCHEMES:
            raise ValueError(f"averaging must be one of {AVERAGING_SCHEMES}, got {self.averaging!r}")
        if self.path not in PATHS:
            raise ValueError(f"path must be one of {PATHS}, got {self.path!r}")
        if self.k < 0:
            raise ValueError(f"k must be >= 0 (0 means all actions), got {self.k}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if self.batch < 1 or self.chunk < 1 or self.workers < 1 or self.delay < 0:
            raise ValueError("batch, chunk and workers must be >= 1 and delay >= 0")

    @property
    def effective_k(self) -> int:
        """Actions the traverser draws per infoset: 1 (outcome), k (robust), 0 = all (external, chance)."""
        if self.sampling == "outcome":
            return 1
        if self.sampling == "robust":
            return self.k
        return 0

    @property
    def samples_opponents(self) -> bool:
        """Whether the other players' actions are sampled (all schemes but chance sampling)."""
        return self.sampling != "chance"


# ------------------------------------------------------------------------------------------------
# the generic traversal: a public function over the game protocol
# ------------------------------------------------------------------------------------------------
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

    def add(self, other: "Increments") -> "Increments":
        """In-place sum (a key new to ``self`` is copied, so 0 + x = x exactly)."""
        for key, row in other.items():
            mine = self.get(key)
            if mine is None:
                self[key] = InfosetIncrement(row.player, row.actions, row.regret.copy(), row.strategy.copy())
            else:
                np.add(mine.regret, row.regret, out=mine.regret)
                np.add(mine.strategy, row.strategy, out=mine.strategy)
        return self


class _Walker:
    """One chunk of sampled traversals over the game protocol (mirrors ``sampling_kernels._walk``)."""

    def __init__(self, strategy_fn: StrategyFn, traverser: int, config: MCCFRConfig, num_players: int) -> None:
        self.strategy_fn = strategy_fn
        self.trav = traverser
        self.k = config.effective_k
        self.eps = float(config.epsilon)
        self.sample_opp = config.samples_opponents
        self.scheme = _SCHEME_CODE[config.average_update]
        self.num_players = num_players
        self.rows: dict[str, list] = {}  # key -> [player, actions, regret list, strategy list]
        self.key = 0
        self.ctr = 0
        self.visited = 0

    def run(self, game: Game, pass_key: int, start: int, stop: int) -> Increments:
        """Traversals ``start..stop-1`` of the pass keyed ``pass_key``, summed."""
        root = game.new_initial_state()
        for j in range(start, stop):
            self.key = int(sk.stream_key(pass_key, j))
            self.ctr = 0
            self.walk(root, [1.0] * self.num_players, 1.0)
        return self.increments()

    def _uniform(self) -> float:
        u = float(sk.uniform(self.key, self.ctr))
        self.ctr += 1
        return u

    def _row(self, key: str, player: int, legal: list[int]) -> list:
        row = self.rows.get(key)
        if row is None:
            n = len(legal)
            row = [player, tuple(legal), [0.0] * n, [0.0] * n]
            self.rows[key] = row
        return row

    def walk(self, state: State, reach: list[float], rs: float) -> float:
        self.visited += 1
        p = state.current_player()
        if p == TERMINAL:
            return float(state.returns()[self.trav])
        if p == CHANCE:
            outcomes = state.chance_outcomes()
            c = int(sk.pick(np.array([pr for _, pr in outcomes], dtype=np.float64), self._uniform()))
            return self.walk(state.child(outcomes[c][0]), reach, rs)
        key = state.information_state_key(p)
        legal = state.legal_actions()
        sigma = np.ascontiguousarray(self.strategy_fn(key, legal), dtype=np.float64)
        if sigma.shape != (len(legal),):
            raise ValueError(f"strategy_fn gave {sigma.shape} probabilities for {len(legal)} legal actions at {key!r}")
        row = self._row(key, p, legal)
        na = len(legal)
        trav = self.trav
        if p == trav:
            k = self.k
            if k <= 0 or k >= na:
                chosen = [1] * na
                rho = [1.0] * na
            else:
                eps = self.eps
                q = np.array([eps / na + (1.0 - eps) * float(s) for s in sigma])
                mask = np.zeros(na, dtype=np.int8)
                self.ctr = int(sk.sample_distinct(q, k, self.key, self.ctr, mask))
                r = np.empty(na)
                sk.inclusion_probabilities(q, k, r)
                chosen, rho = mask.tolist(), r.tolist()
            val = [0.0] * na
            v_h = 0.0
            for a in range(na):
                if chosen[a]:
                    child_reach = list(reach)
                    child_reach[trav] *= float(sigma[a])
                    v = self.walk(state.child(legal[a]), child_reach, rs * rho[a])
                    val[a] = v / rho[a]
                    v_h += float(sigma[a]) * val[a]
            w = 1.0
            if not self.sample_opp:
                for o in range(self.num_players):
                    if o != trav:
                        w *= reach[o]
            coef = w / rs
            regret = row[2]
            for a in range(na):
                regret[a] += coef * (val[a] - v_h)
            if self.scheme == sk.TRAVERSER:
                strat = row[3]
                for a in range(na):
                    strat[a] += reach[trav] * float(sigma[a])
            return v_h
        scheme = self.scheme
        if scheme != sk.TRAVERSER:
            if scheme == sk.SIMPLE:
                f = 1.0
            elif scheme == sk.LAZY:
                f = 1.0
                for o in range(self.num_players):
                    if o != trav:
                        f *= reach[o]
            elif self.sample_opp:
                third = 1.0
                for o in range(self.num_players):
                    if o != trav and o != p:
                        third *= reach[o]
                f = 1.0 / (rs * third)
            else:
                f = reach[p] / rs
            strat = row[3]
            for a in range(na):
                strat[a] += f * float(sigma[a])
        if self.sample_opp:
            a = int(sk.pick(sigma, self._uniform()))
            child_reach = list(reach)
            child_reach[p] *= float(sigma[a])
            return self.walk(state.child(legal[a]), child_reach, rs)
        v_h = 0.0
        for a in range(na):
            child_reach = list(reach)
            child_reach[p] *= float(sigma[a])
            v_h += float(sigma[a]) * self.walk(state.child(legal[a]), child_reach, rs)
        return v_h

    def increments(self) -> Increments:
        out = Increments()
        for key, (player, actions, regret, strat) in self.rows.items():
            out[key] = InfosetIncrement(player, actions, np.array(regret), np.array(strat))
        self.rows = {}
        return out


def chunk_ranges(batch: int, chunk: int) -> list[tuple[int, int]]:
    """The traversal index ranges [start, stop) of a mini-batch's chunks, in summation order."""
    return [(s, min(s + chunk, batch)) for s in range(0, batch, chunk)]


def draw_pass_key(rng: np.random.Generator) -> int:
    """The key of one pass's random streams, drawn from the solver's generator."""
    return int(rng.integers(0, 2**63 - 1))


def sample_chunk(game: Game, strategy_fn: StrategyFn, traverser: int, config: MCCFRConfig, pass_key: int,
                 start: int, stop: int) -> Increments:
    """Traversals ``start..stop-1`` of the pass keyed ``pass_key``, summed (one chunk; see ``sample_iteration``)."""
    return _Walker(strategy_fn, traverser, config, game.num_players).run(game, pass_key, start, stop)


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


def table_strategy_fn(regret: Mapping[str, NDArray[np.float64]]) -> StrategyFn:
    """``strategy_fn`` of a regret table: regret matching of the stored row, uniform where there is none."""
    one = {}

    def strategy(key: str, legal: Sequence[int]) -> NDArray[np.float64]:
        row = regret.get(key)
        n = len(legal)
        if row is None:
            return np.full(n, 1.0 / n)
        off = one.get(n)
        if off is None:
            off = one[n] = np.array([0, n], dtype=np.int64)
        if not row.flags.writeable:  # shared read-only by Ray; the kernel's signature wants a writable row
            row = row.copy()
        return regret_matching(row, off)

    return strategy


# ------------------------------------------------------------------------------------------------
# the solver
# ------------------------------------------------------------------------------------------------
class MCCFR(Solver):
    """Monte Carlo CFR over a compiled tree (numba) or the game protocol; the configurable core of the family."""

    algorithm = "mccfr"
    Config = MCCFRConfig

    def __init__(self, game: Game, config: MCCFRConfig | None = None, *, tree: Any = None,
                 **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        cfg = self.config
        self.rng = as_generator(cfg.seed)
        self.tree = tree if tree is not None else self._compile(game, cfg.path)
        if self.tree is not None and self.tree.fingerprint != game.fingerprint():
            raise ValueError("the tree was compiled from another game")
        self._pool: Any = None
        self._replicas: Any = None
        self._sync_all = True  # the replicas' regret copies need the whole table
        self._dirty: list[NDArray[np.int64]] = []  # tree: infosets updated since the replicas' last pass
        self._dirty_keys: set[str] = set()  # generic: the same, by key
        self.nodes_visited = 0
        """Nodes entered by this process's traversals (a throughput measure; not checkpointed)."""
        if self.tree is not None:
            t = self.tree
            self.regret = np.zeros(t.num_sequences)
            self.strategy_sum = np.zeros(t.num_sequences)
            self.last_visit = np.zeros(t.num_infosets, dtype=np.int64)
            self._max_depth = int(t.depth.max())
            self._buf = _TreeBuffers(t.num_sequences, t.num_infosets)
            self._tot = _TreeBuffers(t.num_sequences, t.num_infosets, t.num_players)
        else:
            self.table_regret: dict[str, NDArray[np.float64]] = {}
            self.table_strategy: dict[str, NDArray[np.float64]] = {}
            self.table_actions: dict[str, tuple[int, ...]] = {}
            self.table_player: dict[str, int] = {}
            self.table_last: dict[str, int] = {}

    @staticmethod
    def _compile(game: Game, path: str) -> Any:
        if path == "generic":
            return None
        from cfrlab.tree import compile_tree, load_tree
        from cfrlab.tree.cache import cache_path, save_tree

        if path == "tree":
            return load_tree(game)
        if cache_path(game).exists():
            return load_tree(game)
        try:
            tree = compile_tree(game, max_nodes=AUTO_MAX_NODES)
        except GameDefinitionError as exc:
            if "too large to compile" in str(exc):
                return None
            raise
        try:
            save_tree(tree, cache_path(game))
        except OSError:
            pass
        return tree

    @property
    def path(self) -> str:
        """The execution path in use: 'tree' or 'generic'."""
        return "tree" if self.tree is not None else "generic"

    # iterations --------------------------------------------------------------------------------
    def iterate(self, n: int = 1) -> "MCCFR":
        """Run ``n`` iterations; on a compiled tree in process, all of them in one numba call."""
        cfg = self.config
        if self.tree is None or cfg.workers > 1 or cfg.address is not None or n <= 0:
            return super().iterate(n)
        t, tot, buf = self.tree, self._tot, self._buf
        # one key per (iteration, traverser): the same draws, in the same order, as ``_iterate_once``
        keys = self.rng.integers(0, 2**63 - 1, size=(int(n), t.num_players))
        self.nodes_visited += sk.iterate_tree(
            t.child_ptr, t.player, t.infoset, t.infoset_offset, t.infoset_player, t.utility, t.chance_prob,
            self._max_depth, self.regret, self.strategy_sum, self.last_visit, self.iterations, keys, cfg.batch,
            cfg.chunk, cfg.effective_k, float(cfg.epsilon), cfg.samples_opponents, _SCHEME_CODE[cfg.average_update],
            cfg.alternating, cfg.regret_matching_plus, _AVG_CODE[cfg.averaging], cfg.delay, buf.r, buf.s, buf.flag,
            buf.touched, buf.n, tot.r, tot.s, tot.flag, tot.touched, tot.n)
        self.iterations += int(n)
        return self

    def _iterate_once(self) -> None:
        t = self.iterations + 1
        cfg = self.config
        weight = averaging_weight(t, cfg.averaging, cfg.delay)
        players = range(self.game.num_players)
        if cfg.alternating:
            for i in players:
                self._apply(i, self._sample(i, draw_pass_key(self.rng)), t, weight)
        else:
            results = [(i, self._sample(i, draw_pass_key(self.rng))) for i in players]
            for i, inc in results:
                self._apply(i, inc, t, weight)

    def _sample(self, traverser: int, pass_key: int) -> Any:
        cfg = self.config
        if cfg.workers > 1 or cfg.address is not None:
            return self._sample_parallel(traverser, pass_key)
        if self.tree is None:
            walker = _Walker(table_strategy_fn(self.table_regret), traverser, cfg, self.game.num_players)
            total = Increments()
            for start, stop in chunk_ranges(cfg.batch, cfg.chunk):
                total.add(walker.run(self.game, pass_key, start, stop))
            self.nodes_visited += walker.visited
            return total
        raise AssertionError("in-process tree passes run in iterate_tree")

    def _apply(self, traverser: int, inc: Any, t: int, weight: float) -> None:
        cfg = self.config
        lazy = cfg.average_update == "lazy"
        if self.tree is not None:
            tree, tot, i = self.tree, self._tot, traverser
            if self._replicas is not None:
                self._dirty.append(tot.touched[i, :tot.n[i]].copy())
            sk.apply_increments(tree.infoset_offset, tree.infoset_player, traverser, tot.r[i], tot.s[i], tot.flag[i],
                                tot.touched[i], tot.n[i:i + 1], self.regret, self.strategy_sum, self.last_visit,
                                cfg.regret_matching_plus, weight, lazy, t, _AVG_CODE[cfg.averaging], cfg.delay)
            return
        if self._replicas is not None:
            self._dirty_keys.update(inc)
        for key, row in inc.items():
            r = self.table_regret.get(key)
            if r is None:
                n = len(row.actions)
                r = self.table_regret[key] = np.zeros(n)
                self.table_strategy[key] = np.zeros(n)
                self.table_actions[key] = row.actions
                self.table_player[key] = row.player
                self.table_last[key] = 0
            w = weight
            if lazy:
                w = 0.0
                if row.player != traverser:
                    scheme, d = _AVG_CODE[cfg.averaging], cfg.delay
                    w = sk.cumulative_weight(t, scheme, d) - sk.cumulative_weight(self.table_last[key], scheme, d)
                    self.table_last[key] = t
            r += row.regret
            if cfg.regret_matching_plus:
                np.maximum(r, 0.0, out=r)
            if w != 0.0:
                self.table_strategy[key] += w * row.strategy

    # parallel mini-batches ------------------------------------------------------------------------
    def _sample_parallel(self, traverser: int, pass_key: int) -> Any:
        replicas = self._start_replicas()
        groups = split_evenly(chunk_ranges(self.config.batch, self.config.chunk), replicas.size)
        sync = self._take_sync()
        if self.tree is None:
            total = Increments()
            results = replicas.call("run", [(traverser, pass_key, g, j == 0) for j, g in enumerate(groups)],
                                    common=(sync,))
            for packs, visited in results:
                for pack in packs:  # chunk order (the first replica's chunks arrive summed: a prefix)
                    _add_packed(total, pack)
                self.nodes_visited += visited
            return total
        tot, i = self._tot, traverser
        for ids, r, s, visited in replicas.call("run", [(traverser, pass_key, g) for g in groups], common=(sync,)):
            sk.add_sparse(self.tree.infoset_offset, ids, r, s, tot.r[i], tot.s[i], tot.flag[i], tot.touched[i],
                          tot.n[i:i + 1])  # chunk order, as in process
            self.nodes_visited += visited
        return None

    def _start_replicas(self) -> Any:
        if self._replicas is None:
            from cfrlab import distributed

            cfg = self.config
            if self._pool is None:
                self._pool = distributed.WorkerPool(cfg.workers, address=cfg.address)
            if self.tree is None:
                self._replicas = self._pool.actors(_GenericReplica, self.game.spec(), cfg)
            else:
                self._replicas = self._pool.actors(_TreeReplica, self.tree, cfg)
            self._sync_all = True
        return self._replicas

    def _take_sync(self) -> Any:
        """The regret rows changed since the replicas' last pass (all rows after a start or a load)."""
        if self.tree is not None:
            if self._sync_all:
                seqs = np.arange(self.tree.num_sequences, dtype=np.int64)
            else:
                ids = np.unique(np.concatenate(self._dirty)) if self._dirty else np.zeros(0, dtype=np.int64)
                seqs = sk.infoset_sequences(self.tree.infoset_offset, ids.astype(np.int64))
            self._dirty, self._sync_all = [], False
            return seqs, self.regret[seqs]
        full = self._sync_all
        keys = list(self.table_regret) if full else list(self._dirty_keys)
        rows = [self.table_regret[k] for k in keys]
        self._dirty_keys, self._sync_all = set(), False
        return (full, keys, np.array([len(r) for r in rows], dtype=np.int64),
                np.concatenate(rows) if rows else np.zeros(0))

    def close(self) -> None:
        """Release the worker pool and its replicas (if any)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        self._replicas = None
        self._dirty, self._dirty_keys, self._sync_all = [], set(), True

    # policies ----------------------------------------------------------------------------------
    def current_policy(self) -> TabularPolicy:
        if self.tree is not None:
            sigma = regret_matching(self.regret, self.tree.infoset_offset)
            return TabularPolicy.from_sequences(self.tree, sigma)
        return self._table_policy(self.table_regret)

    def average_policy(self) -> TabularPolicy:
        """Normalised strategy sums (uniform where never accumulated); generic path: the infosets seen so far."""
        if self.tree is not None:
            return TabularPolicy.from_sequences(self.tree,
                                                average_strategy(self.strategy_sum, self.tree.infoset_offset))
        return self._table_policy(self.table_strategy)

    def _table_policy(self, table: Mapping[str, NDArray[np.float64]]) -> TabularPolicy:
        keys = list(self.table_actions)
        probs = np.zeros((len(keys), self.game.max_actions))
        mask = np.zeros_like(probs, dtype=bool)
        for row, key in enumerate(keys):
            actions = list(self.table_actions[key])
            values = table[key]
            probs[row, actions] = regret_matching(values, np.array([0, len(actions)], dtype=np.int64))
            mask[row, actions] = True
        return TabularPolicy(keys, probs, mask)

    def regret_table(self) -> dict[str, NDArray[np.float64]]:
        """Cumulative regrets by infoset key (either path), for tests and inspection."""
        if self.tree is None:
            return {k: v.copy() for k, v in self.table_regret.items()}
        off = self.tree.infoset_offset
        return {k: self.regret[off[i]:off[i + 1]].copy() for i, k in enumerate(self.tree.infoset_keys)}

    def strategy_table(self) -> dict[str, NDArray[np.float64]]:
        """Strategy sums by infoset key (either path)."""
        if self.tree is None:
            return {k: v.copy() for k, v in self.table_strategy.items()}
        off = self.tree.infoset_offset
        return {k: self.strategy_sum[off[i]:off[i + 1]].copy() for i, k in enumerate(self.tree.infoset_keys)}

    # state -------------------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        if self.tree is not None:
            return {"regret": self.regret, "strategy_sum": self.strategy_sum, "last_visit": self.last_visit}
        keys = list(self.table_actions)
        sizes = [len(self.table_actions[k]) for k in keys]
        cat = lambda tab: np.concatenate([tab[k] for k in keys]) if keys else np.zeros(0)  # noqa: E731
        return {
            "keys": np.array(keys, dtype=np.str_),
            "offset": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            "actions": np.array([a for k in keys for a in self.table_actions[k]], dtype=np.int64),
            "player": np.array([self.table_player[k] for k in keys], dtype=np.int64),
            "last_visit": np.array([self.table_last[k] for k in keys], dtype=np.int64),
            "regret": cat(self.table_regret),
            "strategy_sum": cat(self.table_strategy),
        }

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        self._sync_all = True
        if self.tree is not None:
            for name, size in (("regret", self.tree.num_sequences), ("strategy_sum", self.tree.num_sequences),
                               ("last_visit", self.tree.num_infosets)):
                value = np.asarray(arrays[name])
                if value.shape != (size,):
                    raise ValueError(f"{name} has shape {value.shape}, expected ({size},); was it saved by the "
                                     "generic path? use the same path to resume")
                getattr(self, name)[:] = value
            return
        if "keys" not in arrays:
            raise ValueError("checkpoint holds compiled-tree tables; resume it with path='tree'")
        keys = [str(k) for k in arrays["keys"]]
        off = np.asarray(arrays["offset"], dtype=np.int64)
        acts, regret, strat = arrays["actions"], arrays["regret"], arrays["strategy_sum"]
        self.table_regret, self.table_strategy, self.table_actions = {}, {}, {}
        self.table_player, self.table_last = {}, {}
        for i, key in enumerate(keys):
            lo, hi = off[i], off[i + 1]
            self.table_actions[key] = tuple(int(a) for a in acts[lo:hi])
            self.table_regret[key] = np.array(regret[lo:hi], dtype=np.float64)
            self.table_strategy[key] = np.array(strat[lo:hi], dtype=np.float64)
            self.table_player[key] = int(arrays["player"][i])
            self.table_last[key] = int(arrays["last_visit"][i])

    def _extra_state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state}

    def _load_extra_state(self, extra: Mapping[str, Any]) -> None:
        if "rng" in extra:
            self.rng.bit_generator.state = extra["rng"]


class _TreeBuffers:
    """Per-sequence increment buffers with sparse bookkeeping of the infosets touched."""

    def __init__(self, num_sequences: int, num_infosets: int, rows: int = 0) -> None:
        shape = (rows,) if rows else ()
        self.r = np.zeros(shape + (num_sequences,))
        self.s = np.zeros(shape + (num_sequences,))
        self.flag = np.zeros(shape + (num_infosets,), dtype=np.int8)
        self.touched = np.zeros(shape + (num_infosets,), dtype=np.int64)
        self.n = np.zeros(max(rows, 1), dtype=np.int64)


# replicas (module level so Ray can ship them by reference) -------------------------------------------


Packed = tuple[list[str], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64],
               NDArray[np.float64]]
"""``Increments`` as flat arrays (keys, players, sizes, actions, regret, strategy): cheap to pickle."""


def _pack(inc: Increments) -> Packed:
    rows = list(inc.values())
    cat = lambda xs, dtype: np.concatenate(xs).astype(dtype) if xs else np.zeros(0, dtype)  # noqa: E731
    return (list(inc), np.array([r.player for r in rows], dtype=np.int64),
            np.array([len(r.actions) for r in rows], dtype=np.int64), cat([r.actions for r in rows], np.int64),
            cat([r.regret for r in rows], np.float64), cat([r.strategy for r in rows], np.float64))


def _add_packed(total: Increments, pack: Packed) -> None:
    """``total.add`` of a packed ``Increments`` (the same arithmetic: a new key is copied, others added)."""
    keys, players, sizes, actions, regret, strategy = pack
    pos = 0
    for key, player, n in zip(keys, players.tolist(), sizes.tolist()):
        stop = pos + n
        mine = total.get(key)
        if mine is None:
            total[key] = InfosetIncrement(player, tuple(actions[pos:stop].tolist()), regret[pos:stop].copy(),
                                          strategy[pos:stop].copy())
        else:
            np.add(mine.regret, regret[pos:stop], out=mine.regret)
            np.add(mine.strategy, strategy[pos:stop], out=mine.strategy)
        pos = stop


class _GenericReplica:
    """A worker's copy of the game and of the regret table (generic path)."""

    def __init__(self, spec: str, config: MCCFRConfig) -> None:
        from cfrlab.registry import load_game

        self.game = load_game(spec)
        self.config = config
        self.regret: dict[str, NDArray[np.float64]] = {}
        self.strategy = table_strategy_fn(self.regret)

    def run(self, sync: tuple[bool, list[str], NDArray[np.int64], NDArray[np.float64]], traverser: int,
            pass_key: int, ranges: Sequence[tuple[int, int]], merge: bool) -> tuple[list[Packed], int]:
        """Update the regret copy with ``sync`` (the whole table if its flag is set), then sample the chunks
        ``ranges`` (summed if ``merge``)."""
        full, keys, sizes, values = sync
        if full:
            self.regret.clear()  # in place: ``self.strategy`` reads this dict
        pos = 0
        for key, n in zip(keys, sizes.tolist()):
            self.regret[key] = values[pos:pos + n].copy()
            pos += n
        walker = _Walker(self.strategy, traverser, self.config, self.game.num_players)
        parts = [walker.run(self.game, pass_key, a, b) for a, b in ranges]
        if merge and parts:
            total = Increments()
            for part in parts:
                total.add(part)
            parts = [total]
        return [_pack(p) for p in parts], walker.visited


class _TreeReplica:
    """A worker's copy of the compiled tree and of the regret array (tree path)."""

    def __init__(self, tree: Any, config: MCCFRConfig) -> None:
        # own writable copies: the kernels then run the signatures compiled (and cached) in process
        self.arrays = tuple(np.array(a) for a in (tree.child_ptr, tree.player, tree.infoset, tree.infoset_offset,
                                                  tree.utility, tree.chance_prob))
        self.max_depth = int(tree.depth.max())
        self.config = config
        self.regret = np.zeros(tree.num_sequences)
        self.buf = _TreeBuffers(tree.num_sequences, tree.num_infosets)

    def run(self, sync: tuple[NDArray[np.int64], NDArray[np.float64]], traverser: int, pass_key: int,
            ranges: Sequence[tuple[int, int]]) -> tuple[NDArray[np.int64], NDArray[np.float64],
                                                        NDArray[np.float64], int]:
        """Update the regret copy with ``sync``, then sample the chunks ``ranges``; their sparse sums, in order."""
        seqs, values = sync
        self.regret[seqs] = values
        cfg, buf, offset = self.config, self.buf, self.arrays[3]
        ids, r, s, visited = [], [], [], 0
        for a, b in ranges:
            visited += sk.run_chunk(*self.arrays, self.max_depth, self.regret, traverser, cfg.effective_k,
                                    float(cfg.epsilon), cfg.samples_opponents, _SCHEME_CODE[cfg.average_update],
                                    pass_key, a, b, buf.r, buf.s, buf.flag, buf.touched, buf.n)
            for out, part in zip((ids, r, s), sk.take_chunk(offset, buf.r, buf.s, buf.flag, buf.touched, buf.n)):
                out.append(part)
        if not ids:
            return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), 0
        return np.concatenate(ids), np.concatenate(r), np.concatenate(s), int(visited)


# presets -----------------------------------------------------------------------------------------
class ExternalSamplingMCCFR(MCCFR):
    """External-sampling MCCFR (seed 001 Alg. 3): the traverser explores all actions, the rest is sampled."""

    algorithm = "external"
    defaults = {"sampling": "external"}


class OutcomeSamplingMCCFR(MCCFR):
    """Outcome-sampling MCCFR (seed 001 Alg. 4): one sampled terminal history per traversal, eps-exploration."""

    algorithm = "outcome"
    defaults = {"sampling": "outcome"}


class RobustSamplingMCCFR(MCCFR):
    """Robust-sampling MCCFR (seed 000 sec. 6.6-6.7): the traverser draws min(k, |A(I)|) actions."""

    algorithm = "robust"
    defaults = {"sampling": "robust"}


class ChanceSamplingMCCFR(MCCFR):
    """Chance-sampling MCCFR: chance sampled once per node, every player action explored."""

    algorithm = "chance"
    defaults = {"sampling": "chance"}


class MiniBatchMCCFRPlus(MCCFR):
    """Mini-batch MCCFR+ with robust sampling (seed 000 Alg. 5-6): RM+, linear averaging, batch b."""

    algorithm = "mccfr+"
    defaults = {"sampling": "robust", "regret_matching_plus": True, "averaging": "linear", "batch": 16}
