"""The Koi-Koi network's forward pass in numba, for the search's leaves (no torch here).

The input is sparse, as in NNUE (Nasu 2018; Stockfish's evaluator): ``idx[:n]`` lists the active features of a
position, and the first layer is ``b1`` plus the sum of the rows ``w1[idx[k]]`` (each row contiguous, so the
sum streams memory). Then a clipped ReLU (``min(max(x, 0), 1)``), the second layer ``w2`` (H1, H2) read row
by row, only the rows of the units the clip leaves active (about half; gathering them first made it 1.4 times
faster than testing each row in the loop), a clipped ReLU again, and the heads: ``wv`` (points for the mover,
logit of the mover's match win) and ``wp`` (50 policy logits). Everything is float32, as the weights.

Cost (``benchmarks/bench_koikoi_neural.py``): 1.4 us a ``value`` at 128 x 32 on 43 active features. Every call
starts from scratch: NNUE's accumulator update (the first layer carried over and patched with the features that
changed) would save a fifth of that at most, since the first layer is a quarter of the cost.

Indices are not bounds-checked: they come from ``features.encode``. Arguments: ``w`` a ``NetWeights``, ``idx``
int32 (at least ``n``), outputs float32 (kernels are unannotated, as numba ignores annotations).
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.neural.weights import NetWeights


@nb.njit(cache=True, inline="always")
def _clip(x):
    return min(max(x, 0.0), 1.0)


@nb.njit(cache=True)
def accumulate(w, idx, n, acc):
    """``acc`` = the first layer before its activation: ``b1`` plus the rows of ``w1`` of the active features."""
    width = acc.shape[0]
    for j in range(width):
        acc[j] = w.b1[j]
    for k in range(n):
        f = idx[k]
        for j in range(width):
            acc[j] += w.w1[f, j]


@nb.njit(cache=True)
def second_layer(w, acc, h2):
    """``h2`` = the second layer's activations from the first layer's pre-activations ``acc`` (overwritten: the
    active units' clipped values are gathered at its front, and only their rows of ``w2`` are read)."""
    active = np.empty(acc.shape[0], dtype=np.int32)
    m = 0
    for i in range(acc.shape[0]):
        if acc[i] > 0.0:
            active[m] = i
            acc[m] = min(acc[i], 1.0)
            m += 1
    width = h2.shape[0]
    for j in range(width):
        h2[j] = w.b2[j]
    for k in range(m):
        a, i = acc[k], active[k]
        for j in range(width):
            h2[j] += a * w.w2[i, j]
    for j in range(width):
        h2[j] = _clip(h2[j])


@nb.njit(cache=True)
def _hidden(w, idx, n):
    acc = np.empty(w.b1.shape[0], dtype=np.float32)
    accumulate(w, idx, n, acc)
    h2 = np.empty(w.b2.shape[0], dtype=np.float32)
    second_layer(w, acc, h2)
    return h2


@nb.njit(cache=True)
def value(w, idx, n, j=0):
    """Value output ``j`` at the position whose active features are ``idx[:n]``: 0, the mover's expected round
    points; 1, the logit of the mover winning the match."""
    h2 = _hidden(w, idx, n)
    total = w.bv[j]
    for i in range(h2.shape[0]):
        total += h2[i] * w.wv[i, j]
    return total


@nb.njit(cache=True)
def heads(w, h2, out_value, out_logits):
    """Both heads from the second layer's activations ``h2``."""
    for j in range(out_value.shape[0]):
        out_value[j] = w.bv[j]
    for j in range(out_logits.shape[0]):
        out_logits[j] = w.bp[j]
    for i in range(h2.shape[0]):
        a = h2[i]
        if a > 0.0:
            for j in range(out_value.shape[0]):
                out_value[j] += a * w.wv[i, j]
            for j in range(out_logits.shape[0]):
                out_logits[j] += a * w.wp[i, j]


@nb.njit(cache=True)
def forward(w, idx, n, out_value, out_logits):
    """Both heads: ``out_value`` (2: round points for the mover, logit of the mover's match win) and
    ``out_logits`` (50 policy logits, illegal actions included: the caller masks them)."""
    heads(w, _hidden(w, idx, n), out_value, out_logits)


def forward_batch(w: NetWeights, features: NDArray[np.integer]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(values (m, 2), logits (m, 50)) of the rows of ``features`` (m, k): active indices padded with -1."""
    features = np.asarray(features)
    values = np.empty((len(features), w.bv.shape[0]), dtype=np.float32)
    logits = np.empty((len(features), w.bp.shape[0]), dtype=np.float32)
    for row, active in enumerate(features):
        idx = np.ascontiguousarray(active[active >= 0], dtype=np.int32)
        if len(idx) and idx.max() >= w.w1.shape[0]:
            raise ValueError(f"feature index {int(idx.max())} is out of range for {w.w1.shape[0]} features")
        forward(w, idx, len(idx), values[row], logits[row])
    return values, logits
