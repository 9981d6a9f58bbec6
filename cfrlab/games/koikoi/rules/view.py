"""The player's view of a Koi-Koi state: what one player may see, as plain data for the CLI, web and agents.

Specification in cfrlab: ``player_view(state, player)`` returns a JSON-ready dict. It holds the player's own hand,
the field, both capture piles, both base scores and yaku, koi-koi calls, match totals, the opponent's *hand size*
and the draw-pile size; never the opponent's hand or the order of the draw pile (STYLE principle 7).
``card_dict`` gives a card's id, names, month and kind for display.
"""

from __future__ import annotations

from typing import Any

from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E


def card_dict(card: int) -> dict[str, Any]:
    """A card for display: id, English and Japanese names, month 1-12, kind."""
    return {"id": card, "name": C.NAME_EN[card], "name_ja": C.NAME_JA[card], "month": C.MONTH[card],
            "kind": C.KIND_NAMES[C.KIND[card]]}


def player_view(state: Any, player: int) -> dict[str, Any]:
    """What ``player`` sees in ``state`` (a ``KoiKoiState``): never the opponent's hand."""
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player}")
    eng: E.Engine = state.game.engine
    s: E.EngineState = state.es
    opp = 1 - player
    acting = state.current_player()
    in_round = s.phase not in (E.DEAL, E.FIRST_OYA)
    view: dict[str, Any] = {
        "player": player,
        "phase": E.PHASE_NAMES[s.phase],
        "to_act": acting,
        "round": s.round + 1,
        "rounds": eng.rules.rounds,
        "oya": s.oya,
        "turn": s.turn,
        "hand": C.cards_of(s.hands[player]) if in_round else [],
        "field": C.cards_of(s.field) if in_round else [],
        "pile": C.cards_of(s.piles[player]) if in_round else [],
        "opponent_pile": C.cards_of(s.piles[opp]) if in_round else [],
        "opponent_hand_size": s.hands[opp].bit_count() if in_round else 0,
        "deck_size": s.stock.bit_count() if in_round else 0,
        "pending": s.pending,
        "score": eng.score(s, player) if in_round else 0,
        "opponent_score": eng.score(s, opp) if in_round else 0,
        "yaku": eng.yaku(s, player) if in_round else [],
        "opponent_yaku": eng.yaku(s, opp) if in_round else [],
        "koikoi_calls": s.calls[player],
        "opponent_koikoi_calls": s.calls[opp],
        "totals": [s.totals[player], s.totals[opp]],
        "last_result": None,
        "legal_actions": state.legal_actions() if acting == player else [],
        "masks": {"hand": s.hands[player] if in_round else 0, "field": s.field, "pile": s.piles[player],
                  "opponent_pile": s.piles[opp]},
    }
    if s.result is not None:
        res = s.result
        view["last_result"] = {"winner": res.winner, "points": res.points, "reason": res.reason,
                               "you_won": res.winner == player, "draw": res.winner < 0,
                               "yaku": [list(y) for y in res.yaku], "steps": [list(x) for x in res.steps]}
    return view
