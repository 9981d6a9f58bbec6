"""The tables of the numba Koi-Koi OOS walk (``oos_walk``): rows found by a 64-bit infoset hash, and a pass's
increments added to them.

An open-addressing hash table from the first hash of an infoset's record to a row (regrets, strategy sums,
actions), the second hash checked beside the row, so a first-hash collision never merges two infosets (the later
one is played out). The walk reads rows (``lookup``); ``keep_pass`` adds a finished pass's increments and stores
its new infosets; ``oos_search`` allocates and grows the arrays (the walk never does).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.solvers.mccfr.rules import rule_update


class Store(NamedTuple):
    """The incremental tables: one row per infoset (its ``hash``, and ``check`` its second hash), found through
    ``slots`` (open addressing with linear probing: the rows of the hashes, -1 where empty; a power of two long,
    at most half full)."""

    slots: NDArray[np.int64]
    hash: NDArray[np.uint64]
    check: NDArray[np.uint64]
    player: NDArray[np.int8]
    na: NDArray[np.int8]
    actions: NDArray[np.int8]
    regret: NDArray[np.float64]
    strategy: NDArray[np.float64]
    n: NDArray[np.int64]


@njit(cache=True, inline="always")
def lookup(store, h1, h2):
    """The row of infoset hash ``h1`` (-1: not stored; -2: another infoset holds it, ``check`` differs)."""
    slots = store.slots
    mask = slots.shape[0] - 1
    i = np.int64(h1 & np.uint64(mask))
    while True:
        row = slots[i]
        if row < 0:
            return -1
        if store.hash[row] == h1:
            return row if store.check[row] == h2 else -2
        i = (i + 1) & mask


@njit(cache=True)
def insert(store, row):
    """Make row ``row`` (its ``hash`` set, not yet in ``slots``) found by ``lookup``."""
    slots = store.slots
    mask = slots.shape[0] - 1
    i = np.int64(store.hash[row] & np.uint64(mask))
    while slots[i] >= 0:
        i = (i + 1) & mask
    slots[i] = row


@njit(cache=True)
def keep_pass(store, sc, depth, aim, incremental, rule, t, w):
    """``OnlineOutcomeSampling._sample`` and ``MCCFR._apply`` for one pass: add its increments to the stored
    rows by ``rule`` at iteration ``t`` (``cfrlab.solvers.mccfr.rules``); store the first new infoset it reached
    and the searched one (every new one if not ``incremental``).
    ``sc`` is the pass's per-depth record (``oos_walk.Record``), ``aim`` its target (``oos_walk.Aim``)."""
    kind, ratio, rowof, hs, who, nas, actd, rinc, sinc = sc
    seen_new = False
    for e in range(depth):
        if rowof[e] == -3:  # a chance node
            continue
        row = rowof[e]
        if row < 0:
            keep = row == -1 and (not incremental or not seen_new or (hs[e, 0] == aim.h1 and hs[e, 1] == aim.h2))
            seen_new = True
            if not keep:
                continue
            row = store.n[0]
            store.n[0] += 1
            store.hash[row] = hs[e, 0]
            insert(store, row)
            store.check[row] = hs[e, 1]
            store.player[row] = who[e]
            na = nas[e]
            store.na[row] = na
            for b in range(na):
                store.actions[row, b] = actd[e, b]
                store.regret[row, b] = 0.0
                store.strategy[row, b] = 0.0
        na = nas[e]
        rule_update(rule, t, store.regret[row, :na], store.strategy[row, :na], rinc[e, :na], sinc[e, :na], w)
