"""The network beyond OOS's stored tree (``oos_walk``): its value where a pass stops, its policy where it plays on.

Both read ``neural.features.encode`` of the position seen by the seat to move (its own hand, never the other seat's
or the stock) with no match context (OOS values a round's points): the value head's expected points for that seat
(``Round.cut``), or the action head's policy (``neural.act.policy_of``: a Q file's largest value, a policy file's
softmax) in place of the uniform playout policy (``Round.follow``), the learned continuation of MCTS's rollouts
(Silver et al. 2016).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.games.koikoi.neural.act import policy_of
from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, encode
from cfrlab.games.koikoi.neural.infer import value
from cfrlab.games.koikoi.neural.weights import NetWeights
from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules.match import WinTable

NO_NET = NetWeights(*(np.zeros((0,) * k, dtype=np.float32) for k in (2, 1, 2, 1, 2, 1, 2, 1)))
"""The network of a walk that plays beyond its tree uniformly (``Round.cut`` off, ``Round.follow`` -1)."""


@njit(cache=True)
def leaf_value(net, st, cards, p):
    """Seat 0's net points at the position of ``st``, ``cards`` by the network: its value for the mover ``p``."""
    idx = np.empty(MAX_ACTIVE, dtype=np.int32)
    v = value(net, idx, encode(flow.load(st, cards), p, np.int64(0), np.int64(0), idx))
    return v if p == 0 else -v


@njit(cache=True)
def net_policy(net, head, st, cards, p, acts, na, kr, win, out):
    """``out[:na]``: the network's policy (head code ``head``) over the legal actions ``acts[:na]`` of the mover
    ``p`` at the position of ``st``, ``cards`` (``kr``: the rules, for an afterstate file; ``win``: any float64
    array of three dimensions, since a file trained for the match, which would read it, is never followed:
    ``players.guided`` refuses it)."""
    policy_of(net, head, flow.load(st, cards), p, np.int64(0), np.int64(0), kr, WinTable(win, 0, -1, 0, 1), acts, na,
              np.empty(MAX_ACTIVE, dtype=np.int32), out, np.empty(2, dtype=np.float32), np.empty(50, dtype=np.float32))
