"""Cards of hold'em decks with ACPC conventions (as OpenSpiel's ``universal_poker``).

A deck of ``ranks * suits`` cards uses the lowest ranks (``ranks=6``: 2..7) and
the first suits in the order c d h s. Card id ``rank * suits + suit``; the
evaluator's absolute id is ``rank * 4 + suit``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

RANK_NAMES = "23456789TJQKA"
SUIT_NAMES = "cdhs"


def card_name(card: int, suits: int) -> str:
    """``"As"`` for the ace of spades of the full deck."""
    return RANK_NAMES[card // suits] + SUIT_NAMES[card % suits]


def cards_text(cards: tuple[int, ...] | list[int], suits: int) -> str:
    """Cards written high to low, e.g. ``"AsKd"`` (the order of a hand does not matter)."""
    return "".join(card_name(c, suits) for c in sorted(cards, reverse=True))


def parse_card(text: str, ranks: int, suits: int) -> int:
    """Inverse of ``card_name``; raises ``ValueError`` for a card not in the deck."""
    if len(text) != 2 or text[0].upper() not in RANK_NAMES or text[1].lower() not in SUIT_NAMES:
        raise ValueError(f"not a card: {text!r} (write rank then suit, e.g. As, Td, 7c)")
    rank, suit = RANK_NAMES.index(text[0].upper()), SUIT_NAMES.index(text[1].lower())
    if rank >= ranks or suit >= suits:
        raise ValueError(f"card {text!r} is not in a deck of {ranks} ranks and {suits} suits")
    return rank * suits + suit


def absolute_cards(suits: int) -> NDArray[np.int64]:
    """Map from a deck's card ids to the evaluator's absolute ids (``rank * 4 + suit``)."""
    ids = np.arange(13 * suits)
    return ((ids // suits) * 4 + ids % suits).astype(np.int64)
