"""Kuhn poker for N >= 2 players.

Rules (Kuhn 1950; N-player form of seed 004): a deck of N+1 cards ranked
0 < 1 < ... < N. Every player antes 1 and is dealt one card. One betting round,
players acting in seat order: each may *pass* or *bet* 1. Once someone bets,
every other player acts exactly once more (in seat order after the bettor),
choosing *pass* (fold) or *bet* (call). At the end, the highest card among
the players still in (everyone if nobody bet; else the bettor and callers)
takes the pot.

Specification in cfrlab:
* Actions: 0 = pass (check or fold), 1 = bet (bet or call), as in OpenSpiel.
* Chance deals one card per node, to seat 0 first; chance action = card id.
* Information-state key of player p: ``"{p}:{card}:{history}"`` with history
  over ``p``/``b``, e.g. ``"1:K:pb"``. Cards are named J Q K A ... for <= 4 cards.
* ``information_state_tensor`` (OpenSpiel layout): player one-hot (N),
  own card one-hot (N+1), then for each of the 2N-1 possible actions two bits
  ``[pass, bet]``.
* 2 players: game value -1/18 for seat 0 at equilibrium.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import (
    CHANCE,
    MAX_PLAYERS,
    TERMINAL,
    Game,
    GameDefinitionError,
    GameInfo,
    State,
    params_from_mapping,
)

PASS, BET = 0, 1
_CARD_NAMES = "JQKA"


def card_name(card: int, num_cards: int) -> str:
    """J Q K (A) for up to 4 cards, else the number."""
    return _CARD_NAMES[card] if num_cards <= len(_CARD_NAMES) else str(card)


@dataclass(frozen=True, slots=True)
class KuhnState(State):
    game: KuhnPoker
    cards: tuple[int, ...] = ()
    history: tuple[int, ...] = ()

    @property
    def _n(self) -> int:
        return self.game.players

    def _first_bet(self) -> int:
        return self.history.index(BET) if BET in self.history else -1

    def is_terminal(self) -> bool:
        if len(self.cards) < self._n:
            return False
        bet = self._first_bet()
        return len(self.history) == (self._n if bet < 0 else bet + self._n)

    def current_player(self) -> int:
        if len(self.cards) < self._n:
            return CHANCE
        if self.is_terminal():
            return TERMINAL
        return len(self.history) % self._n

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == CHANCE:
            return [c for c in range(self._n + 1) if c not in self.cards]
        return [] if player == TERMINAL else [PASS, BET]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.uniform_chance_outcomes()

    def _apply(self, action: int) -> KuhnState:
        if self.current_player() == CHANCE:
            return KuhnState(self.game, self.cards + (action,), self.history)
        return KuhnState(self.game, self.cards, self.history + (action,))

    def _history_text(self) -> str:
        return "".join("pb"[a] for a in self.history)

    def public_state_key(self) -> str:
        """Cards dealt so far (how many, not which) and the bets."""
        return f"{len(self.cards)}:{self._history_text()}"

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        if not 0 <= player < self._n:
            raise ValueError(f"information_state_key needs a player in 0..{self._n - 1}, got {player}")
        card = card_name(self.cards[player], self._n + 1) if player < len(self.cards) else "?"
        return f"{player}:{card}:{self._history_text()}"

    def information_state_tensor(self, player: int | None = None) -> NDArray[np.float32]:
        player = self.current_player() if player is None else player
        n = self._n
        out = np.zeros(self.game.information_state_tensor_size(), dtype=np.float32)
        out[player] = 1.0
        if player < len(self.cards):
            out[n + self.cards[player]] = 1.0
        base = 2 * n + 1
        for i, a in enumerate(self.history):
            out[base + 2 * i + a] = 1.0
        return out

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._n
        n, bet = self._n, self._first_bet()
        stake = [1.0] * n
        if bet < 0:
            contenders = list(range(n))
        else:
            contenders = [bet % n]
            for i in range(bet + 1, len(self.history)):
                if self.history[i] == BET:
                    contenders.append(i % n)
            for p in contenders:
                stake[p] += 1.0
        winner = max(contenders, key=lambda p: self.cards[p])
        pot = sum(stake)
        return [pot - stake[p] if p == winner else -stake[p] for p in range(n)]

    def action_to_string(self, action: int) -> str:
        if self.current_player() == CHANCE:
            return f"Deal:{card_name(action, self._n + 1)}"
        facing = BET in self.history  # as a poker player says it: Check or Bet, Fold or Call
        return ("Fold", "Call")[action] if facing else ("Check", "Bet")[action]

    def __str__(self) -> str:
        cards = " ".join(card_name(c, self._n + 1) for c in self.cards)
        return f"cards [{cards}] history {self._history_text() or '-'}"


class KuhnPoker(Game):
    """Kuhn poker; ``KuhnPoker(players=3)`` is seed 004's 3-player game."""

    name = "kuhn"
    default_params = {"players": 2}
    parameter_help = {"players": "number of players: an integer >= 2 (a deck of players + 1 cards)"}
    parameter_bounds = {"players": (2, MAX_PLAYERS)}

    def __init__(self, **params: object) -> None:
        super().__init__(**params_from_mapping(self.default_params, params, self.name))
        players = self.params["players"]
        if not isinstance(players, int) or players < 2:
            raise GameDefinitionError(f"kuhn: players must be an integer >= 2, got {players!r}")
        self.players: int = players
        self._info = GameInfo(
            num_players=players,
            max_actions=2,
            max_chance_outcomes=players + 1,
            min_utility=-2.0,
            max_utility=float(2 * players - 1) - 1.0,
            zero_sum=True,
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    def openspiel_twin(self) -> tuple[str, dict[str, Any]]:
        return "kuhn_poker", {"players": self.params["players"]}

    def new_initial_state(self) -> KuhnState:
        return KuhnState(self)

    def information_state_tensor_size(self) -> int:
        n = self.players
        return n + (n + 1) + 2 * (2 * n - 1)
