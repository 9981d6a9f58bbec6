"""Batched Koi-Koi simulator: many single rounds at once in a numba kernel, for self-play statistics and rollouts.

Rules: those of ``cfrlab.games.koikoi.rules.engine`` for every ``RuleSet`` option and preset (the round flow is
``flow``, the scoring ``kernels``, the policies ``playout_policy``).

Specification in cfrlab:
1. ``sample_inputs(rules, n, rng)`` draws every random quantity up front with one ``np.random.Generator``: the
   deal of each game as masks (misdeals redealt as the engine does: a field of four of a month, and the deal-only
   options ``redeal_field_three_of_month``, ``redeal_field_four_pairs``, ``redeal_hand_four_of_month``,
   ``teyaku='redeal'``), the draw-pile order, and a table of uniforms ``u`` that the policy consumes in order.
2. ``simulate(rules, inputs, koikoi_prob, policy=..., epsilon=..., round_index=...)`` plays every game: with
   ``policy='uniform'`` a PLAY or capture choice takes legal action ``floor(u * n_legal)`` of the ascending legal
   list and a DECIDE calls KOI-KOI when ``u < koikoi_prob``; with ``policy='greedy'`` both players follow
   ``GreedyAgent`` (random moves with probability ``epsilon``). Player 0 is the oya; ``round_index`` sets the
   round's month (tsukifuda, seasonal viewing). The kernel records each game's action log (plays, captures, draws,
   STOP/KOI-KOI) and the next oya, so ``Engine`` replays any game and must reach the same end (the cross-test).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules.flow import CARDS_SIZE, STATE_SIZE, begin, deal, load
from cfrlab.games.koikoi.rules.kernels import REASONS, kernel_rules, misdeal
from cfrlab.games.koikoi.rules.playout import borrow, play_on
from cfrlab.games.koikoi.rules.playout_policy import make_policy
from cfrlab.games.koikoi.rules.rules import RuleSet, month_of_round

MAX_LOG = 80
__all__ = ["BatchInputs", "BatchResult", "REASONS", "random_rounds", "sample_inputs", "simulate"]


@dataclass(frozen=True)
class BatchInputs:
    """Everything random about ``n`` rounds, drawn up front."""

    ko: NDArray[np.uint64]
    field: NDArray[np.uint64]
    oya: NDArray[np.uint64]
    order: NDArray[np.int8]
    """(n, stock size): the draw pile, top first."""
    u: NDArray[np.float64]
    """(n, width): uniforms for the policy's choices, consumed in order."""
    redeals: NDArray[np.int32]


@dataclass(frozen=True)
class BatchResult:
    """Per game: winner (-1 none, 0 oya, 1 ko), points, reason code, next oya, final piles and field, action log."""

    winner: NDArray[np.int8]
    points: NDArray[np.int32]
    reason: NDArray[np.int8]
    next_oya: NDArray[np.int8]
    piles: NDArray[np.uint64]
    field: NDArray[np.uint64]
    log: NDArray[np.int16]
    log_len: NDArray[np.int16]


def sample_inputs(rules: RuleSet, n: int, rng: np.random.Generator, policy: str = "uniform") -> BatchInputs:
    """Deals (misdeals redealt), draw orders and policy uniforms for ``n`` rounds.

    Each deal is a Fisher-Yates shuffle of the deck driven by uniforms from ``rng`` (run in numba). The greedy
    policy reads two uniforms per choice, the uniform one a single one."""
    deck = np.array(C.cards_of(C.deck_mask(rules.months)), dtype=np.int8)
    h, f = rules.hand_size, rules.field_size
    F = kernel_rules(rules).F
    perm = _shuffle(rng.random((n, len(deck) - 1)), deck)
    redeals = np.zeros(n, dtype=np.int32)
    ko, field, oya, bad_deal = _deal_masks(perm, h, f, F)
    bad = np.flatnonzero(bad_deal)
    while len(bad):
        redeals[bad] += 1
        perm[bad] = _shuffle(rng.random((len(bad), len(deck) - 1)), deck)
        k2, f2, o2, m2 = _deal_masks(perm[bad], h, f, F)
        ko[bad], field[bad], oya[bad] = k2, f2, o2
        bad = bad[m2]
    order = np.ascontiguousarray(perm[:, 2 * h + f:])
    u = rng.random((n, (16 if policy == "greedy" else 8) * h))
    return BatchInputs(ko, field, oya, order, u, redeals)


@nb.njit(cache=True)
def _shuffle(U: NDArray[np.float64], deck: NDArray[np.int8]) -> NDArray[np.int8]:
    n, d = U.shape[0], deck.shape[0]
    out = np.empty((n, d), dtype=np.int8)
    for g in range(n):
        row = out[g]
        for i in range(d):  # a loop, not row[:] = deck: numba compiles a slice copy's error message for seconds
            row[i] = deck[i]
        for i in range(d - 1, 0, -1):  # Fisher-Yates: swap i with a uniform j in [0, i]
            j = int(U[g, d - 1 - i] * (i + 1))
            tmp = row[i]
            row[i] = row[j]
            row[j] = tmp
    return out


@nb.njit(cache=True)
def _deal_masks(perm: NDArray[np.int8], h: int, f: int, F: NDArray[np.int64]):
    n = perm.shape[0]
    ko = np.zeros(n, dtype=np.uint64)
    field = np.zeros(n, dtype=np.uint64)
    oya = np.zeros(n, dtype=np.uint64)
    bad = np.zeros(n, dtype=np.bool_)
    one = np.uint64(1)
    for g in range(n):
        for i in range(h):
            ko[g] |= one << np.uint64(perm[g, i])
        for i in range(h, h + f):
            field[g] |= one << np.uint64(perm[g, i])
        for i in range(h + f, 2 * h + f):
            oya[g] |= one << np.uint64(perm[g, i])
        bad[g] = misdeal(ko[g], field[g], oya[g], F)
    return ko, field, oya, bad


@nb.njit(cache=True)
def _simulate(ko, field, oya, order, u, policy, kr, month, winner, points, reason, next_oya, piles_out, field_out, log,
              log_len):
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    cards = np.zeros(CARDS_SIZE, dtype=np.uint64)
    kr, policy = borrow(kr, policy)
    for g in range(ko.shape[0]):
        begin(st, cards, np.int64(0), np.bool_(False), month, np.uint64(0))
        deal(st, cards, ko[g], field[g], oya[g], kr)
        pos, _, _, log_len[g] = play_on(load(st, cards), 0, 0, order[g], u[g], policy, kr, log[g], 1 << 30)
        winner[g], points[g], reason[g], next_oya[g] = pos.winner, pos.points, pos.reason, pos.next_oya
        piles_out[g, 0], piles_out[g, 1], field_out[g] = pos.pile0, pos.pile1, pos.field


def simulate(rules: RuleSet, inputs: BatchInputs, koikoi_prob: float = 0.0, policy: str = "uniform",
             epsilon: float = 0.0, round_index: int = 0, decide: NDArray[np.float64] | None = None,
             weights: NDArray[np.float64] | None = None) -> BatchResult:
    """Play every round of ``inputs`` with ``policy`` (module docstring); with the greedy policy, ``decide`` (a
    ``playout_policy`` koi-koi table, one row per seat, NaN for greedy's rule) takes the koi-koi/stop decisions and
    ``weights`` (``playout_policy`` weights, one row per seat) the card plays and captures."""
    pol = make_policy(policy, epsilon, koikoi_prob, decide=decide, weights=weights)
    n = len(inputs.ko)
    out = BatchResult(
        winner=np.empty(n, dtype=np.int8), points=np.empty(n, dtype=np.int32), reason=np.empty(n, dtype=np.int8),
        next_oya=np.empty(n, dtype=np.int8), piles=np.empty((n, 2), dtype=np.uint64),
        field=np.empty(n, dtype=np.uint64), log=np.full((n, MAX_LOG), -1, dtype=np.int16),
        log_len=np.empty(n, dtype=np.int16),
    )
    _simulate(inputs.ko, inputs.field, inputs.oya, inputs.order, inputs.u, pol, kernel_rules(rules),
              month_of_round(rules, round_index), out.winner, out.points, out.reason, out.next_oya, out.piles,
              out.field, out.log, out.log_len)
    return out


def random_rounds(rules: RuleSet, n: int, rng: np.random.Generator, koikoi_prob: float = 0.0) -> BatchResult:
    """``n`` uniformly random rounds (sample the inputs, then simulate)."""
    return simulate(rules, sample_inputs(rules, n, rng), koikoi_prob)
