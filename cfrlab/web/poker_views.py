"""The player view that poker games share on the web page and in the terminal (own cards, public cards, pot and
stakes; the opponent's cards only when shown down); each poker family subclasses it with its cards and actions
(``cfrlab.games.ui.table_views``, ``cfrlab.games.holdem.ui.web_view``)."""

from __future__ import annotations

from typing import Any

from cfrlab.game import State
from cfrlab.web.view_base import Event, TableView, actor, result_sentence

_VERBS = {"Check": "checks", "Bet": "bets", "Call": "calls", "Raise": "raises", "Fold": "folds"}


class PokerView(TableView):
    """Shared by the poker views: own card(s), public card, pot, stakes, and cards shown only at showdown."""

    def _card(self, card: int) -> dict[str, Any]:
        raise NotImplementedError

    def _private(self, state: Any) -> tuple[int, ...]:
        raise NotImplementedError

    def _public(self, state: Any) -> list[int]:
        raise NotImplementedError

    def _stakes(self, state: Any) -> list[float]:
        raise NotImplementedError

    def _showdown(self, state: Any) -> bool:
        raise NotImplementedError

    def _round(self, state: Any) -> int:
        return 1

    def view(self, state: State, seat: int) -> dict[str, Any]:
        private = self._private(state)
        stakes = self._stakes(state)
        return {
            "your_cards": [self._card(private[seat])] if seat < len(private) else [],
            "opponent_card_count": 1 if 1 - seat < len(private) else 0,
            "public_cards": [self._card(c) for c in self._public(state)],
            "pot": sum(stakes),
            "your_stake": stakes[seat],
            "opponent_stake": stakes[1 - seat],
            "round": self._round(state),
            "infoset": state.information_state_key(seat) if seat < len(private) else None,
        }

    def _dealt_to(self, state: Any) -> int | None:
        """The player a chance action at ``state`` deals a private card to; None for a public card."""
        private = self._private(state)
        return len(private) if len(private) < 2 else None

    def describe(self, state: State, action: int, seat: int) -> Event | None:
        if state.is_chance_node():
            who = self._dealt_to(state)
            if who is not None:
                if who == seat:
                    return {"actor": "dealer", "text": f"You are dealt {self._text(action)}."}
                return {"actor": "dealer", "text": "The opponent is dealt a card."}
            return {"actor": "dealer", "text": f"Public card: {self._text(action)}."}
        player = state.current_player()
        label = self.action_label(state, action)
        text = f"You {label.lower()}." if player == seat else f"The opponent {_VERBS.get(label, label.lower())}."
        return {"actor": actor(player, seat), "text": text}

    def _text(self, card: int) -> str:
        """A card in sentences as on the table: ``Q\u2660`` where the view draws suits, else its name."""
        shown = self._card(card)
        return f"{shown['rank']}{shown['suit']}" if shown.get("suit") else shown["name"]

    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        returns = [float(r) for r in state.returns()]
        mine = returns[seat]
        kind, sentence = result_sentence(mine, self.unit)
        showdown = self._showdown(state)
        private = self._private(state)
        out: dict[str, Any] = {"returns": returns, "your_return": mine, "kind": kind, "showdown": showdown}
        if showdown:
            mine_card, theirs = self._text(private[seat]), self._text(private[1 - seat])
            board = self._public(state)
            on_board = f" on a board of {self._text(board[0])}" if board else ""
            out["opponent_cards"] = [self._card(private[1 - seat])]
            out["text"] = f"Showdown: your {mine_card} against the opponent's {theirs}{on_board}. {sentence}"
        else:
            folder = "The opponent folds." if mine > 0 else "You fold."
            out["text"] = f"{folder} {sentence}"
        return out
