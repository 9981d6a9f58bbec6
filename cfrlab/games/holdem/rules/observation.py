"""Hold'em's observation tensor for the environments (``cfrlab.envs``, the family's ``observation``).

What a seat knows, as OpenSpiel's ``universal_poker`` lays its information state out, with the board kept by
round (as the information-state key keeps it). With ``D`` = ranks x suits cards, ``R`` rounds and
``L_r = max_raises[r] + 2`` (the longest betting round: a check, every raise, a call):

=====================================  ==========================================================
entries                                meaning
=====================================  ==========================================================
0 .. 1                                 the observing seat, one-hot
2 .. 2+D-1                             own private cards
2+D + r*D .. 2+D + (r+1)*D - 1         the board cards dealt before round r
then, round by round, 3 per action     action k of round r: fold, check/call, raise (one-hot)
=====================================  ==========================================================

Size ``2 + D + R*D + 3 * sum(L_r)``: 343 for the full game. Every entry is 0 or 1; the key and this tensor
determine each other (perfect recall).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from cfrlab.games.holdem.rules.game import NUM_PLAYERS, HoldemState, LimitHoldem


class HoldemObservation:
    """``encode(state, player)``: the layout of the module docstring."""

    name = "cards-and-betting"
    low, high = 0.0, 1.0

    def __init__(self, game: LimitHoldem) -> None:
        self.deck = game.deck_size
        self.rounds = game.num_rounds
        self.longest = [m + 2 for m in game.max_raises]
        self.betting = NUM_PLAYERS + self.deck * (1 + self.rounds)
        self.starts = [self.betting + 3 * sum(self.longest[:r]) for r in range(self.rounds)]
        self.size = self.betting + 3 * sum(self.longest)

    def encode(self, state: HoldemState, player: int) -> NDArray[np.float32]:
        out = np.zeros(self.size, dtype=np.float32)
        out[player] = 1.0
        out[[NUM_PLAYERS + c for c in state.hole(player)]] = 1.0
        for r, board in enumerate(state.board_by_round()):
            out[[NUM_PLAYERS + self.deck * (1 + r) + c for c in board]] = 1.0
        for r, seq in enumerate(state.rounds):
            out[[self.starts[r] + 3 * k + a for k, a in enumerate(seq)]] = 1.0
        return out


def observation(game: object) -> HoldemObservation | None:
    """The family's ``observation``: this layout for the real game and its suit quotient; None for an abstract
    game (``holdem_ehs2``, whose states hold buckets, not cards: the environments then encode its keys)."""
    return HoldemObservation(game) if isinstance(game, LimitHoldem) else None
