"""The order of the compiled sampled walks' traversals, shared by ``tree_walk.iterate_tree`` and
``cfrlab.solvers.oos.tree_walk.oos_iterate`` (numba).

Iterations in turn; in each, the traversers in turn; in each traverser's pass, traversals j = 0 .. batch-1,
keyed ``stream_key(pass_keys[it, trav], j)`` and summed by chunks of ``sched.chunk`` (seed 000 sec. 6.8's
mini-batch, in the generic walker's order). With a ``part`` (i, start, stop), i >= 0: traversals
start..stop-1 of traverser i's pass ``pass_keys[0, i]`` alone (``tree_walk.run_chunk``).

A kernel walks this order with a cursor (it, trav, j): ``first_traversal``, then after each traversal
``closes`` (which sums the traversal closes) and ``advance``. Each kernel writes only its traversal and what
it does with closed sums, so the loop exists once; the helpers inline (no call per traversal), and the cursor
steps by comparisons, not divisions, but for the chunk test.
"""

from __future__ import annotations

import numpy as np

from cfrlab.jit_timing import kernel

CHUNK_END = 1
"""The traversal closes a chunk: its sums join the traverser's row (``tree_walk.add_chunk``)."""
PASS_END = 2
"""It closes a chunk and the traverser's pass (an alternating schedule updates the tables)."""
ITERATION_END = 3
"""It closes a chunk, a pass and the iteration (a simultaneous schedule updates the tables)."""


@kernel(inline="always")
def iterations(pass_keys, part):
    """How many iterations the loop runs: one row of ``pass_keys`` each, or one with a ``part``."""
    return pass_keys.shape[0] if part[0] < 0 else 1


@kernel(inline="always")
def first_traversal(part):
    """The cursor (it, trav, j) of the first traversal; ``it`` is already past the end when a ``part`` is
    empty."""
    if part[0] < 0:
        return np.int64(0), np.int64(0), np.int64(0)
    return np.int64(0 if part[1] < part[2] else 1), np.int64(part[0]), np.int64(part[1])


@kernel(inline="always")
def closes(trav, j, sched, part, num_players):
    """What traversal (trav, j) closes: 0, ``CHUNK_END``, ``PASS_END`` or ``ITERATION_END`` (0 with a ``part``:
    its caller takes the sums)."""
    if part[0] >= 0:
        return 0
    if j + 1 == sched.batch:
        return ITERATION_END if trav + 1 == num_players else PASS_END
    return CHUNK_END if (j + 1) % sched.chunk == 0 else 0


@kernel(inline="always")
def advance(it, trav, j, end, part):
    """The cursor after traversal (it, trav, j), which closed ``end``."""
    if part[0] >= 0:
        return (it + 1 if j + 1 == part[2] else it), trav, j + 1
    if end == ITERATION_END:
        return it + 1, np.int64(0), np.int64(0)
    if end == PASS_END:
        return it, trav + 1, np.int64(0)
    return it, trav, j + 1
