"""The players' information states along Koi-Koi's numba round flow, as two 64-bit hashes each.

Online Outcome Sampling's round walk (``cfrlab.games.koikoi.solvers.oos_walk``) steps rounds with ``flow`` through the
wrappers here (``start``, ``coin``, ``deal``, ``step``), which also record every entry of the players' information
state. The tests step them beside the engine, node for node, on every preset, and compare the hashes with the keys.

Specification in cfrlab: ``KoiKoiState.information_state_key`` of player p is p, the own dealt hands, and the public
record (coin, misdealt and dealt fields, plays, captures, draws, calls). The same record, one token per entry
(``token``), is absorbed into two independent 64-bit hashes per player (``absorb``; ``h`` of shape (2, 2)): equal
keys give equal hashes, and distinct keys collide with probability about 2^-64 per pair in each (``key_tokens``
reads the tokens off a key string, so a searcher's key and the walk's histories meet).
"""

from __future__ import annotations

import re

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules.flow import DECIDE, DRAW, PLAY, S_OYA, S_PHASE
from cfrlab.games.koikoi.rules.kernels import KOIKOI, STOP

(T_COIN, T_MISDEAL_FIELD, T_MISDEAL_HAND, T_FIELD, T_HAND, T_PLAY, T_DRAW, T_CAPTURE, T_CALL) = range(1, 10)
"""Token kinds of the information-state record (``token``)."""
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)


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
def start(st, cards, h, oya, coin, month, deck):
    """The round's root (``flow.begin``) and both players' empty records."""
    flow.begin(st, cards, oya, coin, month, deck)
    for p in range(2):
        h[p, 0] = np.uint64(p + 1) * _K1
        h[p, 1] = np.uint64(p + 1) * _K2


@nb.njit(cache=True)
def coin(st, h, a):
    """The first-oya coin shows ``a`` (``flow.coin``), recorded."""
    flow.coin(st, a)
    public(h, token(T_COIN, a))


@nb.njit(cache=True)
def deal(st, cards, h, ko, field, oya_hand, kr):
    """Apply a deal (``flow.deal``) and record it, or the misdeal, in both players' hashes."""
    oya = st[S_OYA]
    if flow.deal(st, cards, ko, field, oya_hand, kr):
        public(h, token(T_FIELD, field))
        absorb(h, oya, token(T_HAND, oya_hand))
        absorb(h, 1 - oya, token(T_HAND, ko))
    else:
        public(h, token(T_MISDEAL_FIELD, field))
        absorb(h, oya, token(T_MISDEAL_HAND, oya_hand))
        absorb(h, 1 - oya, token(T_MISDEAL_HAND, ko))


@nb.njit(cache=True, inline="always")
def step(st, cards, h, a, kr):
    """Apply action (or drawn card) ``a`` (``flow.step``) and record it, public in both players' hashes."""
    ph = st[S_PHASE]
    kind = T_PLAY if ph == PLAY else T_DRAW if ph == DRAW else T_CALL if ph == DECIDE else T_CAPTURE
    public(h, token(kind, a))
    flow.step(st, cards, a, kr)


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
