"""Playouts that follow a learned policy, in numba: the search's continuation played by the network.

Method: the loop of ``rules.playout.play_on`` (every step ``flow.advance``), but at each decision with two or more
legal actions the mover plays by the network (``act.choose``, no exploration) over ``features.encode`` of the
position seen by that seat: its own hand, the field, both piles, the calls, never the other seat's hand or the
stock (the determinization's hidden cards reach the choice only through the moves that led there, as in
``learn.rollout``'s self-play). A Q file (``head`` ``HEAD_Q``) plays its largest action value, a policy file draws
from its softmax by the uniform ``u[k]`` (``u[k + 1]``, the exploration draw, unused): two uniforms a decision, as
the other playout policies take. A learned playout policy in place of a hand-made one is the lever of Long et al.
2010 and of AlphaGo's rollouts (Silver et al. 2016).

Kept apart from ``rules.playout_policy``'s kinds (uniform, greedy, tuned): those are game-layer rules that cannot
read a network, and their kernels stay as they were, draw for draw.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.neural.act import choose
from cfrlab.games.koikoi.neural.features import MAX_ACTIVE
from cfrlab.games.koikoi.rules.flow import TERMINAL, advance
from cfrlab.games.koikoi.rules.kernels import DECIDE, DRAW, KOIKOI, PLAY, STOP, month_mask, popcount

_ONE = np.uint64(1)


class Scratch(NamedTuple):
    """Buffers of one playout loop: feature indices, legal actions, their probabilities, the network's heads."""

    idx: NDArray[np.int32]
    legal: NDArray[np.int64]
    probs: NDArray[np.float64]
    value: NDArray[np.float32]
    logits: NDArray[np.float32]


@nb.njit(cache=True)
def new_scratch():
    """Fresh ``Scratch`` buffers."""
    return Scratch(np.empty(MAX_ACTIVE, dtype=np.int32), np.empty(48, dtype=np.int64),
                   np.empty(48, dtype=np.float64), np.empty(2, dtype=np.float32), np.empty(50, dtype=np.float32))


@nb.njit(cache=True, inline="always")
def legal_of(pos, out) -> int:
    """The legal actions of the decision at ``pos`` in ascending order into ``out`` (``flow.legal``); their number."""
    if pos.phase == DECIDE:
        out[0], out[1] = STOP, KOIKOI
        return 2
    p = (pos.oya + pos.turn) & 1
    m = (pos.hand0 if p == 0 else pos.hand1) if pos.phase == PLAY else pos.field & month_mask(pos.pending)
    n = 0
    while m:
        low = m & (~m + _ONE)
        out[n] = popcount(low - _ONE)
        n += 1
        m ^= low
    return n


@nb.njit(cache=True)
def net_play_on(pos, d, k, order, u, kr, until, w, head, player, round_index, lead, table, s):
    """Play on from ``pos`` (module docstring) until the round ends or half-turn ``until`` starts; draws from
    ``order[d:]``, uniforms from ``u[k:]`` (two a decision with a choice). ``round_index``, ``lead`` (``player``'s
    match total minus the other's): the features' match context; ``table``: the ``match.WinTable`` of a match
    file's values (``act.scores``). Returns (position, d, k)."""
    while pos.phase != TERMINAL and not (pos.phase == PLAY and pos.turn >= until):
        if pos.phase == DRAW:
            a = np.int64(order[d])
            d += 1
        else:
            m = legal_of(pos, s.legal)
            a = s.legal[0]
            if m > 1:
                seat = (pos.oya + pos.turn) & 1
                mine = lead if seat == player else -lead
                pick = choose(w, head, pos, seat, round_index, mine, kr, table, s.legal, m, 0.0, u[k], u[k + 1], s.idx,
                              s.probs, s.value, s.logits)[0]
                k += 2
                a = s.legal[pick]
        pos = advance(pos, a, kr)
    return pos, d, k
