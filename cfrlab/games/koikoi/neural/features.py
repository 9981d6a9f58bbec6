"""Sparse binary features of a Koi-Koi position seen by one seat: the input of the learned evaluator.

NNUE style (Nasu 2018, as Stockfish evaluates on CPUs): a position is the list of its active feature indices, and
the network's first layer is the sum of those features' weight columns. ``encode`` runs in numba over a
``flow.Position`` (the search's cut playouts call it); ``encode_state`` gives the same from a Python engine state
(the flow position of what the player knows, as ``information.root_position(information.information(...))``
builds it; the tests hold the three equal).

Information-state only: the features never read the opponent's hand or the stock (they are only the complement of
what is seen), so every determinization of one information state has the same features. They do not read the
rules either (the same function serves every ``RuleSet``): yaku progress enters as card counts per category and
the mover's base score at the start of the turn (``S_S0``, scored by the flow under the game's rules).

Layout (offset: size, feature), ``seat`` is "own", the other seat "opponent"; one-hot groups clip at their last
entry ("3+"):

* 0: 48 own hand; 48: 48 field; 96: 48 own pile; 144: 48 opponent's pile; 192: 48 the pending card of a capture
  choice (card id = 4 * (month - 1) + k, ``cards``).
* 240: 5 phase (PLAY, PLAY_CAPTURE, DRAW, DRAW_CAPTURE, DECIDE).
* 245: 1 own seat is the oya (dealer).
* 246: 16 half-turn 0..15+.
* 262: 4 own koi-koi calls 0..3+; 266: 4 opponent's calls 0..3+.
* 270: 11 base score 0..10+ of the player to move at the start of the turn.
* 281: 29 own pile's counts: brights 0..5 (6), animals 0..5+ (6), ribbons 0..5+ (6), chaff 0..10+ (11);
  310: 29 the same of the opponent's pile.
* 339: 3 brights dealt to the field 0..2+ (the bright multiplier option).
* 342: 3 last yaku maker: none, own, opponent.
* 345: 12 the round's month 1..12.
* 357: 12 round index 0..11+ of a match (0 for single rounds).
* 369: 11 lead (own match total minus the opponent's; 0 for single rounds) in buckets <=-30, -29..-16, -15..-8,
  -7..-4, -3..-1, 0, 1..3, 4..7, 8..15, 16..29, >=30.

``NUM_FEATURES`` = 380. At most 48 card features are active (each card is in at most one plane) and one feature of
each of the 19 other one-hot entries, so ``MAX_ACTIVE`` = 72 bounds every position of every rule set (the nintendo
deck leaves at least 8 cards in the stock: 59 there).
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.flow import Position
from cfrlab.games.koikoi.rules.kernels import PLAY, popcount

HAND, FIELD, PILE, OPP_PILE, PENDING = 0, 48, 96, 144, 192
PHASE, OYA, TURN, CALLS, OPP_CALLS, SCORE = 240, 245, 246, 262, 266, 270
COUNTS, OPP_COUNTS, FIELD_BRIGHTS, LAST, MONTH, ROUND, LEAD = 281, 310, 339, 342, 345, 357, 369
NUM_FEATURES = 380
MAX_ACTIVE = 72
GROUPS = (("hand", HAND, 48), ("field", FIELD, 48), ("pile", PILE, 48), ("opp_pile", OPP_PILE, 48),
          ("pending", PENDING, 48), ("phase", PHASE, 5), ("oya", OYA, 1), ("turn", TURN, 16), ("calls", CALLS, 4),
          ("opp_calls", OPP_CALLS, 4), ("score", SCORE, 11), ("counts", COUNTS, 29), ("opp_counts", OPP_COUNTS, 29),
          ("field_brights", FIELD_BRIGHTS, 3), ("last", LAST, 3), ("month", MONTH, 12), ("round", ROUND, 12),
          ("lead", LEAD, 11))
"""(name, offset, size) of each group, in index order."""

_KIND_MASKS = np.array([C.BRIGHTS, C.ANIMALS, C.RIBBONS, C.CHAFF_CARDS], dtype=np.uint64)
_KIND_OFFSETS = np.array([0, 6, 12, 18], dtype=np.int64)
_KIND_TOPS = np.array([5, 5, 5, 10], dtype=np.int64)
_LEAD_UPPER = np.array([-30, -16, -8, -4, -1, 0, 3, 7, 15, 29], dtype=np.int64)
"""Bucket i holds the leads <= _LEAD_UPPER[i] above the previous bound; the last bucket the rest."""
_ONE = np.uint64(1)
_DECISIONS = (E.PLAY, E.PLAY_CAPTURE, E.DRAW_CAPTURE, E.DECIDE)


@nb.njit(cache=True, inline="always")
def _cards(mask, offset, out, n) -> int:
    """The card features of ``mask`` (ascending card ids) at ``offset``."""
    m = mask
    while m:
        low = m & (~m + _ONE)
        out[n] = offset + popcount(low - _ONE)
        n += 1
        m ^= low
    return n


@nb.njit(cache=True, inline="always")
def _counts(pile, offset, out, n) -> int:
    for k in range(4):
        out[n] = offset + _KIND_OFFSETS[k] + min(popcount(pile & _KIND_MASKS[k]), _KIND_TOPS[k])
        n += 1
    return n


@nb.njit(cache=True)
def encode(pos, seat, round_index, lead, out) -> int:
    """The active features of ``pos`` (a ``flow.Position``) seen by ``seat`` (module docstring) into ``out[:n]``,
    ascending and unique; returns n (at most ``MAX_ACTIVE``). ``round_index``: the round of a match (0 for single
    rounds); ``lead``: ``seat``'s match total minus the opponent's (0 for single rounds)."""
    own = seat == 0
    hand = pos.hand0 if own else pos.hand1
    pile, opp_pile = (pos.pile0, pos.pile1) if own else (pos.pile1, pos.pile0)
    calls, opp_calls = (pos.calls0, pos.calls1) if own else (pos.calls1, pos.calls0)
    n = _cards(hand, HAND, out, 0)
    n = _cards(pos.field, FIELD, out, n)
    n = _cards(pile, PILE, out, n)
    n = _cards(opp_pile, OPP_PILE, out, n)
    if pos.pending >= 0:
        out[n] = PENDING + pos.pending
        n += 1
    out[n] = PHASE + pos.phase - PLAY
    n += 1
    if pos.oya == seat:
        out[n] = OYA
        n += 1
    out[n], out[n + 1] = TURN + min(pos.turn, 15), CALLS + min(calls, 3)
    out[n + 2], out[n + 3] = OPP_CALLS + min(opp_calls, 3), SCORE + min(pos.s0, 10)
    n = _counts(pile, COUNTS, out, n + 4)
    n = _counts(opp_pile, OPP_COUNTS, out, n)
    last = 0 if pos.last < 0 else 1 if pos.last == seat else 2
    bucket = 0
    while bucket < _LEAD_UPPER.shape[0] and lead > _LEAD_UPPER[bucket]:
        bucket += 1
    out[n], out[n + 1], out[n + 2] = FIELD_BRIGHTS + min(pos.brights, 2), LAST + last, MONTH + pos.month - 1
    out[n + 3], out[n + 4] = ROUND + min(round_index, 11), LEAD + bucket
    return n + 5


def encode_state(engine, es, player: int) -> NDArray[np.int32]:  # an Engine and its EngineState
    """``encode`` of engine state ``es`` seen by ``player``, who acts there: the flow position of what ``player``
    knows (the opponent's hand and the stock empty). Match round and lead from the state's round and totals."""
    if es.phase not in _DECISIONS or engine.mover(es) != player:
        raise ValueError(f"player {player} has no decision in phase {E.PHASE_NAMES[es.phase]}")
    return _seen(engine, es, player)


def _seen(engine, es, player: int) -> NDArray[np.int32]:  # an Engine and its EngineState
    """``encode`` of decision-phase state ``es`` seen by ``player``, whoever moves."""
    hands = (es.hands[0], 0) if player == 0 else (0, es.hands[1])
    masks = [np.uint64(m) for m in (*hands, es.field, *es.piles, 0)]
    pos = Position(es.phase, es.oya, es.turn, es.pending, es.s0, 0, es.last_riser, es.field_brights, es.calls[0],
                   es.calls[1], engine.round_month(es), -1, 0, 0, 0, *masks)
    out = np.empty(MAX_ACTIVE, dtype=np.int32)
    n = encode(pos, player, es.round, es.totals[player] - es.totals[1 - player], out)
    return out[:n].copy()


class FeatureObservation:
    """The features as the observation of the environments (``cfrlab.envs``, the family's ``observation``):
    ``NUM_FEATURES`` entries, 1 at each active feature of ``player``'s view, whether or not ``player`` moves; all
    zeros where nobody decides (the end of the game)."""

    name = "features"
    size = NUM_FEATURES
    low, high = 0.0, 1.0

    def __init__(self, game: object) -> None:
        self.game = game

    def encode(self, state, player: int) -> NDArray[np.float32]:  # a KoiKoiState
        out = np.zeros(NUM_FEATURES, dtype=np.float32)
        if state.es.phase in _DECISIONS:
            out[_seen(state.game.engine, state.es, player)] = 1.0
        return out


def describe(indices: NDArray[np.integer]) -> dict[str, list[int]]:
    """The active entries of each group (index minus the group's offset): a readable form for tests and debugging."""
    found: dict[str, list[int]] = {name: [] for name, _, _ in GROUPS}
    for i in np.asarray(indices).tolist():
        for name, offset, size in GROUPS:
            if offset <= i < offset + size:
                found[name].append(i - offset)
                break
        else:
            raise ValueError(f"feature index {i} is outside 0..{NUM_FEATURES - 1}")
    return found


__all__ = ["GROUPS", "FeatureObservation", "MAX_ACTIVE", "NUM_FEATURES", "describe", "encode", "encode_state"]
