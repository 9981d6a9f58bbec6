"""Shared helpers for the Koi-Koi tests: positions built by hand and random playouts."""

from __future__ import annotations

import numpy as np

from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.cards import mask_of


def position(
    eng: E.Engine,
    *,
    hands: tuple[list[int], list[int]],
    field: list[int],
    piles: tuple[list[int], list[int]] = ([], []),
    stock: list[int] | None = None,
    turn: int = 0,
    oya: int = 0,
    calls: tuple[int, int] = (0, 0),
) -> E.EngineState:
    """A PLAY-phase state with the given cards; the stock defaults to every card not placed."""
    h = (mask_of(hands[0]), mask_of(hands[1]))
    p = (mask_of(piles[0]), mask_of(piles[1]))
    f = mask_of(field)
    st = mask_of(stock) if stock is not None else eng.deck & ~(h[0] | h[1] | p[0] | p[1] | f)
    s = eng.initial_state()._replace(phase=E.PLAY, oya=oya, turn=turn, hands=h, field=f, piles=p, stock=st,
                                     calls=calls)
    return eng.turn_start(s)


def random_playout(eng: E.Engine, rng: np.random.Generator, koikoi_prob: float = 0.0,
                   record: list[int] | None = None) -> E.EngineState:
    """Uniform random cards and captures; STOP unless a coin with ``koikoi_prob`` says KOI-KOI."""
    s = eng.initial_state()
    while s.phase != E.TERMINAL:
        if s.phase in E.CHANCE_PHASES:
            a = eng.sample_chance(s, rng)
        elif s.phase == E.DECIDE:
            a = E.KOIKOI if rng.random() < koikoi_prob else E.STOP
        else:
            legal = eng.legal_actions(s)
            a = legal[int(rng.integers(len(legal)))]
        if record is not None:
            record.append(a)
        s = eng.step(s, a)
    return s
