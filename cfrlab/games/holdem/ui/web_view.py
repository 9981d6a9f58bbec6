"""Limit hold'em's player view for the web page and the terminal (``cfrlab.web.poker_views``)."""

from __future__ import annotations

from typing import Any

from cfrlab.game import Game, State
from cfrlab.web.poker_views import PokerView
from cfrlab.web.view_base import UnsupportedGameError, result_sentence


class HoldemView(PokerView):
    """Limit hold'em and its small variants: hole cards, a board dealt round by round, blinds."""

    family = "holdem"
    display_name = "Limit hold'em"

    def __init__(self, game: Game) -> None:
        from cfrlab.games.holdem.rules.game import LimitHoldem

        if not isinstance(game, LimitHoldem):  # an abstract game has buckets, not cards to show
            real = getattr(game, "real_game", None)
            hint = "" if real is None else (f": name the real game, {real.spec()!r}, and its abstract strategy "
                                            "(--strategy FILE) plays on real cards")
            raise UnsupportedGameError(f"the web page plays the real game (holdem), not {game.spec()!r}{hint}")
        super().__init__(game)

    def _card(self, card: int) -> dict[str, Any]:
        from cfrlab.games.holdem.rules.cards import RANK_NAMES, SUIT_NAMES, card_name

        suits = self.game.suits  # type: ignore[attr-defined]
        symbol = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}[SUIT_NAMES[card % suits]]
        return {"name": card_name(card, suits), "rank": RANK_NAMES[card // suits], "suit": symbol}

    def seat_labels(self) -> list[str]:
        return ["Seat 0: big blind, acts second before the flop", "Seat 1: small blind, acts first before the flop"]

    def view(self, state: State, seat: int) -> dict[str, Any]:
        s: Any = state
        stakes = s.contributions()
        return {
            "your_cards": [self._card(c) for c in s.hole(seat)],
            "opponent_card_count": len(s.hole(1 - seat)),
            "public_cards": [self._card(c) for c in s.board()],
            "pot": sum(stakes),
            "your_stake": stakes[seat],
            "opponent_stake": stakes[1 - seat],
            "round": max(1, len(s.rounds)),
            "rounds": self.game.num_rounds,  # type: ignore[attr-defined]
            "infoset": s.information_state_key(seat) if s.rounds else None,
        }

    def _dealt_to(self, state: Any) -> int | None:
        h = self.game.hole_cards  # type: ignore[attr-defined]
        dealt = len(state.cards)
        return dealt // h if dealt < 2 * h else None

    def _private(self, state: Any) -> tuple[int, ...]:
        return tuple(state.hole(p) for p in range(2))

    def _public(self, state: Any) -> list[int]:
        return list(state.board())

    def _stakes(self, state: Any) -> list[float]:
        return state.contributions()

    def _showdown(self, state: Any) -> bool:
        return state.is_terminal() and not state.folded()

    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        s: Any = state
        returns = [float(r) for r in state.returns()]
        kind, sentence = result_sentence(returns[seat], self.unit)
        out: dict[str, Any] = {"returns": returns, "your_return": returns[seat], "kind": kind,
                               "showdown": self._showdown(s)}
        if out["showdown"]:
            names = lambda cards: " ".join(self._text(c) for c in cards)  # noqa: E731
            out["opponent_cards"] = [self._card(c) for c in s.hole(1 - seat)]
            board = f" on a board of {names(s.board())}" if s.board() else ""
            out["text"] = (f"Showdown: your {names(s.hole(seat))} against the opponent's {names(s.hole(1 - seat))}"
                           f"{board}. {sentence}")
        else:
            out["text"] = f"{'The opponent folds.' if returns[seat] > 0 else 'You fold.'} {sentence}"
        return out
