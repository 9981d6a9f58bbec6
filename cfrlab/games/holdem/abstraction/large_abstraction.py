"""The E[HS^2] abstraction (Zinkevich et al. 2008) of a deck too large to list: the full 52 cards.

The exact builder (``cfrlab.games.holdem.abstraction.abstraction``) enumerates every class of
card sequences and every deal: about 2.4e9 river classes and 5e13 deals on 52
cards. Here the tables come from ``cfrlab.games.holdem.abstraction.large_builder``, flop by flop.

* **Buckets: exact.** Every E[HS^2] is enumerated exactly, as integers
  (``cfrlab.games.holdem.abstraction.strength``), and bucketed by the exact builder's rule
  (``tie_buckets``: nested, equal weight, equal values together): the buckets
  are the exact builder's (tested on small decks). They are stored as cuts per
  round and previous bucket sequence (plus the pre-flop class table), so a
  hand is bucketed by its E[HS^2] count (``bucket_sequence``): after the flop
  looked up in the game's flop table (``cfrlab.games.holdem.abstraction.flop_table``)
  where it is cached, otherwise enumerated; after the turn every private hand
  of the board at once, from the game's turn table
  (``cfrlab.games.holdem.abstraction.turn_table``) where it is cached, otherwise computed
  (``turn_counts``), and remembered; after the river enumerated (990 opponent
  hands).
* **Joint table: sampled.** The probability of each pair of river bucket
  sequences and the expected showdown behind it come from ``samples`` pairs of
  private hands drawn uniformly on every flop, turn and river (every board is
  visited, with its weight); ``samples=0`` enumerates every pair (exact; small
  decks). The table is dense (on 52 cards with 5 buckets, 99.997 % of the
  390,625 cells have a deal), one table of ``nseq^2`` cells: float64 up to
  ``FLOAT32_CELLS`` cells, float32 above (10 buckets: 1e8 cells, 0.4 GB each
  for the probabilities and the showdowns).
* **Its error** (``joint_error``): from the samples' second moments per cell
  (``moments``: the samples are independent, so the sum of each sample's squared
  contribution estimates a cell's variance), and where the tables are small
  enough, also from the spread of ``replicates`` independent tables.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.checkpoint import load_arrays
from cfrlab.games.holdem.abstraction.abstraction import _mask
from cfrlab.games.holdem.abstraction.flop_kernels import canonical_keys, flop_layout, flop_strengths
from cfrlab.games.holdem.abstraction.flop_table import FlopTable
from cfrlab.games.holdem.abstraction.strength import ehs2_count, strength_count
from cfrlab.games.holdem.abstraction.turn_table import TurnTable
from cfrlab.games.holdem.rules.evaluator import tables
from cfrlab.games.holdem.rules.game import LimitHoldem
from cfrlab.games.holdem.rules.suits import binomials, radices, suit_permutations

LARGE_VERSION = 1
SAMPLES_PER_BOARD = 128
"""Default pairs of private hands drawn on each flop, turn and river of the sampled joint table."""
REPLICATES = 8
MAX_REPLICATE_CELLS = 10**8
"""Most cells of all replicate tables together (8 x 390,625 with 5 buckets); above, one table and its moments."""
FLOAT32_CELLS = 10**7
"""Joint tables of more cells are stored in float32 (10 buckets a round: 1e8 cells)."""


def default_replicates(buckets: list[int]) -> int:
    """``REPLICATES`` independent tables where they fit in ``MAX_REPLICATE_CELLS``, else 1."""
    cells = float(np.prod([float(b) for b in buckets])) ** 2
    return REPLICATES if cells * REPLICATES <= MAX_REPLICATE_CELLS else 1


def table_dtype(nseq: int) -> type:
    return np.float32 if nseq * nseq > FLOAT32_CELLS else np.float64


def check_structure(game: LimitHoldem) -> None:
    """The flop-by-flop builder needs hold'em's rounds: no pre-flop board, a flop, then one card a round."""
    if list(game.board_cards[:1]) != [0] or len(game.board_cards) != 4 or list(game.board_cards[2:]) != [1, 1] \
            or game.hole_cards not in (1, 2):
        raise ValueError("the large-deck E[HS^2] builder needs 1 or 2 private cards and board_cards [0, F, 1, 1], "
                         f"not hole_cards={game.hole_cards}, board_cards={list(game.board_cards)}")


@dataclass
class LargeEHS2Abstraction:
    """Exact buckets (as cuts) and a sampled joint bucket-sequence table."""

    game: LimitHoldem
    buckets: list[int]
    preflop_keys: NDArray[np.int64]
    """Canonical keys of the private-hand classes, sorted."""
    preflop_bucket: NDArray[np.int64]
    cuts: list[NDArray[np.int64]]
    """``cuts[k][g, j - 1]`` (rounds k = 1..3; index 0 unused): least count of bucket j after sequence g."""
    joint: NDArray[np.floating]
    showdown: NDArray[np.floating]
    samples: int
    """Pairs of private hands per board (0: every pair, the table is exact)."""
    seconds: dict[str, float] = field(default_factory=dict)
    replicate_joint: NDArray[np.float64] | None = None
    """Unnormalised deal weight per replicate and pair of sequences (None: one table, no replicates)."""
    replicate_result: NDArray[np.float64] | None = None
    moments: NDArray[np.float32] | None = None
    """Per cell, summed over the samples, divided by the total deal weight squared: 0, the deal weight squared;
    1, the showdown result squared; 2, their product (None: exact, or a table built before they were kept)."""
    moments_file: Path | None = None
    """The cache file ``moments`` is read from when ``joint_error`` first needs them (None: in memory or none),
    so that playing or solving never holds them: 1.2 GB with 10 buckets a round, used once to state the error."""
    flop_table: FlopTable | None = None
    turn_table: TurnTable | None = None
    _recent: dict = field(default_factory=dict, repr=False)
    _turns: dict = field(default_factory=dict, repr=False)

    @property
    def sampled(self) -> bool:
        return self.samples > 0

    @property
    def replicates(self) -> int:
        return 0 if self.replicate_joint is None else len(self.replicate_joint)

    def replicate_table(self, i: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(joint, showdown)`` estimated from replicate i alone (a fraction 1/replicates of the samples)."""
        if self.replicate_joint is None or self.replicate_result is None:
            raise ValueError("this table keeps no replicates")
        joint, result = self.replicate_joint[i], self.replicate_result[i]
        return joint / joint.sum(), np.divide(result, joint, out=np.zeros_like(result), where=joint > 0)

    def num_sequences(self, round_index: int) -> int:
        return int(np.prod(self.buckets[: round_index + 1]))

    @cached_property
    def _tables(self) -> tuple[Any, ...]:
        c = self.game
        return suit_permutations(c.ranks, c.suits), radices(c.deck_size, [c.hole_cards]), binomials(), tables()

    def round_counts(self, hole: tuple[int, ...], board_by_round: list[tuple[int, ...]]) -> list[int]:
        """The integer E[HS^2] (strength counts) after each round given, from the flop on.

        The last few hands' counts are remembered: a player asks again at every decision of a hand.
        """
        out: list[int] = []
        board: tuple[int, ...] = ()
        for k, part in enumerate(board_by_round):
            board = board + tuple(part)
            if k > 0:
                key = (frozenset(hole), tuple(frozenset(p) for p in board_by_round[: k + 1]))
                if key not in self._recent:
                    if len(self._recent) > 4096:
                        self._recent.clear()
                    self._recent[key] = self._count(hole, board)
                out.append(self._recent[key])
        return out

    def _count(self, hole: tuple[int, ...], board: tuple[int, ...]) -> int:
        nf = self.game.board_cards[1]
        if self.flop_table is not None and len(board) == nf:
            return self.flop_table.count(_mask(hole), _mask(board))
        if len(board) == nf + 1:
            key = (frozenset(board[:nf]), board[nf])
            if key not in self._turns:
                if len(self._turns) > 64:
                    self._turns.clear()
                flop, turn = board[:nf], board[nf]
                self._turns[key] = (self.turn_counts(flop, turn) if self.turn_table is None
                                    else self.turn_table.board_counts(flop, turn))
            return self._turns[key][_mask(hole)]
        return self.enumerated_count(hole, board)

    @cached_property
    def _flop_positions(self) -> tuple[NDArray[np.int64], ...]:
        return flop_layout(self.game.deck_size - self.game.board_cards[1], self.game.hole_cards)

    def turn_counts(self, flop: tuple[int, ...], turn: int) -> dict[int, int]:
        """The E[HS^2] count of every private hand (by card mask) on ``flop`` and ``turn``, all at once.

        One sort of the hands per river (the builder's ``flop_strengths`` on the run-outs that hold ``turn``):
        about what one hand's enumeration costs, so a range of hands (Local Best Response) costs no more.
        """
        hole_pos, holes, pair_pos, pair_index, live = self._flop_positions
        rest = np.array([c for c in range(self.game.deck_size) if c not in flop], dtype=np.int64)
        t = int(np.flatnonzero(rest == turn)[0])
        rows = np.array([pair_index[t, r] for r in range(len(rest)) if r != t], dtype=np.int64)
        absolute = self.game.absolute
        x, _ = flop_strengths(absolute[list(flop)], absolute[rest], hole_pos, pair_pos[rows], live[rows],
                              *self._tables[3])
        x = x.astype(np.int64)
        counts = np.where(x >= 0, x * x, 0).sum(axis=0)
        masks = (np.int64(1) << rest[hole_pos]).sum(axis=1)
        off = (holes >> t & 1) == 0  # hands without the turn card
        return dict(zip(masks[off].tolist(), counts[off].tolist()))

    def enumerated_count(self, hole: tuple[int, ...], board: tuple[int, ...]) -> int:
        """The E[HS^2] count of ``hole`` on ``board`` by enumerating every completion and opponent hand."""
        absolute, evaluator = self.game.absolute, self._tables[3]
        rest = absolute[[c for c in range(self.game.deck_size) if c not in hole and c not in board]]
        mine, seen = absolute[list(hole)], absolute[list(board)]
        if len(board) == sum(self.game.board_cards):
            return int(strength_count(mine, seen, rest, *evaluator)[0])
        return int(ehs2_count(mine, seen, rest, sum(self.game.board_cards), *evaluator))

    def bucket_sequence(self, hole: tuple[int, ...], board_by_round: list[tuple[int, ...]]) -> int:
        """Bucket sequence id of a player's cards up to the last round in ``board_by_round``."""
        maps, radix, binom, _ = self._tables
        key = canonical_keys(np.array([_mask(hole)], dtype=np.int64), maps, radix, binom)[0]
        seq = int(self.preflop_bucket[np.searchsorted(self.preflop_keys, key)])
        for k, count in enumerate(self.round_counts(hole, board_by_round), start=1):
            seq = seq * self.buckets[k] + int(np.count_nonzero(self.cuts[k][seq] <= count))
        return seq

    def joint_error(self) -> dict[str, Any]:
        """Standard errors of the sampled table (zeros when exact).

        Expected absolute errors (sqrt(2/pi) x the standard error, errors taken as normal): ``joint_l1``,
        summed over the cells of the probability table; ``showdown``, of each cell's expected showdown result
        (+1 win, -1 loss; a ratio, its error by the delta method), weighted by the cells' probability. From the
        samples' moments where kept (``method: "moments"``), else from the replicates' spread.
        """
        if self.moments is None and self.moments_file is not None:
            arrays, _ = load_arrays(self.moments_file, "E[HS^2] abstraction", names=("moments",))
            return dataclasses.replace(self, moments=arrays.get("moments"), moments_file=None).joint_error()
        reps = self.replicates
        if not self.sampled or (self.moments is None and reps < 2):
            return {"replicates": reps, "method": "exact", "joint_l1": 0.0, "showdown": 0.0}
        if self.moments is not None:
            return {"replicates": reps, "method": "moments", **self.moment_error()}
        return {"replicates": reps, "method": "replicates", **self.replicate_error()}

    def moment_error(self) -> dict[str, float]:
        """``joint_l1`` and ``showdown`` of ``joint_error`` from the samples' second moments."""
        assert self.moments is not None
        joint_l1 = showdown = 0.0
        step = max(1, 10**6 // len(self.showdown))  # rows at a time: the tables of 10 buckets have 1e8 cells
        for start in range(0, len(self.showdown), step):
            var_p, var_w, cov = (self.moments[i, start : start + step].astype(np.float64) for i in range(3))
            s = self.showdown[start : start + step].astype(np.float64)
            # Var(result - s * deals) per cell: the numerator of the delta method's error of s = result / deals
            residual = np.maximum(var_w - 2 * s * cov + s * s * var_p, 0.0)
            joint_l1 += float(np.sqrt(var_p).sum())
            showdown += float(np.sqrt(residual).sum())
        scale = np.sqrt(2 / np.pi)
        return {"joint_l1": scale * joint_l1, "showdown": scale * showdown}

    def replicate_error(self) -> dict[str, float]:
        """``joint_l1`` and ``showdown`` of ``joint_error`` from the spread of the replicate tables."""
        assert self.replicate_joint is not None and self.replicate_result is not None
        reps = len(self.replicate_joint)
        totals = self.replicate_joint.sum(axis=(1, 2))
        p = self.replicate_joint / totals[:, None, None]
        won = self.replicate_result / totals[:, None, None]
        se_p = p.std(axis=0, ddof=1) / np.sqrt(reps)
        # the showdown is a ratio (result / deals): its error by the delta method, from each replicate's residual
        residual = np.divide(won - self.showdown * p, self.joint, out=np.zeros_like(won), where=self.joint > 0)
        se_show = residual.std(axis=0, ddof=1) / np.sqrt(reps)
        return {"joint_l1": float(np.sqrt(2 / np.pi) * se_p.sum()),
                "showdown": float(np.sqrt(2 / np.pi) * (self.joint * se_show).sum())}
