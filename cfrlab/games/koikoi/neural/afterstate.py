"""Afterstate values of a Koi-Koi position: each legal action's deterministic result, valued by the network.

Method: an action's afterstate is the position right after it, before the next chance event (the draw from the
stock) or the opponent's decision (Sutton and Barto 2018, sec. 6.8; Tesauro 1995, TD-Gammon). Every Koi-Koi action
has one: a card played from the hand (its capture made, the draw still to come), a capture choice, KOI-KOI (the
opponent to play) and STOP (the round over: the mover's points are known exactly). The learned value of the
afterstate, seen by the mover (``features.encode``: what the mover knows, never the opponent's hand or the stock),
is the action's value: the policy plays the legal action of the largest one. The afterstate is a function of the
mover's information set alone (``flow.advance`` of a position with the opponent's hand empty gives it), so the
policy is one of the information set. A file trained for the match (``--objective match``) values afterstates
by the mover's match-win probability instead of the round's points (its round index and lead in the features).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cfrlab.games.koikoi.neural.features import encode
from cfrlab.games.koikoi.neural.infer import value
from cfrlab.games.koikoi.rules.flow import TERMINAL, advance
from cfrlab.games.koikoi.rules.match import win_after_round


@nb.njit(cache=True)
def terminal_points(pos, seat) -> float:
    """``seat``'s points at the terminal position ``pos`` (0 drawn)."""
    if pos.winner < 0:
        return 0.0
    return float(pos.points) if pos.winner == seat else -float(pos.points)


@nb.njit(cache=True)
def afterstate_values(w, pos, seat, round_index, lead, legal, m, kr, idx, out, table, match) -> None:
    """``out[:m]``: the value for ``seat`` (the mover of ``pos``) of each legal action ``legal[:m]``: the exact
    points where it ends the round, else the network's value of its afterstate (``idx``: scratch of
    ``features.MAX_ACTIVE``). ``match``: the match-win probability instead (a file trained with ``--objective
    match``): the ``WinTable`` ``table``'s exact one where the action ends the round (``match.win_after_round``),
    else the sigmoid of the network's second value output, the logit of the mover winning the match."""
    for j in range(m):
        nxt = advance(pos, legal[j], kr)
        if nxt.phase == TERMINAL:
            gain = terminal_points(nxt, seat)
            out[j] = win_after_round(table, round_index, lead, gain, nxt.next_oya == seat) if match else gain
        elif match:
            out[j] = 1.0 / (1.0 + np.exp(-value(w, idx, encode(nxt, seat, round_index, lead, idx), 1)))
        else:
            out[j] = value(w, idx, encode(nxt, seat, round_index, lead, idx))
