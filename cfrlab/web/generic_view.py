"""The player's view of any game without a view of its own (a Gambit ``.efg`` file, a game of yours): what the
protocol says the player knows, and nothing more.

Specification in cfrlab:
* ``view(state, seat)``: ``{"information": KEY}``, the seat's information-state key where the seat can be asked
  for one (always where it acts), else None. The key is by definition all the seat knows, so the view shows
  no hidden information.
* ``describe``: the seat's own moves by name; another player's move and chance's without naming them (whether
  a move is seen is the game's business, told through the key); ``outcome``: the returns and a sentence.
"""

from __future__ import annotations

from typing import Any

from cfrlab.game import State
from cfrlab.web.view_base import Event, TableView, result_sentence


class GenericView(TableView):
    """Any game, shown through the player's information-state key."""

    family = "generic"
    display_name = "Game"
    unit = "point"

    def title(self) -> str:
        return self.game.spec()

    def seat_labels(self) -> list[str]:
        n = self.game.num_players
        return [f"Seat {p}: player {p + 1} of {n}" for p in range(n)]

    def view(self, state: State, seat: int) -> dict[str, Any]:
        try:
            known = state.information_state_key(seat) if not state.is_terminal() else None
        except (ValueError, NotImplementedError):  # games that define keys only where the player acts
            known = None
        return {"information": known}

    def describe(self, state: State, action: int, seat: int) -> Event | None:
        player = state.current_player()
        if state.is_chance_node():
            return {"actor": "dealer", "text": "Chance moves."}
        if player == seat:
            return {"actor": "you", "text": f"You choose {state.action_to_string(action)}."}
        return {"actor": "opponent", "text": f"Player {player + 1} moves."}

    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        returns = [float(r) for r in state.returns()]
        kind, sentence = result_sentence(returns[seat], self.unit)
        return {"returns": returns, "your_return": returns[seat], "kind": kind, "text": sentence}
