"""The sampled walk over a compiled ``GameTree`` (numba), and the sums of its increments.

An iterative depth-first walk with one frame per depth (numba cannot cache
recursive functions). It does the control flow only: every number comes from
``cfrlab.solvers.mccfr.arithmetic`` and every draw from ``streams``, called in
the order the generic walker (``sampling.Walker.walk``) calls them, so both
give the same tables bit for bit.

The kernels take their arguments grouped: ``SampledTree`` (the tree's arrays),
``Traversal`` (how a pass samples), ``Schedule`` (the iteration loop and the
table update), ``Tables`` (what the solver stores) and ``Sums`` (increments
with sparse bookkeeping of the infosets touched: the caller zeroes only those).
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from cfrlab.jit_timing import kernel
from cfrlab.solvers.mccfr import pass_order as po
from cfrlab.solvers.mccfr.arithmetic import (
    LAZY,
    SIG,
    child_value,
    descend,
    draw_traverser,
    enter_other,
    explore,
    follow,
    leave_traverser,
    new_frames,
    next_followed,
    node_value,
    play_strategy,
    prediction_holds,
    record_prediction,
    start_walk,
    table_weight,
)
from cfrlab.solvers.mccfr.rules import Rule, rule_update, rule_weight
from cfrlab.solvers.mccfr.streams import pick, stream_key, uniform

TERMINAL = -4
CHANCE = -1


class SampledTree(NamedTuple):
    """The arrays of a compiled ``GameTree`` that a sampled walk reads."""

    child_ptr: NDArray[np.int64]
    player: NDArray[np.int64]
    infoset: NDArray[np.int64]
    offset: NDArray[np.int64]
    infoset_player: NDArray[np.int64]
    utility: NDArray[np.float64]
    chance_prob: NDArray[np.float64]
    max_depth: int


class Traversal(NamedTuple):
    """How a pass samples (``MCCFRConfig``'s sampling fields as numbers)."""

    k: int
    eps: float
    sample_opp: bool
    scheme: int


class Schedule(NamedTuple):
    """The iteration loop and the table update (``MCCFRConfig``'s other fields as numbers)."""

    batch: int
    chunk: int
    alternating: bool
    rule: Rule
    """The update rule and its numbers (``rules``)."""


class Prediction(NamedTuple):
    """Predictive regret matching's state (``arithmetic.predicted_strategy``); all empty when not predictive."""

    m: NDArray[np.float64]
    """Per sequence: the sampled regret increment of the owner's update that wrote it."""
    at: NDArray[np.int64]
    """Per infoset: the iteration whose update wrote ``m`` there."""
    last_update: NDArray[np.int64]
    """Per player: the iteration of the player's latest table update (``m`` holds where ``at`` equals it)."""


def new_prediction(num_sequences: int, num_infosets: int, num_players: int, predictive: bool) -> Prediction:
    """Zeroed prediction tables (a zero prediction plays RM(R)), or empty ones when not ``predictive``."""
    if not predictive:
        num_sequences = num_infosets = num_players = 0
    return Prediction(np.zeros(num_sequences), np.zeros(num_infosets, dtype=np.int64),
                      np.zeros(num_players, dtype=np.int64))


class Tables(NamedTuple):
    """What the solver stores: cumulative regrets, strategy sums (per sequence), lazy c_I (per infoset), and
    the prediction of predictive RM."""

    regret: NDArray[np.float64]
    strategy_sum: NDArray[np.float64]
    last: NDArray[np.int64]
    pred: Prediction


Sums = namedtuple("Sums", "r s flag touched n")
"""Per-sequence increments ``r``, ``s`` and the infosets they touched (``touched[:n[0]]``, ``flag`` set there)."""


def new_sums(num_sequences: int, num_infosets: int, rows: int = 0) -> Sums:
    """Zeroed ``Sums``: one set, or ``rows`` of them (one per traverser) stacked."""
    shape = (rows,) if rows else ()
    return Sums(np.zeros(shape + (num_sequences,)), np.zeros(shape + (num_sequences,)),
                np.zeros(shape + (num_infosets,), dtype=np.int8), np.zeros(shape + (num_infosets,), dtype=np.int64),
                np.zeros(max(rows, 1), dtype=np.int64))


@kernel
def sums_row(sums, i):
    """Row ``i`` (traverser i) of stacked ``Sums``, as views."""
    return Sums(sums.r[i], sums.s[i], sums.flag[i], sums.touched[i], sums.n[i:i + 1])


@kernel
def touch(i, sums):
    """Flag infoset ``i`` as touched in ``sums`` (once)."""
    if sums.flag[i] == 0:
        sums.flag[i] = 1
        sums.touched[sums.n[0]] = i
        sums.n[0] += 1


ENTER = 0
RETURN = 1
PASS = 0  # chance or sampled node: one child, its value passes up
FOLLOW = 1  # traverser node, or another player's under chance sampling: the followed children
TRAV = 2  # (kind | TRAV): a traverser node, whose regrets are updated on the way up


def new_stack(tree: SampledTree) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int8],
                                         NDArray[np.int64], NDArray[np.int64]]:
    """The iterative walk's stack: the frames (``arithmetic``'s ``F``), and per depth the node, the frame's kind
    (``PASS``, ``FOLLOW``, ``FOLLOW | TRAV``) and the followed child; a (0, na) offset pair. (A plain tuple: a
    NamedTuple of these arrays measured 10 % slower in the walk. Made here, not in the kernel: numpy's allocators
    compile for each dtype a kernel allocates.)"""
    max_actions = int(np.diff(tree.offset).max(initial=1))
    levels = tree.max_depth + 2
    return (new_frames(levels, tree.utility.shape[1], max_actions), np.zeros(levels, dtype=np.int64),
            np.zeros(levels, dtype=np.int8), np.zeros(levels, dtype=np.int64), np.zeros(2, dtype=np.int64))


@kernel(inline="always")
def enter_next(F, node, cidx, d, child_ptr, player):
    """Step the FOLLOW frame at depth d into its next followed child (after ``cidx[d]``,
    ``arithmetic.next_followed``): its action in ``cidx[d]``, its node in ``node[d + 1]``, frame d + 1
    (``arithmetic.follow``). False when none is left (the frame is done). It takes the stack's arrays, not the
    stack or the tree: taking them out here, at every step, measured 1.4-1.5 times slower (reference counts)."""
    n = node[d]
    c0 = child_ptr[n]
    na = child_ptr[n + 1] - c0
    a = next_followed(F, d, cidx[d], na)
    if a == na:
        return False
    cidx[d] = a
    node[d + 1] = c0 + a
    follow(F, d, player[n], a)
    return True


WHOLE = (-1, 0, 0)
"""``iterate_tree``'s ``part`` for whole iterations."""


def run_chunk(tree, regret, pred, trav, opt, rule, pass_key, start, stop, buf):
    """Traversals ``start..stop-1`` of traverser ``trav``'s pass keyed ``pass_key``, summed into ``buf``; returns
    the nodes visited.

    ``regret`` and ``pred`` (a ``Prediction``) are read, never written. ``iterate_tree`` with a ``part``: the
    solver's kernel, of the same signature (``rule`` the solver's), so that a parallel replica compiles nothing
    of its own.
    """
    tables = Tables(regret, np.zeros(0), np.zeros(0, dtype=np.int64), pred)
    keys = np.full((1, trav + 1), pass_key, dtype=np.int64)
    return iterate_tree(tree, tables, 0, keys, opt, Schedule(1, 1, True, rule), buf, new_sums(0, 0, 1),
                        new_stack(tree), (trav, start, stop))


@kernel
def add_chunk(offset, buf, tot):
    """tot += buf over the infosets ``buf`` touched, then zero ``buf`` there (ready for the next chunk)."""
    for j in range(buf.n[0]):
        i = buf.touched[j]
        for s in range(offset[i], offset[i + 1]):
            tot.r[s] += buf.r[s]
            tot.s[s] += buf.s[s]
            buf.r[s] = 0.0
            buf.s[s] = 0.0
        buf.flag[i] = 0
        touch(i, tot)
    buf.n[0] = 0


@kernel
def apply_increments(tree, trav, tot, tables, sched, lazy, weight, t):
    """Add a pass's summed increments to the tables by the rule (``rules.rule_update``, ``table_weight``), then
    zero them."""
    for j in range(tot.n[0]):
        i = tot.touched[j]
        lo, hi = tree.offset[i], tree.offset[i + 1]
        owner = tree.infoset_player[i] == trav
        w = table_weight(sched.rule, weight, lazy, owner, t, tables.last[i])
        if lazy and not owner:
            tables.last[i] = t
        rule_update(sched.rule, t, tables.regret[lo:hi], tables.strategy_sum[lo:hi], tot.r[lo:hi], tot.s[lo:hi], w)
        if owner and tables.pred.at.shape[0] > 0:
            record_prediction(tables.pred.m[lo:hi], tot.r[lo:hi])
            tables.pred.at[i] = t
        for s in range(lo, hi):
            tot.r[s] = 0.0
            tot.s[s] = 0.0
        tot.flag[i] = 0
    tot.n[0] = 0
    if tables.pred.at.shape[0] > 0:
        tables.pred.last_update[trav] = t


@kernel
def iterate_tree(tree, tables, t0, pass_keys, opt, sched, buf, tot, sc, part):
    """Iterations t0+1 .. t0+len(pass_keys) of MCCFR over a compiled tree, on the stack ``sc`` (``new_stack``);
    returns the nodes visited.

    ``pass_keys[it, i]`` keys traverser i's pass of iteration it. Per pass: chunks of ``sched.chunk`` traversals
    summed into ``tot`` in chunk order, then ``apply_increments`` (after each traverser if ``sched.alternating``,
    else after all). ``tot`` has one row per player. ``part`` (i, start, stop) with i >= 0 (``run_chunk``): only
    traversals start..stop-1 of traverser i's pass ``pass_keys[0, i]``, summed into ``buf`` and left there;
    ``WHOLE``: whole iterations. The order of the traversals and what each closes: ``pass_order``.

    Each traversal (``sampling.Walker.walk``'s calls to ``arithmetic`` and ``streams``, in its order) is written
    here, not in a kernel of its own: numba links a called kernel's code into the caller and optimises it again
    there (0.8 of the 8.6 CPU-seconds of a first external-sampling solve, ``benchmarks/bench_first_compile.py``).
    """
    F, node, kind, cidx, off2 = sc
    child_ptr, player, infoset, offset = tree.child_ptr, tree.player, tree.infoset, tree.offset
    regret, pred = tables.regret, tables.pred
    predictive = pred.at.shape[0] > 0
    num_players = tree.utility.shape[1]
    lazy = opt.scheme == LAZY
    visited = 0
    it, trav, j = po.first_traversal(part)
    while it < po.iterations(pass_keys, part):
        t = t0 + it + 1
        key = stream_key(pass_keys[it, trav], j)
        ctr = np.int64(0)  # int64 from the start: a literal 0 would compile the draws' helpers for it too
        d = 0
        node[0] = 0
        start_walk(F)
        mode = ENTER
        ret = 0.0
        while True:
            if mode == ENTER:
                visited += 1
                n = node[d]
                p = player[n]
                if p == TERMINAL:
                    ret = tree.utility[n, trav]
                    mode = RETURN
                    continue
                c0 = child_ptr[n]
                na = child_ptr[n + 1] - c0
                if p != CHANCE:
                    i = np.int64(infoset[n])  # touch and the tables take the int64 ids add_chunk passes
                    lo = offset[i]
                    off2[1] = na
                    play_strategy(F, d, regret[lo:lo + na], pred.m[lo:lo + na],
                                  predictive and prediction_holds(pred.at, pred.last_update, i, p), off2)
                    touch(i, buf)
                    if p == trav:
                        ctr = draw_traverser(F, d, na, opt.k, opt.eps, key, ctr)
                        kind[d] = FOLLOW | TRAV
                    else:
                        enter_other(F, d, na, buf.s[lo:lo + na], trav, p, num_players, opt.sample_opp,
                                    opt.scheme)
                        if not opt.sample_opp:
                            explore(F, d, na)
                            kind[d] = FOLLOW
                if p == CHANCE or (p != trav and opt.sample_opp):  # one child, drawn on policy
                    probs = tree.chance_prob[c0:c0 + na] if p == CHANCE else F[SIG, d, :na]
                    a = pick(probs, uniform(key, ctr))  # (one pick and one descend: compiled once)
                    ctr += 1
                    kind[d] = PASS
                    node[d + 1] = c0 + a
                    descend(F, d, p, a, 1.0)  # (p = CHANCE < 0 for chance)
                    d += 1
                    continue
                cidx[d] = -1
            else:  # RETURN: ``ret`` is the value of the frame d that just finished
                if d == 0:
                    break
                d -= 1
                if kind[d] == PASS:
                    continue
                child_value(F, d, cidx[d], ret)
            # a FOLLOW frame at depth d: enter its next followed child, or leave it
            if enter_next(F, node, cidx, d, child_ptr, player):
                d += 1
                mode = ENTER
                continue
            n = node[d]
            na = child_ptr[n + 1] - child_ptr[n]
            if kind[d] & TRAV:
                lo = offset[infoset[n]]
                ret = leave_traverser(F, d, na, buf.r[lo:lo + na], buf.s[lo:lo + na], trav,
                                      num_players, opt.sample_opp, opt.scheme)
            else:
                ret = node_value(F, d, na)
            mode = RETURN
        end = po.closes(trav, j, sched, part, num_players)
        if end >= po.CHUNK_END:
            add_chunk(offset, buf, sums_row(tot, trav))
        if end >= po.PASS_END and sched.alternating:
            apply_increments(tree, trav, sums_row(tot, trav), tables, sched, lazy, rule_weight(sched.rule, t), t)
        if end == po.ITERATION_END and not sched.alternating:
            for i in range(num_players):
                apply_increments(tree, i, sums_row(tot, i), tables, sched, lazy, rule_weight(sched.rule, t), t)
        it, trav, j = po.advance(it, trav, j, end, part)
    return visited


# --------------------------------------------------------------------------------------------
# sparse chunk sums (parallel mini-batches: a worker's chunks travel as the infosets they touched)
# --------------------------------------------------------------------------------------------
@kernel
def take_chunk(offset, buf):
    """(touched infoset ids, their regret entries, their strategy entries) of one chunk; zero ``buf`` there.

    Ids keep the order ``buf`` touched them; entries follow the ids, ``offset[i]:offset[i+1]`` each.
    """
    n = buf.n[0]
    ids = buf.touched[:n].copy()
    seqs = infoset_sequences(offset, ids)
    r = buf.r[seqs]
    s = buf.s[seqs]
    buf.r[seqs] = 0.0
    buf.s[seqs] = 0.0
    for j in range(n):
        buf.flag[ids[j]] = 0
    buf.n[0] = 0
    return ids, r, s


@kernel
def add_sparse(offset, ids, r, s, tot):
    """tot += chunks given as ``take_chunk`` triples, concatenated in chunk order (``add_chunk``'s arithmetic)."""
    pos = 0
    for j in range(ids.shape[0]):
        i = ids[j]
        for q in range(offset[i], offset[i + 1]):
            tot.r[q] += r[pos]
            tot.s[q] += s[pos]
            pos += 1
        touch(i, tot)


@kernel
def infoset_sequences(offset, ids):
    """The sequence ids of the infosets ``ids``, in that order."""
    size = 0
    for j in range(ids.shape[0]):
        size += offset[ids[j] + 1] - offset[ids[j]]
    out = np.empty(size, dtype=np.int64)
    pos = 0
    for j in range(ids.shape[0]):
        for q in range(offset[ids[j]], offset[ids[j] + 1]):
            out[pos] = q
            pos += 1
    return out
