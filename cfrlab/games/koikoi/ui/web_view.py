"""Koi-Koi's player view for the web page and the terminal, through the game's own ``player_view``."""

from __future__ import annotations

import importlib
from typing import Any

from cfrlab.game import Game, State
from cfrlab.games.koikoi.rules.yaku import CALL_NAMES_JA, YAKU_NAMES_JA
from cfrlab.web.view_base import Event, TableView, UnsupportedGameError, actor, result_sentence


def _yaku(yaku: tuple[str, int]) -> list[Any]:
    """[name, points, Japanese name]."""
    return [yaku[0], yaku[1], YAKU_NAMES_JA.get(yaku[0], "")]


class KoiKoiView(TableView):
    """Koi-Koi through the game's own player view (``cfrlab.games.koikoi.rules.view``), with cards by name and month."""

    family = "koikoi"
    unit = "point"
    display_name = "Koi-Koi"

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        try:
            koikoi_view = importlib.import_module("cfrlab.games.koikoi.rules.view")
        except ImportError as exc:
            raise UnsupportedGameError(
                "Koi-Koi in the browser needs the player's view module cfrlab/games/koikoi/rules/view.py, "
                f"which this installation lacks ({exc}); update cfrlab or play kuhn or leduc"
            ) from None
        self._player_view = koikoi_view.player_view
        self._card_dict = koikoi_view.card_dict

    @classmethod
    def texts(cls) -> tuple[str, ...]:
        """The Japanese names the page shows: cards, yaku, and the STOP and KOI-KOI calls."""
        from cfrlab.games.koikoi.rules.cards import NAME_JA

        return (*NAME_JA, *YAKU_NAMES_JA.values(), *CALL_NAMES_JA.values())

    def episode_words(self) -> tuple[str, str]:
        """A session plays matches of several rounds, or single rounds: never 'hands'."""
        return ("match", "matches") if self.game.rules.rounds > 1 else ("round", "rounds")  # type: ignore[attr-defined]

    def card_picture(self, card: int) -> str | None:
        from cfrlab.games.koikoi.ui.card_art import card_svg

        return card_svg(card) if 0 <= card < 48 else None

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
            "yaku": [_yaku(y) for y in v["yaku"]],
            "opponent_yaku": [_yaku(y) for y in v["opponent_yaku"]],
            "koikoi_calls": v["koikoi_calls"],
            "opponent_koikoi_calls": v["opponent_koikoi_calls"],
            "totals": list(v["totals"]),
            "stop_value": self._stop_value(state, seat),
            "last_round": self._last_round(state, seat),
        }

    def _stop_value(self, state: Any, seat: int) -> dict[str, Any] | None:
        """At the seat's STOP / KOI-KOI decision: the points stopping now would score, step by step."""
        from cfrlab.games.koikoi.rules import engine as E

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
        from cfrlab.games.koikoi.rules import engine as E
        from cfrlab.games.koikoi.ui.explain import round_text

        es = state.es
        if es.result is None:
            return None
        number = es.round + 1 if es.phase == E.TERMINAL else es.round
        return {"round": number, "text": round_text(es.result, seat), "totals": [es.totals[seat], es.totals[1 - seat]]}

    def action_label(self, state: State, action: int) -> str:
        from cfrlab.games.koikoi.rules import engine as E

        if action == E.STOP:
            value = self._stop_value(state, state.current_player())
            return f"STOP {CALL_NAMES_JA['STOP']}: score {value['points']} now" if value else "STOP"
        if action == E.KOIKOI:
            return f"KOI-KOI {CALL_NAMES_JA['KOI-KOI']}: play on for more"
        return state.action_to_string(action)

    def consequences(self, before: State, after: State, seat: int) -> list[Event]:
        """Cards captured, the opponent's koi-koi and its risk, and each round's end with yaku and points."""
        from cfrlab.games.koikoi.rules import cards as C
        from cfrlab.games.koikoi.ui.explain import captured, round_text

        b, a = before.es, after.es  # type: ignore[attr-defined]
        events: list[Event] = []
        for player, cards in captured(b, a):
            who = "You capture" if player == seat else "The opponent captures"
            events.append({"actor": actor(player, seat), "text": f"{who} {', '.join(C.NAME_EN[c] for c in cards)}."})
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
        from cfrlab.games.koikoi.rules import cards as C
        from cfrlab.games.koikoi.rules import engine as E

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
        return {"actor": actor(mover, seat), "text": text}

    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        """A round's end in words; a match's end as its final score (the last round has its own summary line)."""
        from cfrlab.games.koikoi.ui.explain import round_text

        returns = [float(r) for r in state.returns()]
        mine = returns[seat]
        kind, sentence = result_sentence(mine, self.unit)
        es = state.es  # type: ignore[attr-defined]
        text = sentence
        if self.game.rules.rounds > 1:  # type: ignore[attr-defined]
            text = f"The match is over: you {es.totals[seat]}, the opponent {es.totals[1 - seat]}. {sentence}"
        elif es.result is not None:
            text = f"{round_text(es.result, seat)} {sentence}"
        return {"returns": returns, "your_return": mine, "kind": kind, "showdown": False, "text": text}
