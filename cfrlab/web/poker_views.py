"""The poker families' player views for the web page and the terminal: Kuhn, Leduc and limit hold'em (own
cards, public cards, pot and stakes; the opponent's cards only when shown down)."""

from __future__ import annotations

from typing import Any

from cfrlab.game import Game, State
from cfrlab.web.view_base import Event, TableView, UnsupportedGameError, actor, result_sentence

_VERBS = {"Check": "checks", "Bet": "bets", "Call": "calls", "Raise": "raises", "Fold": "folds"}


class _PokerView(TableView):
    """Shared by Kuhn and Leduc: own card(s), public card, pot, stakes, and cards shown only at showdown."""

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

    def _label(self, state: Any, action: int) -> str:
        """Check, Bet, Call, Raise or Fold, as a poker player says it."""
        raise NotImplementedError

    def action_label(self, state: State, action: int) -> str:
        return self._label(state, action)

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
                    return {"actor": "dealer", "text": f"You are dealt {self._card(action)['name']}."}
                return {"actor": "dealer", "text": "The opponent is dealt a card."}
            return {"actor": "dealer", "text": f"Public card: {self._card(action)['name']}."}
        player = state.current_player()
        label = self._label(state, action)
        text = f"You {label.lower()}." if player == seat else f"The opponent {_VERBS.get(label, label.lower())}."
        return {"actor": actor(player, seat), "text": text}

    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        returns = [float(r) for r in state.returns()]
        mine = returns[seat]
        kind, sentence = result_sentence(mine, self.unit)
        showdown = self._showdown(state)
        private = self._private(state)
        out: dict[str, Any] = {"returns": returns, "your_return": mine, "kind": kind, "showdown": showdown}
        if showdown:
            mine_card, theirs = self._card(private[seat])["name"], self._card(private[1 - seat])["name"]
            board = self._public(state)
            on_board = f" on a board of {self._card(board[0])['name']}" if board else ""
            out["opponent_cards"] = [self._card(private[1 - seat])]
            out["text"] = f"Showdown: your {mine_card} against the opponent's {theirs}{on_board}. {sentence}"
        else:
            folder = "The opponent folds." if mine > 0 else "You fold."
            out["text"] = f"{folder} {sentence}"
        return out


class KuhnView(_PokerView):
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

    def _label(self, state: Any, action: int) -> str:
        from cfrlab.games.kuhn import BET

        facing = BET in state.history
        if action == BET:
            return "Call" if facing else "Bet"
        return "Fold" if facing else "Check"


_SUIT_SYMBOLS = ("\u2660", "\u2665", "\u2666", "\u2663")  # spades hearts diamonds clubs, the order of "shdc"


class LeducView(_PokerView):
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

    def _label(self, state: Any, action: int) -> str:
        from cfrlab.games.leduc_state import CALL, FOLD, RAISE

        seq = state.round1 if state.public < 0 else state.round2
        if action == FOLD:
            return "Fold"
        if action == CALL:
            return "Call" if seq and seq[-1] == RAISE else "Check"
        return "Raise" if RAISE in seq else "Bet"


class HoldemView(_PokerView):
    """Limit hold'em and its small variants: hole cards, a board dealt round by round, blinds."""

    family = "holdem"
    display_name = "Limit hold'em"

    def _card(self, card: int) -> dict[str, Any]:
        from cfrlab.games.holdem.cards import RANK_NAMES, SUIT_NAMES, card_name

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
        return tuple(state.hole(p) for p in range(2))  # type: ignore[return-value]

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
            names = lambda cards: " ".join(self._card(c)["name"] for c in cards)  # noqa: E731
            out["opponent_cards"] = [self._card(c) for c in s.hole(1 - seat)]
            board = f" on a board of {names(s.board())}" if s.board() else ""
            out["text"] = (f"Showdown: your {names(s.hole(seat))} against the opponent's {names(s.hole(1 - seat))}"
                           f"{board}. {sentence}")
        else:
            out["text"] = f"{'The opponent folds.' if returns[seat] > 0 else 'You fold.'} {sentence}"
        return out

    def _label(self, state: Any, action: int) -> str:
        from cfrlab.games.holdem.game import CALL, FOLD

        spent = state.contributions()
        facing = spent[state.current_player()] < max(spent)
        if action == FOLD:
            return "Fold"
        if action == CALL:
            return "Call" if facing else "Check"
        preflop_blinds = len(state.rounds) == 1 and max(self.game.blinds) > 0  # type: ignore[attr-defined]
        return "Raise" if facing or preflop_blinds or any(a != CALL for a in state.rounds[-1]) else "Bet"
