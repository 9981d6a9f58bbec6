"""Update rules as pure array functions, shared by the full-tree, sampling and neural solvers.

* regret matching (seed 000 Alg. 2) and regret matching+ (Alg. 4): sigma(I, a)
  proportional to the positive part of the cumulative regret, uniform if none;
  RM+ also clamps the stored regrets at zero.
* averaging weights: ``uniform`` (1 per iteration), ``linear`` (max(t - d, 0),
  CFR+'s weighted averaging with delay d, seed 000 sec. 5), ``quadratic``.
* DCFR discounting (Brown & Sandholm 2019): after iteration t, positive regrets
  are multiplied by t^a/(t^a+1), negative ones by t^b/(t^b+1), and the strategy
  sum by (t/(t+1))^g. Linear CFR is DCFR(1, 1, 1). With RM+ only the positive factor
  matters: DCFR+ and PDCFR+ (Xu et al. 2024) discount R^{t-1} by (t-1)^a/((t-1)^a+1).
* predictive RM(+) (Farina, Kroer & Sandholm 2021): the next strategy regret-matches
  d R + r, r the last instantaneous regret, d the coming discount
  (``kernels.predictive_regret_matching``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from cfrlab.jit_timing import kernel
from cfrlab.tree import kernels

AVERAGING_SCHEMES = ("uniform", "linear", "quadratic")
PRECISIONS = ("float64", "float32")


def regret_matching(regret: NDArray[np.float64], offset: NDArray[np.int64], plus: bool = False) -> NDArray[np.float64]:
    """Strategy per sequence from cumulative regrets; with ``plus`` the regrets are clamped in place."""
    out = np.empty_like(regret)
    kernels.regret_matching(regret, offset, out, plus)
    return out


def regret_matching_reference(regret: NDArray[np.float64], offset: NDArray[np.int64]) -> NDArray[np.float64]:
    """Plain NumPy regret matching (the reference the kernel is tested against)."""
    pos = np.maximum(regret, 0.0)
    counts = np.diff(offset)
    infoset = np.repeat(np.arange(len(counts)), counts)
    sums = np.bincount(infoset, weights=pos, minlength=len(counts))
    uniform = 1.0 / counts[infoset]
    total = sums[infoset]
    return np.where(total > 0, pos / np.where(total > 0, total, 1.0), uniform)


def averaging_code(scheme: str) -> int:
    """The numba code of an averaging scheme (its index in ``AVERAGING_SCHEMES``)."""
    if scheme not in AVERAGING_SCHEMES:
        raise ValueError(f"unknown averaging scheme {scheme!r}; choose one of {AVERAGING_SCHEMES}")
    return AVERAGING_SCHEMES.index(scheme)


def averaging_weight(t: int, scheme: str = "uniform", delay: int = 0) -> float:
    """Weight of iteration ``t`` (1-based) in the average strategy."""
    return float(weight_of(t, averaging_code(scheme), delay))


@kernel
def weight_of(t, scheme, delay):
    """``averaging_weight`` with the scheme as its code: 1, max(t - d, 0) or max(t - d, 0)^2 (0 for t <= d)."""
    m = t - delay
    if m <= 0:
        return 0.0
    if scheme == 0:
        return 1.0
    if scheme == 1:
        return float(m)
    return float(m * m)


@kernel
def cumulative_weight(t, scheme, delay):
    """W(t): the sum of the weights of iterations 1..t (closed form), for the lazy strategy sum."""
    m = t - delay
    if m <= 0:
        return 0.0
    m = float(m)
    if scheme == 0:
        return m
    if scheme == 1:
        return m * (m + 1.0) / 2.0
    return m * (m + 1.0) * (2.0 * m + 1.0) / 6.0


def dcfr_factors(t: int, alpha: float, beta: float, gamma: float) -> tuple[float, float, float]:
    """(positive-regret, negative-regret, strategy-sum) multipliers after iteration ``t``.

    ``t^a / (t^a + 1)`` is computed as the logistic function of ``a ln t``, which never overflows (``t ** a``
    did for a = 1e308, and inf / inf made every regret NaN)."""
    log_t = math.log(t)
    return _logistic(alpha * log_t), _logistic(beta * log_t), (t / (t + 1.0)) ** gamma


def _logistic(z: float) -> float:
    """``1 / (1 + exp(-z))`` without overflow for any finite ``z``."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def average_strategy(strategy_sum: NDArray[np.float64], offset: NDArray[np.int64]) -> NDArray[np.float64]:
    """Normalise a strategy sum per infoset; uniform where the sum is zero (unreached infosets)."""
    return regret_matching_reference(strategy_sum, offset)
