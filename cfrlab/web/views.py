"""What one player may see, per game family, as JSON-ready data for the web page (STYLE principle 7).

Specification in cfrlab: a ``TableView`` turns a state into the *player's view* and never into anything more.
* ``view(state, seat)``: the seat's own private cards, the public cards, the pot and stakes (poker) or the
  hand, field, capture piles and scores (Koi-Koi, through ``cfrlab.games.koikoi.view.player_view``).
  The opponent's private cards and the deck are left out.
* ``describe(state, action, seat)``: one log line for ``action`` taken at ``state``, as ``seat`` perceives it:
  the opponent's deal is "a card", the seat's own deal names the card, public cards and draws are named.
* ``outcome(state, seat)``: at a terminal state, the returns and a sentence; the opponent's cards only when
  they were shown down (poker showdown; never after a fold).

Supported games: Kuhn poker for 2 players, Leduc hold'em and its variants, Koi-Koi (both ``koikoi`` and
``koikoi_mini``, which need ``cfrlab.games.koikoi.view``).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import Any

from cfrlab.game import Game, State

Event = dict[str, str]
"""A log line: ``{"actor": "you" | "opponent" | "dealer", "text": ...}``."""


class UnsupportedGameError(ValueError):
    """A game the web page cannot show."""


def _actor(player: int, seat: int) -> str:
    return "you" if player == seat else "opponent"


def _plural(amount: float, unit: str) -> str:
    value = f"{amount:g}"
    return f"{value} {unit if abs(amount) == 1 else unit + 's'}"


def _result_sentence(mine: float, unit: str) -> tuple[str, str]:
    """("win" | "loss" | "tie", "You win 2 chips.")."""
    if mine > 0:
        return "win", f"You win {_plural(mine, unit)}."
    if mine < 0:
        return "loss", f"You lose {_plural(-mine, unit)}."
    return "tie", "Nobody wins anything: a tie."


class TableView(ABC):
    """The player's view of one game family."""

    family: str = "game"
    display_name: str = "game"
    unit: str = "chip"

    def __init__(self, game: Game) -> None:
        self.game = game

    @abstractmethod
    def view(self, state: State, seat: int) -> dict[str, Any]:
        """What ``seat`` sees in ``state``: never the opponent's private information."""

    @abstractmethod
    def describe(self, state: State, action: int, seat: int) -> Event | None:
        """A log line for ``action`` at ``state`` from ``seat``'s point of view (``None``: nothing to show)."""

    @abstractmethod
    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        """Returns and a sentence at a terminal ``state``."""

    def action_label(self, state: State, action: int) -> str:
        """Button text for a legal action of the seat to act."""
        return state.action_to_string(action)

    def consequences(self, before: State, after: State, seat: int) -> list[Event]:
        """Log lines for what an action caused beyond itself (captures, a round's end); none by default."""
        return []

    def seat_labels(self) -> list[str]:
        """One label per seat, for the seat picker."""
        return ["Seat 0: acts first", "Seat 1: acts second"]

    def title(self) -> str:
        """The game's name for people, with its spec when that says more."""
        name, spec = self.display_name, self.game.spec()
        return name if spec == self.game.name else f"{name} \u00b7 {spec}"


# ------------------------------------------------------------------------------------------------ poker


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
        return {"actor": _actor(player, seat), "text": text}

    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        returns = [float(r) for r in state.returns()]
        mine = returns[seat]
        kind, sentence = _result_sentence(mine, self.unit)
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
        from cfrlab.games.leduc import FOLD

        last = state.round2 or state.round1
        return bool(last) and last[-1] != FOLD

    def _label(self, state: Any, action: int) -> str:
        from cfrlab.games.leduc import CALL, FOLD, RAISE

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
        kind, sentence = _result_sentence(returns[seat], self.unit)
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


# ----------------------------------------------------------------------------------------------- koi-koi

class KoiKoiView(TableView):
    """Koi-Koi through the game's own player view (``cfrlab.games.koikoi.view``), with cards by name and month."""

    family = "koikoi"
    unit = "point"
    display_name = "Koi-Koi"

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        try:
            koikoi_view = importlib.import_module("cfrlab.games.koikoi.view")
        except ImportError as exc:
            raise UnsupportedGameError(
                "Koi-Koi in the browser needs the player's view module cfrlab/games/koikoi/view.py, "
                f"which this installation lacks ({exc}); update cfrlab or play kuhn or leduc"
            ) from None
        self._player_view = koikoi_view.player_view
        self._card_dict = koikoi_view.card_dict

    def seat_labels(self) -> list[str]:
        oya = getattr(self.game.engine, "first_oya", 0)  # type: ignore[attr-defined]
        if oya is None:
            return ["Seat 0: dealer decided by a coin", "Seat 1: dealer decided by a coin"]
        return [f"Seat {p}: {'dealer (oya), plays first' if p == oya else 'non-dealer (ko)'}" for p in (0, 1)]

    def title(self) -> str:
        rules = self.game.rules  # type: ignore[attr-defined]
        params = self.game.params
        rounds = rules.rounds
        text = f"{self.display_name} \u00b7 {params.get('rules', 'nintendo')} rules, "
        text += f"{rounds} round{'s' if rounds != 1 else ''}"
        if self.game.name != "koikoi":
            text += f" ({self.game.name})"
        return text

    def view(self, state: State, seat: int) -> dict[str, Any]:
        v = self._player_view(state, seat)
        cards = self._card_dict
        pending = v["pending"]
        return {
            "phase": v["phase"],
            "round": v["round"],
            "rounds": v["rounds"],
            "you_are_oya": v["oya"] == seat,
            "hand": [cards(c) for c in v["hand"]],
            "field": [cards(c) for c in v["field"]],
            "pile": [cards(c) for c in v["pile"]],
            "opponent_pile": [cards(c) for c in v["opponent_pile"]],
            "opponent_hand_size": v["opponent_hand_size"],
            "deck_size": v["deck_size"],
            "pending": cards(pending) if pending >= 0 else None,
            "score": v["score"],
            "opponent_score": v["opponent_score"],
            "yaku": [list(y) for y in v["yaku"]],
            "opponent_yaku": [list(y) for y in v["opponent_yaku"]],
            "koikoi_calls": v["koikoi_calls"],
            "opponent_koikoi_calls": v["opponent_koikoi_calls"],
            "totals": list(v["totals"]),
            "stop_value": self._stop_value(state, seat),
            "last_round": self._last_round(state, seat),
        }

    def _stop_value(self, state: Any, seat: int) -> dict[str, Any] | None:
        """At the seat's STOP / KOI-KOI decision: the points stopping now would score, step by step."""
        from cfrlab.games.koikoi import engine as E

        es, eng = state.es, self.game.engine  # type: ignore[attr-defined]
        if es.phase != E.DECIDE or eng.mover(es) != seat:
            return None
        steps = eng.scorer.round_points_steps(eng.score(es, seat), es.calls[seat], es.calls[1 - seat],
                                              es.field_brights)
        return {"points": steps[-1][1], "steps": [list(step) for step in steps],
                "koikoi_risk": self._koikoi_risk()}

    def _koikoi_risk(self) -> str:
        rules = self.game.rules  # type: ignore[attr-defined]
        doubled = " and their points are doubled" if rules.opponent_koikoi_multiplier == "double" else ""
        return f"KOI-KOI plays on for more points; if the opponent scores first, they win the round{doubled}."

    def _last_round(self, state: Any, seat: int) -> dict[str, Any] | None:
        """The last finished round of a match: its number and what happened (None before the first ends)."""
        from cfrlab.games.koikoi import engine as E
        from cfrlab.games.koikoi.explain import round_text

        es = state.es
        if es.result is None:
            return None
        number = es.round + 1 if es.phase == E.TERMINAL else es.round
        return {"round": number, "text": round_text(es.result, seat), "totals": [es.totals[seat], es.totals[1 - seat]]}

    def action_label(self, state: State, action: int) -> str:
        from cfrlab.games.koikoi import engine as E

        if action == E.STOP:
            value = self._stop_value(state, state.current_player())
            return f"STOP: score {value['points']} now" if value else "STOP"
        if action == E.KOIKOI:
            return "KOI-KOI: play on for more"
        return state.action_to_string(action)

    def consequences(self, before: State, after: State, seat: int) -> list[Event]:
        """Cards captured, the opponent's koi-koi and its risk, and each round's end with yaku and points."""
        from cfrlab.games.koikoi import cards as C
        from cfrlab.games.koikoi.explain import captured, round_text

        b, a = before.es, after.es  # type: ignore[attr-defined]
        events: list[Event] = []
        for player, cards in captured(b, a):
            who = "You capture" if player == seat else "The opponent captures"
            events.append({"actor": _actor(player, seat), "text": f"{who} {', '.join(C.NAME_EN[c] for c in cards)}."})
        if a.calls[1 - seat] > b.calls[1 - seat]:
            events.append({"actor": "opponent", "text": "The opponent plays on: if you score first, you win the "
                           "round" + (" and your points are doubled." if "doubled" in self._koikoi_risk() else ".")})
        if a.result is not None and a.result is not b.result:
            number = b.round + 1
            you, them = a.totals[seat], a.totals[1 - seat]
            events.append({"actor": "dealer", "text": f"Round {number} over. {round_text(a.result, seat)} "
                           f"Match score: you {you}, the opponent {them}."})
        return events

    def describe(self, state: State, action: int, seat: int) -> Event | None:
        from cfrlab.games.koikoi import cards as C
        from cfrlab.games.koikoi import engine as E

        es = state.es  # type: ignore[attr-defined]
        if es.phase == E.FIRST_OYA:
            who = "You are" if action == seat else "The opponent is"
            return {"actor": "dealer", "text": f"{who} the dealer (oya)."}
        if es.phase == E.DEAL:  # the deal action encodes both hands: never shown
            return {"actor": "dealer", "text": f"Round {es.round + 1}: the cards are dealt."}
        mover = (es.oya + es.turn) & 1
        you = mover == seat
        who, s = ("You", "") if you else ("The opponent", "s")
        if es.phase == E.DECIDE:
            text = f"{who} call{s} {'STOP' if action == E.STOP else 'KOI-KOI'}."
        else:
            verb = {E.DRAW: "draw", E.PLAY: "play"}.get(es.phase, "take")
            text = f"{who} {verb}{s} {C.card_label(action)}."
        return {"actor": _actor(mover, seat), "text": text}

    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        from cfrlab.games.koikoi.explain import round_text

        returns = [float(r) for r in state.returns()]
        mine = returns[seat]
        kind, sentence = _result_sentence(mine, self.unit)
        res = state.es.result  # type: ignore[attr-defined]
        text = sentence
        if res is not None:
            how = round_text(res, seat)
            single = self.game.rules.rounds == 1  # type: ignore[attr-defined]
            text = f"{how} {sentence}" if single else f"Last round: {how} Over the match: {sentence}"
        return {"returns": returns, "your_return": mine, "kind": kind, "showdown": False, "text": text}


def table_view(game: Game) -> TableView:
    """The ``TableView`` for ``game``; ``UnsupportedGameError`` for games the page cannot show."""
    from cfrlab.games.holdem.game import LimitHoldem
    from cfrlab.games.kuhn import KuhnPoker
    from cfrlab.games.leduc import LeducHoldem

    if isinstance(game, KuhnPoker):
        return KuhnView(game)
    if isinstance(game, LeducHoldem):
        return LeducView(game)
    if isinstance(game, LimitHoldem):
        return HoldemView(game)
    if game.name.startswith("koikoi"):
        return KoiKoiView(game)
    raise UnsupportedGameError(
        f"the web page plays kuhn, leduc, holdem (and variants) and koikoi; {game.spec()!r} is not one of them"
    )
