"""Kuhn poker's and Leduc hold'em's player views for the web page and the terminal (``cfrlab.web.poker_views``)."""

from __future__ import annotations

from typing import Any

from cfrlab.game import Game
from cfrlab.web.poker_views import PokerView
from cfrlab.web.view_base import UnsupportedGameError


class KuhnView(PokerView):
    """Kuhn poker (2 players): one private card each, ante 1, one bet of 1."""

    family = "kuhn"
    display_name = "Kuhn poker"

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        if game.num_players != 2:
            raise UnsupportedGameError(
                f"the web page plays 2-player games; {game.spec()} has {game.num_players} players "
                "(use plain 'kuhn')"
            )

    def _card(self, card: int) -> dict[str, Any]:
        from cfrlab.games.kuhn import card_name

        return {"name": card_name(card, self.game.num_players + 1), "suit": None}

    def _private(self, state: Any) -> tuple[int, ...]:
        return state.cards

    def _public(self, state: Any) -> list[int]:
        return []

    def _stakes(self, state: Any) -> list[float]:
        from cfrlab.games.kuhn import BET

        stakes = [1.0, 1.0]
        for i, action in enumerate(state.history):
            if action == BET:
                stakes[i % 2] += 1.0
        return stakes

    def _showdown(self, state: Any) -> bool:
        from cfrlab.games.kuhn import BET

        # A fold is a pass after the bet; nobody betting, or the bet called, goes to showdown.
        return BET not in state.history or state.history[-1] == BET


_SUIT_SYMBOLS = ("\u2660", "\u2665", "\u2666", "\u2663")  # spades hearts diamonds clubs, the order of "shdc"


class LeducView(PokerView):
    """Leduc hold'em and its variants: one private card each, one public card before round 2."""

    family = "leduc"
    display_name = "Leduc hold'em"

    def _card(self, card: int) -> dict[str, Any]:
        suits = self.game.suits  # type: ignore[attr-defined]
        name = self.game.card_name(card)  # type: ignore[attr-defined]
        if suits <= len(_SUIT_SYMBOLS):
            return {"name": name, "rank": name[:-1], "suit": _SUIT_SYMBOLS[card % suits]}
        return {"name": name, "rank": name, "suit": None}

    def _private(self, state: Any) -> tuple[int, ...]:
        return state.private

    def _public(self, state: Any) -> list[int]:
        return [state.public] if state.public >= 0 else []

    def _stakes(self, state: Any) -> list[float]:
        return [float(x) for x in state.contributions()]

    def _round(self, state: Any) -> int:
        return 1 if state.public < 0 else 2

    def _showdown(self, state: Any) -> bool:
        from cfrlab.games.leduc_state import FOLD

        last = state.round2 or state.round1
        return bool(last) and last[-1] != FOLD
