"""Fixed-size information-state tensor for neural methods (koikoi-rules.md sec. 7, "Observation tensor").

Specification in cfrlab: one float32 vector of ``TENSOR_SIZE`` = 7 * 48 + 24, written into a preallocated buffer
through named views (OpenSpiel's observer style). Layout, from the viewpoint of ``player``:

| slice | meaning |
|---|---|
| planes[0] (0-47) | own hand |
| planes[1] (48-95) | field |
| planes[2] | own capture pile |
| planes[3] | opponent's capture pile |
| planes[4] | unseen cards: deck cards not in the above (opponent hand and draw pile together) |
| planes[5] | pending card (played or drawn card waiting for its capture choice) |
| planes[6] | capture candidates of the pending card |
| scalars[0:8] | phase one-hot (FIRST_OYA..TERMINAL) |
| scalars[8] | half-turn / 16 |
| scalars[9] | 1 if player is the oya |
| scalars[10], [11] | own, opponent koi-koi calls this round |
| scalars[12], [13] | own, opponent base score / 10 |
| scalars[14] | round index / rounds |
| scalars[15] | (own total - opponent total) / 50 |
| scalars[16] | opponent hand size / 8 |
| scalars[17] | draw pile size / 24 |
| scalars[18] | 1 if it is ``player``'s turn to act |
| scalars[19:24] | reserved (zero) |

It never contains the opponent's hand: that stays inside the "unseen" plane with the draw pile.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.rules.engine import DECIDE, DRAW, PLAY, TERMINAL, Engine, EngineState

NUM_PLANES = 7
NUM_SCALARS = 24
TENSOR_SIZE = NUM_PLANES * 48 + NUM_SCALARS
_BITS = np.arange(48, dtype=np.uint64)


def _plane(mask: int) -> NDArray[np.float32]:
    return ((np.uint64(mask) >> _BITS) & np.uint64(1)).astype(np.float32)


def information_state_tensor(engine: Engine, s: EngineState, player: int) -> NDArray[np.float32]:
    """The tensor of ``s`` seen by ``player`` (layout in the module docstring)."""
    buf = np.zeros(TENSOR_SIZE, dtype=np.float32)
    planes = buf[: NUM_PLANES * 48].reshape(NUM_PLANES, 48)
    scalars = buf[NUM_PLANES * 48:]
    opp = 1 - player
    hand, field, own, other = s.hands[player], s.field, s.piles[player], s.piles[opp]
    planes[0] = _plane(hand)
    planes[1] = _plane(field)
    planes[2] = _plane(own)
    planes[3] = _plane(other)
    seen = hand | field | own | other | ((1 << s.pending) if s.pending >= 0 else 0)
    planes[4] = _plane(engine.deck & ~seen)
    if s.pending >= 0:
        planes[5, s.pending] = 1.0
        planes[6] = _plane(field & (0xF << (4 * (s.pending // 4))))
    scalars[s.phase] = 1.0
    scalars[8] = s.turn / 16.0
    scalars[9] = float(s.oya == player)
    scalars[10], scalars[11] = s.calls[player], s.calls[opp]
    if s.phase in (PLAY, DRAW, DECIDE, TERMINAL) or s.pending >= 0:
        scalars[12] = engine.score(s, player) / 10.0
        scalars[13] = engine.score(s, opp) / 10.0
    scalars[14] = s.round / engine.rules.rounds
    scalars[15] = (s.totals[player] - s.totals[opp]) / 50.0
    scalars[16] = s.hands[opp].bit_count() / 8.0
    scalars[17] = s.stock.bit_count() / 24.0
    scalars[18] = float(s.phase not in (DRAW, TERMINAL) and s.phase > 1 and engine.mover(s) == player)
    return buf
