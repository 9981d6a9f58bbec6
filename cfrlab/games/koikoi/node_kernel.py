"""One Koi-Koi round stepped one node at a time in numba, with the players' information states as 64-bit hashes.

Rules: those of ``Engine`` (koikoi-rules.md sec. 3-7) for every ``RuleSet`` option, through the arrays of
``kernels.kernel_rules``; the flow of a turn is ``round_kernel.play_round``'s, cut at each node so that a sampled
walk (Online Outcome Sampling, ``cfrlab.solvers.mccfr.oos_koikoi``) can choose every action and chance outcome.
The tests step it beside the engine, node for node, on every preset.

Specification in cfrlab:
* A position is two arrays: ``st`` (int64, indices ``S_*``: phase as the engine numbers it, oya, half-turn,
  pending card, the mover's score and yaku bits at the start of the turn, last riser, field brights, redeals,
  calls, the round's net for player 0) and ``cards`` (uint64 masks, ``C_*``: both hands, field, piles, stock).
* ``start`` sets the round's root (the first-oya coin or the deal); ``deal`` applies a deal given as masks
  (misdeals redeal, teyaku and a four-of-a-month field end the round, else the oya's first turn); ``step``
  applies a play, capture, draw or koi-koi decision; ``legal`` lists the actions in the engine's order.
* Information states: ``KoiKoiState.information_state_key`` of player p is p, the own dealt hands, and the
  public record (coin, misdealt and dealt fields, plays, captures, draws, calls). The same record, one token per
  entry (``token``), is absorbed into two independent 64-bit hashes per player (``absorb``): equal keys give
  equal hashes, and distinct keys collide with probability about 2^-64 per pair in each (``key_tokens`` reads
  the tokens off a key string, so a searcher's key and the walk's histories meet).
"""

from __future__ import annotations

import re

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi import cards as C
from cfrlab.games.koikoi.kernels import (
    DECIDE, DRAW, DRAW_CAPTURE, F_DRAW, F_FORCED, F_HALF_TURNS, F_LIMIT, F_MIN_POINTS, F_NEW_YAKU, F_NO_CALLS,
    F_OYA_KEN, KOIKOI, PLAY, PLAY_CAPTURE, STOP, _month, _pc, deal_result, misdeal, round_points, score,
    score_bits,
)
from cfrlab.games.koikoi.round_kernel import _lay

FIRST_OYA, DEAL, TERMINAL = 0, 1, 7
(S_PHASE, S_OYA, S_TURN, S_PENDING, S_S0, S_Y0, S_LAST, S_BRIGHTS, S_REDEALS, S_CALLS, S_NET, S_NEXT) = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12)
"""``S_NEXT``: at a terminal node, the dealer of the next round (``Engine._finish_round``'s ``next_oya``)."""
STATE_SIZE = 13
C_HANDS, C_FIELD, C_PILES, C_STOCK = 0, 2, 3, 5
CARDS_SIZE = 6
(T_COIN, T_MISDEAL_FIELD, T_MISDEAL_HAND, T_FIELD, T_HAND, T_PLAY, T_DRAW, T_CAPTURE, T_CALL) = range(1, 10)
"""Token kinds of the information-state record (``token``)."""
_BRIGHTS = np.uint64(C.BRIGHTS)
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)
_ONE = np.uint64(1)


@nb.njit(cache=True, inline="always")
def token(kind, value):
    """One entry of the information-state record: its kind in the top byte, its value (a card, a mask) below."""
    return (np.uint64(kind) << np.uint64(56)) | np.uint64(value)


@nb.njit(cache=True, inline="always")
def _fmix(z, a, b):
    z = (z ^ (z >> np.uint64(33))) * a
    z = (z ^ (z >> np.uint64(29))) * b
    return z ^ (z >> np.uint64(32))


@nb.njit(cache=True, inline="always")
def absorb(h, p, t):
    """Absorb token ``t`` into player ``p``'s two hashes ``h[p, 0]``, ``h[p, 1]`` (independent mixers)."""
    h[p, 0] = _fmix((h[p, 0] ^ t) * _K1 + _K2, np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53))
    h[p, 1] = _fmix((h[p, 1] + t) * _K2 ^ _K1, np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


@nb.njit(cache=True, inline="always")
def public(h, t):
    """A public record entry: both players absorb it."""
    absorb(h, 0, t)
    absorb(h, 1, t)


@nb.njit(cache=True)
def start(st, cards, h, oya, coin, deck):
    """The round's root: a first-oya coin (``coin``) or the deal with ``oya`` dealing; empty records."""
    st[:] = 0
    st[S_PHASE] = FIRST_OYA if coin else DEAL
    st[S_OYA] = 0 if coin else oya
    st[S_PENDING] = -1
    st[S_LAST] = -1
    cards[:] = 0
    cards[C_STOCK] = deck
    for p in range(2):
        h[p, 0] = np.uint64(p + 1) * _K1
        h[p, 1] = np.uint64(p + 1) * _K2


@nb.njit(cache=True)
def coin(st, h, a):
    """The first-oya coin shows ``a``."""
    st[S_OYA] = a
    st[S_PHASE] = DEAL
    public(h, token(T_COIN, a))


@nb.njit(cache=True, inline="always")
def legal(st, cards, out):
    """The legal actions (chance: the outcomes of a draw) in ascending order into ``out``; their number."""
    ph = st[S_PHASE]
    if ph == DECIDE:
        out[0], out[1] = STOP, KOIKOI
        return 2
    p = (st[S_OYA] + st[S_TURN]) & 1
    if ph == PLAY:
        m = cards[C_HANDS + p]
    elif ph == DRAW:
        m = cards[C_STOCK]
    else:
        m = cards[C_FIELD] & _month(st[S_PENDING])
    n = 0
    for c in range(48):
        if (m >> np.uint64(c)) & _ONE:
            out[n] = c
            n += 1
    return n


@nb.njit(cache=True)
def deal(st, cards, h, ko, field, oya_hand, F, P, M, month):
    """Apply a deal (``Engine.deal``): a misdeal redeals, a teyaku or a four-of-a-month field may end the round,
    else the oya's first turn. Records the deal (or the misdeal) in both players' hashes."""
    oya = st[S_OYA]
    if misdeal(ko, field, oya_hand, F):
        st[S_REDEALS] += 1
        public(h, token(T_MISDEAL_FIELD, field))
        absorb(h, oya, token(T_MISDEAL_HAND, oya_hand))
        absorb(h, 1 - oya, token(T_MISDEAL_HAND, ko))
        return
    public(h, token(T_FIELD, field))
    absorb(h, oya, token(T_HAND, oya_hand))
    absorb(h, 1 - oya, token(T_HAND, ko))
    cards[C_HANDS + oya], cards[C_HANDS + 1 - oya] = oya_hand, ko
    cards[C_FIELD] = field
    cards[C_STOCK] &= ~(ko | field | oya_hand)
    st[S_BRIGHTS] = _pc(field & _BRIGHTS)
    w, pts, _, nxt = deal_result(field, oya_hand, ko, F)
    if w != -2:  # the round ends at the deal (winner and next dealer relative to the oya: 0 oya, 1 ko)
        st[S_PHASE] = TERMINAL
        st[S_NEXT] = oya if nxt == 0 else 1 - oya
        if w >= 0 and pts:
            winner = oya if w == 0 else 1 - oya
            st[S_NET] = pts if winner == 0 else -pts
        return
    st[S_TURN] = 0
    st[S_PENDING] = -1
    st[S_PHASE] = PLAY
    s0, y0 = score_bits(cards[C_PILES + oya], field, month, 0, P, M)
    st[S_S0], st[S_Y0] = s0, y0


@nb.njit(cache=True, inline="always")
def _win(st, cards, p, F, P, M, month):
    base = score(cards[C_PILES + p], cards[C_FIELD], month, st[S_CALLS + p], P, M)
    pts = round_points(base, st[S_CALLS + p], st[S_CALLS + 1 - p], st[S_BRIGHTS], F)
    st[S_NET] = pts if p == 0 else -pts
    st[S_NEXT] = p
    st[S_PHASE] = TERMINAL


@nb.njit(cache=True, inline="always")
def _next_turn(st, cards, F, P, M, month):
    st[S_TURN] += 1
    if st[S_TURN] >= F[F_HALF_TURNS]:  # exhaustive draw
        mode, oya = F[F_DRAW], st[S_OYA]
        st[S_PHASE] = TERMINAL
        st[S_NEXT] = oya if 1 <= mode <= 3 else 1 - oya  # the dealer stays, or passes (the last riser: _win)
        if mode == 2 or mode == 3:
            pts = F[F_OYA_KEN] if mode == 2 else 1
            st[S_NET] = pts if oya == 0 else -pts
        elif mode == 4 and st[S_LAST] >= 0:
            _win(st, cards, st[S_LAST], F, P, M, month)
        return
    q = (st[S_OYA] + st[S_TURN]) & 1
    s0, y0 = score_bits(cards[C_PILES + q], cards[C_FIELD], month, st[S_CALLS + q], P, M)
    st[S_S0], st[S_Y0] = s0, y0
    st[S_PHASE] = PLAY


@nb.njit(cache=True, inline="always")
def _end_turn(st, cards, p, F, P, M, month):
    """After the mover's draw: a rise of their score asks STOP / KOI-KOI (or ends the round), else next turn."""
    s1, bits = score_bits(cards[C_PILES + p], cards[C_FIELD], month, st[S_CALLS + p], P, M)
    rose = (bits & ~st[S_Y0]) != 0 if F[F_NEW_YAKU] else s1 > st[S_S0]
    if rose and s1 > 0 and s1 >= F[F_MIN_POINTS]:
        st[S_LAST] = p
        if F[F_NO_CALLS] or (F[F_LIMIT] > 0 and st[S_CALLS] + st[S_CALLS + 1] >= F[F_LIMIT]) or (
                F[F_FORCED] and cards[C_HANDS + p] == 0):
            _win(st, cards, p, F, P, M, month)
            return
        st[S_PHASE] = DECIDE
        return
    _next_turn(st, cards, F, P, M, month)


@nb.njit(cache=True, inline="always")
def step(st, cards, h, a, F, P, M, month):
    """Apply action (or drawn card) ``a`` at a PLAY, capture, DRAW or DECIDE node (``Engine.step``); records it."""
    ph = st[S_PHASE]
    p = (st[S_OYA] + st[S_TURN]) & 1
    bit = _ONE << np.uint64(a) if a < 48 else np.uint64(0)
    if ph == PLAY:
        public(h, token(T_PLAY, a))
        cards[C_HANDS + p] &= ~bit
        if _pc(cards[C_FIELD] & _month(a)) == 2:
            st[S_PHASE], st[S_PENDING] = PLAY_CAPTURE, a
            return
        cards[C_FIELD], cards[C_PILES + p] = _lay(a, cards[C_FIELD], cards[C_PILES + p])
        st[S_PHASE] = DRAW
    elif ph == DRAW:
        public(h, token(T_DRAW, a))
        cards[C_STOCK] &= ~bit
        if _pc(cards[C_FIELD] & _month(a)) == 2:
            st[S_PHASE], st[S_PENDING] = DRAW_CAPTURE, a
            return
        cards[C_FIELD], cards[C_PILES + p] = _lay(a, cards[C_FIELD], cards[C_PILES + p])
        _end_turn(st, cards, p, F, P, M, month)
    elif ph == PLAY_CAPTURE or ph == DRAW_CAPTURE:
        public(h, token(T_CAPTURE, a))
        cards[C_FIELD] &= ~bit
        cards[C_PILES + p] |= bit | (_ONE << np.uint64(st[S_PENDING]))
        st[S_PENDING] = -1
        if ph == PLAY_CAPTURE:
            st[S_PHASE] = DRAW
        else:
            _end_turn(st, cards, p, F, P, M, month)
    else:  # DECIDE
        public(h, token(T_CALL, a))
        if a == STOP:
            _win(st, cards, p, F, P, M, month)
        else:
            st[S_CALLS + p] += 1
            _next_turn(st, cards, F, P, M, month)


_KEY = re.compile(r"o([01])|X([0-9a-f]+)|\|F([0-9a-f]+)|([PDC])(\d+)|(K)|(S)")
_EVENT = {"P": T_PLAY, "D": T_DRAW, "C": T_CAPTURE}


def key_tokens(key: str) -> tuple[int, NDArray[np.uint64]]:
    """(player, record tokens) of a single round's information-state key, in the order the walk absorbs them;
    ``ValueError`` for a string that is not such a key."""
    try:
        owner, private, record = key.split("|", 2)
        player = int(owner)
        hands = re.findall(r"([xH])([0-9a-f]+)", private)
        matches = list(_KEY.finditer(record))
        if player not in (0, 1) or "".join(m.group(0) for m in matches) != record or \
                "".join(k + v for k, v in hands) != private:
            raise ValueError
    except ValueError:
        raise ValueError(f"{key!r} is not the information-state key of a single Koi-Koi round") from None
    tokens, deals = [], iter(hands)
    for m in matches:
        if m.group(1):
            tokens.append(token(T_COIN, int(m.group(1))))
        elif m.group(2) or m.group(3):
            misdealt = bool(m.group(2))
            kind, hand = next(deals, ("", ""))
            if (kind == "x") != misdealt or not hand:
                raise ValueError(f"{key!r} is not the information-state key of a single Koi-Koi round")
            tokens.append(token(T_MISDEAL_FIELD if misdealt else T_FIELD, int(m.group(2) or m.group(3), 16)))
            tokens.append(token(T_MISDEAL_HAND if misdealt else T_HAND, int(hand, 16)))
        elif m.group(4):
            tokens.append(token(_EVENT[m.group(4)], int(m.group(5))))
        else:
            tokens.append(token(T_CALL, KOIKOI if m.group(6) else STOP))
    return player, np.array(tokens, dtype=np.uint64)


@nb.njit(cache=True)
def hash_tokens(player, tokens):
    """The two hashes of player ``player``'s record ``tokens`` (what the walk computes along the history)."""
    h = np.zeros((2, 2), dtype=np.uint64)
    h[player, 0] = np.uint64(player + 1) * _K1
    h[player, 1] = np.uint64(player + 1) * _K2
    for t in tokens:
        absorb(h, player, t)
    return h[player, 0], h[player, 1]


def key_hash(key: str) -> tuple[int, int, int]:
    """(player, hash, check hash) of an information-state key (``key_tokens``, ``hash_tokens``)."""
    player, tokens = key_tokens(key)
    h1, h2 = hash_tokens(player, tokens)
    return player, int(h1), int(h2)
