"""Solvers for abstract limit hold'em (``holdem_ehs2``) on its betting tree, and exact exploitability.

* ``ChanceSampledHoldemCFR`` (``--algo pvt-cfr``): the paper's method
  (Zinkevich et al. 2008): chance-sampled CFR, one joint bucket sequence per
  iteration and one pass over that deal's betting tree ("player view tree").
* ``VectorHoldemCFRPlus`` (``--algo vector-cfr+``, ``cfrlab.games.holdem.solvers.vector_cfr``): CFR+
  (Tammelin 2014) and its discounted and predictive variants with full-width passes vectorised over every
  bucket sequence, the chance table applied at terminals; exact, deterministic.

Both keep one regret and one average table in the layout of
``cfrlab.games.holdem.solvers.kernels`` and report the exact exploitability of the
abstract game (``exact_exploitability``, chips; ``mbb_per_hand`` converts to
thousandths of a small bet per hand) from a vectorised best response, without
compiling the game tree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.distributed import small_batch_warning
from cfrlab.game import Game
from cfrlab.games.holdem.abstraction.abstract_game import AbstractHoldem
from cfrlab.games.holdem.solvers.kernels import BEST_RESPONSE, VALUES, chance_sampled_cfr
from cfrlab.games.holdem.solvers.split import SplitRunner, SubtreeSplit, subtree_of
from cfrlab.games.holdem.solvers.vector import VectorTree
from cfrlab.policy import TabularPolicy
from cfrlab.seeding import as_generator
from cfrlab.solvers.base import Solver, SolverConfig


class Layout:
    """Flat tables of an abstract hold'em game: infoset offsets, vector offsets, chance tables."""

    def __init__(self, game: AbstractHoldem, split_rounds: int = 1) -> None:
        tree = game.tree
        self.game = game
        self.kind, self.round, self.player = tree.kind, tree.round, tree.player
        self.child, self.spent = tree.child, tree.spent
        self.nbuckets = np.array(game.buckets, dtype=np.int64)
        self.nseq = np.cumprod(self.nbuckets)
        self.div = self.nseq[-1] // self.nseq
        # Table: round by round, sequence-major, so one deal's infosets in a round are contiguous (the sampled
        # passes touch far fewer cache lines): entry = base[node] + stride[node] * sequence + action, i.e.
        # 3 * row + action in the game's infoset rows (``AbstractHoldem.infoset_rows``).
        self.rows = game.infoset_rows()
        self.base = np.full(len(self.kind), -1, dtype=np.int64)
        self.stride = np.zeros(len(self.kind), dtype=np.int64)
        self.round_nodes = self.rows.round_nodes
        for k, nodes in enumerate(self.round_nodes):
            self.base[nodes] = 3 * (self.rows.round_offset[k] + np.arange(len(nodes)))
            self.stride[nodes] = 3 * len(nodes)
        self.table_size = 3 * len(self.rows)
        self.joints = game.joint_by_round
        self.showdown = game.abstraction.showdown
        self.win = game.abstraction.joint * self.showdown
        # terminals grouped by subtree below the first split_rounds rounds, as vector-cfr+'s split groups them on
        # its replicas (the same products)
        if len(self.nseq) > 1 and not 1 <= split_rounds < len(self.nseq):
            raise ValueError(f"split_rounds must be from 1 to {len(self.nseq) - 1} in a game of {len(self.nseq)} "
                             f"betting rounds, got {split_rounds}")
        self.split_rounds = split_rounds
        self.vectors = VectorTree.build(self.kind, self.round, self.player, self.child, self.spent, self.base,
                                        self.stride, self.nbuckets, subtree_of(self, split_rounds), self.joints,
                                        self.win)
        self.vector_size = self.vectors.size

    @cached_property
    def last_cdf(self) -> NDArray[np.float64]:
        """Cumulative probabilities of the joint last-round bucket sequences (chance sampling draws from them)."""
        return np.cumsum(self.game.abstraction.joint.ravel(), dtype=np.float64)

    def pass_values(self, p: int, mode: int, weight: float, probs: NDArray[np.float64], regret: NDArray[np.float64],
                    average: NDArray[np.float64], reach: NDArray[np.float64], value: NDArray[np.float64],
                    discount: float = 1.0, prediction: NDArray[np.float64] | None = None, who: int = -1) -> float:
        """One full-width pass for player p (see ``backward_values``); returns p's root value in chips. ``who``:
        recompute only that player's reach (the other's in ``reach`` is still that of ``probs``), -1 both."""
        reach[:, : int(self.nseq[self.round[0]])] = 1.0
        self.vectors.forward(probs, reach, who)
        return self.vectors.backward(p, mode, weight, probs, regret, average, reach, value, discount, prediction)

    def legal_mask(self) -> NDArray[np.bool_]:
        """Per table entry: is the action legal."""
        return self.rows.legal_mask().ravel()

    def policy(self, table: NDArray[np.float64]) -> TabularPolicy:
        """A ``TabularPolicy`` over the abstract game's infoset rows from a regret or average table."""
        probs = self.vectors.strategy(table).reshape(-1, 3)
        return TabularPolicy(self.rows, probs, self.rows.legal_mask())

    def table_from_policy(self, policy: TabularPolicy) -> NDArray[np.float64]:
        """A policy over the abstract game's keys in the table layout (for the best response and values)."""
        if policy.keys == self.rows:  # the game's own rows (a file of this game): no key lookups
            return np.ascontiguousarray(policy.probs[:, :3]).ravel()
        rows = np.array([policy.index[key] for key in self.rows])
        return np.ascontiguousarray(policy.probs[rows, :3]).ravel()

    def best_response_values(self, table: NDArray[np.float64]) -> tuple[float, float]:
        """Each player's best-response value against the strategy of ``table`` (normalised), in chips."""
        probs = self.vectors.strategy(table)
        reach, value, dummy = np.zeros((2, self.vector_size)), np.zeros(self.vector_size), np.zeros(1)
        return tuple(self.pass_values(p, BEST_RESPONSE, 0.0, probs, dummy, dummy, reach, value)
                     for p in (0, 1))  # type: ignore[return-value]

    def expected_value(self, table: NDArray[np.float64]) -> float:
        """Player 0's value when both players follow the strategy of ``table`` (normalised), in chips."""
        probs = self.vectors.strategy(table)
        reach, value, dummy = np.zeros((2, self.vector_size)), np.zeros(self.vector_size), np.zeros(1)
        return float(self.pass_values(0, VALUES, 0.0, probs, dummy, dummy, reach, value))

    def exploitability(self, table: NDArray[np.float64]) -> float:
        """Mean of the two best-response values (NashConv / 2) in chips, exact."""
        br0, br1 = self.best_response_values(table)
        return (br0 + br1) / 2


def _abstract_game(game: Game) -> AbstractHoldem:
    if not isinstance(game, AbstractHoldem):
        raise ValueError(f"this solver runs on holdem_ehs2 (abstract limit hold'em), not {game.spec()}; "
                         "use `cfrlab solve holdem --abstraction ehs2:N`")
    return game


class _HoldemSolver(Solver):
    """Regret and average tables over the abstract game's infosets."""

    evaluates_itself = True  # exact best responses over the abstract game's betting tree, never compiled

    def __init__(self, game: Game, config: SolverConfig | None = None, **overrides: Any) -> None:
        super().__init__(_abstract_game(game), config, **overrides)
        self.layout = Layout(self.game, getattr(self.config, "split_rounds", 1))  # type: ignore[arg-type]
        self.regret = np.zeros(self.layout.table_size)
        self.average = np.zeros(self.layout.table_size)
        self.split: SubtreeSplit | None = None  # set by a solver whose subtrees run on replicas
        self._replicas_behind = True  # the replicas' entries need the tables (start, load)
        self._tables_behind = False  # the tables need the replicas' entries (after a pass)

    def _push_tables(self) -> None:
        """Send the replicas their entries where they are behind the tables (before a pass)."""
        if self.split is not None and self._replicas_behind:
            self.split.push(self.regret, self.average)
            self._replicas_behind = False

    def _sync_tables(self) -> None:
        """Bring ``regret`` and ``average`` up to date where replicas hold parts of them."""
        if self.split is not None and self._tables_behind:
            self.split.pull(self.regret, self.average)
            self._tables_behind = False

    def close(self) -> None:
        """Fetch the replicas' entries, then stop them."""
        if self.split is not None:
            self._sync_tables()
            self.split.close()
            self._replicas_behind = True

    def current_policy(self) -> TabularPolicy:
        self._sync_tables()
        return self.layout.policy(self.regret)

    def average_policy(self) -> TabularPolicy:
        self._sync_tables()
        return self.layout.policy(self.average)

    def exact_exploitability(self) -> float:
        """Exploitability of the average strategy in the abstract game, chips per hand (exact)."""
        self._sync_tables()
        return self.layout.exploitability(self.average)

    def exact_evaluation(self) -> dict[str, float]:
        """Exploitability in chips and in mb/h (thousandths of a small bet per hand), for the driver."""
        chips = self.exact_exploitability()
        return {"exploitability": chips, "mbb_per_hand": chips * self.game.milli_bets_per_chip}  # type: ignore[attr-defined]

    def workers_warning(self) -> str | None:
        """Workers share the subtrees below the first rounds' betting sequences: no more can run than there are
        groups of them."""
        workers = self.config.workers  # type: ignore[attr-defined]
        if self.split is not None and workers > len(self.split.groups):
            return (f"--workers {workers}: the game's split leaves {len(self.split.roots)} betting sequences "
                    f"to share, so {len(self.split.groups)} workers run")
        return None

    def expected_value(self) -> float:
        """Player 0's value when both play the average strategy (chips per hand)."""
        self._sync_tables()
        return self.layout.expected_value(self.average)

    def _state_arrays(self) -> dict[str, np.ndarray]:
        self._sync_tables()
        return {"regret": self.regret, "average": self.average}

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        for name in ("regret", "average"):
            if arrays[name].shape != (self.layout.table_size,):
                raise ValueError(f"{name} has shape {arrays[name].shape}, expected ({self.layout.table_size},)")
        self.regret = np.array(arrays["regret"], dtype=self.regret.dtype)
        self.average = np.array(arrays["average"], dtype=self.average.dtype)
        self._replicas_behind, self._tables_behind = True, False


@dataclasses.dataclass(frozen=True)
class SplitConfig(SolverConfig):
    """Where the subtrees after the first rounds' betting sequences run."""

    workers: int = 1
    """Ray workers sharing the subtrees after the first rounds' betting sequences (1: in process)."""
    address: str | None = None
    """Ray cluster address (None: start a local Ray when workers > 1)."""

    def __post_init__(self) -> None:
        self.require(positive=("workers",))


@dataclasses.dataclass(frozen=True)
class ChanceSampledConfig(SplitConfig):
    """Chance-sampled CFR on abstract hold'em (Zinkevich et al. 2008)."""

    batch: int = 1000
    """Iterations per call into the compiled kernel (one sampled deal each); results do not depend on it."""
    pass_deals: int = 0
    """Split by first-round betting (the paper's parallelisation): deals per pass, the first round's strategy
    held fixed over a pass while the later rounds run apart, on the workers; 0: deals one by one in one
    process (the paper's order), or passes of 4096 deals with --workers > 1. Results depend on it, never on
    --workers."""

    def __post_init__(self) -> None:
        self.require(positive=("batch", "workers"), nonnegative=("pass_deals",))


DEFAULT_PASS_DEALS = 4096
"""Deals per pass when workers split the tree and ``pass_deals`` is 0: seconds of work per pass on CFR5, so
Ray's per-pass cost (milliseconds) is small, and a first-round strategy held fixed over a tiny share of a run."""


class ChanceSampledHoldemCFR(_HoldemSolver):
    """One joint bucket sequence per iteration, vanilla CFR over its betting tree (the paper's method);
    with ``pass_deals`` or ``workers > 1``, split by first-round betting (``cfrlab.games.holdem.solvers.split``)."""

    algorithm = "pvt-cfr"
    citation = ('chance-sampled CFR on an E[HS^2] card abstraction, one bucket sequence per iteration',
                'Zinkevich, Johanson, Bowling & Piccione 2008')
    Config = ChanceSampledConfig
    config: ChanceSampledConfig
    split: SplitRunner | None

    def __init__(self, game: Game, config: SolverConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.rng = as_generator(self.config.seed)
        cfg = self.config
        parallel = cfg.workers > 1 or cfg.address is not None
        self.pass_size = cfg.pass_deals or (DEFAULT_PASS_DEALS if parallel else 0)
        self.split = SplitRunner(self.layout, cfg.workers, cfg.address) if self.pass_size else None
        self.snapshot = self.regret[: self.split.top_size].copy() if self.split else np.zeros(0)

    def workers_warning(self) -> str | None:
        """Too few deals per pass (``--pass-deals``) to share, or more workers than subtree groups."""
        return super().workers_warning() or small_batch_warning(
            self.config.workers, self.pass_size or None, "--pass-deals")

    def _draw(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """``size`` joint last-round bucket sequences drawn from the chance table."""
        layout = self.layout
        draws = np.searchsorted(layout.last_cdf, self.rng.random(size) * layout.last_cdf[-1], side="right")
        draws = np.minimum(draws, len(layout.last_cdf) - 1)
        s0, s1 = np.divmod(draws, layout.showdown.shape[0])
        return s0.astype(np.int64), s1.astype(np.int64)

    def _run_iterations(self, n: int) -> None:
        layout, left = self.layout, n
        while left > 0 and self.split is None:
            size = min(left, self.config.batch)
            chance_sampled_cfr(*self._draw(size), layout.kind, layout.round, layout.player, layout.child,
                               layout.spent, layout.base, layout.stride, layout.div, layout.showdown, self.regret,
                               self.average)
            self.iterations += size
            left -= size
        while left > 0 and self.split is not None:
            self._push_tables()
            done = self.iterations % self.pass_size
            if done == 0:  # a pass starts: the first round's strategy is fixed until it ends
                self.snapshot = self.regret[: self.split.top_size].copy()
            size = min(left, self.pass_size - done)
            self.split.run_pass(*self._draw(size), self.snapshot, self.regret, self.average)
            self._tables_behind = True
            self.iterations += size
            left -= size

    def _state_arrays(self) -> dict[str, np.ndarray]:
        return {**super()._state_arrays(), "snapshot": self.snapshot}

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        super()._load_state_arrays(arrays)
        if self.split is not None:
            if arrays["snapshot"].shape != (self.split.top_size,):
                raise ValueError(f"snapshot has shape {arrays['snapshot'].shape}, expected ({self.split.top_size},)")
            self.snapshot = np.array(arrays["snapshot"], dtype=np.float64)

    def _iterate_once(self) -> None:  # _run_iterations runs batches
        self._run_iterations(1)

    def _extra_state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state}

    def _load_extra_state(self, extra: Mapping[str, Any]) -> None:
        if "rng" in extra:
            self.rng.bit_generator.state = extra["rng"]
