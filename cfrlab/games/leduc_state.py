"""A hand of Leduc hold'em in progress (``LeducState``) and its action codes.

The rules as the state applies them: who acts, the legal actions, the chips put in and the returns, and the
views (keys, tensor, strings) specified in ``cfrlab.games.leduc``. That module holds the game itself
(parameters, deck and deal, suit quotient, conditioned deal) and builds on this one, never the reverse.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import CHANCE, TERMINAL, State

FOLD, CALL, RAISE = 0, 1, 2
ACTION_LETTERS = "fcr"
"""Actions as written in information-state keys."""
_ACTION_NAMES = ("Fold", "Call", "Raise")
NUM_PLAYERS = 2


def _round_over(seq: tuple[int, ...]) -> bool:
    """A betting round ends on a fold, or on a call that is not the opening check."""
    return bool(seq) and (seq[-1] == FOLD or (seq[-1] == CALL and len(seq) >= 2))


@dataclass(frozen=True, slots=True)
class LeducState(State):
    game: Any  # a LeducHoldem (``cfrlab.games.leduc``), which imports this module
    private: tuple[int, ...] = ()
    public: int = -1
    round1: tuple[int, ...] = ()
    round2: tuple[int, ...] = ()

    # -- structure -----------------------------------------------------------------

    def _folded(self) -> bool:
        return (bool(self.round1) and self.round1[-1] == FOLD) or (bool(self.round2) and self.round2[-1] == FOLD)

    def _betting(self) -> tuple[int, ...]:
        """The sequence of the round in progress."""
        return self.round1 if self.public < 0 else self.round2

    def is_terminal(self) -> bool:
        return self._folded() or _round_over(self.round2)

    def current_player(self) -> int:
        if len(self.private) < NUM_PLAYERS:
            return CHANCE
        if self.is_terminal():
            return TERMINAL
        if self.public < 0 and _round_over(self.round1):
            return CHANCE
        # Player 0 opens each round and the two players alternate.
        return len(self._betting()) % NUM_PLAYERS

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == CHANCE:
            return [c for c, _ in self.game.deal(self.private)]
        if player == TERMINAL:
            return []
        seq = self._betting()
        facing = bool(seq) and seq[-1] == RAISE
        actions = [FOLD] if facing else []
        actions.append(CALL)
        if seq.count(RAISE) < self.game.max_raises:
            actions.append(RAISE)
        return actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return self.uniform_chance_outcomes()  # raises: not a chance node
        return self.game.deal(self.private)

    def _apply(self, action: int) -> LeducState:
        if self.current_player() == CHANCE:
            if len(self.private) < NUM_PLAYERS:
                return LeducState(self.game, self.private + (action,), -1, self.round1, self.round2)
            return LeducState(self.game, self.private, action, self.round1, self.round2)
        if self.public < 0:
            return LeducState(self.game, self.private, self.public, self.round1 + (action,), self.round2)
        return LeducState(self.game, self.private, self.public, self.round1, self.round2 + (action,))

    # -- money ---------------------------------------------------------------------

    def contributions(self) -> list[float]:
        """Chips each player has put in the pot so far (ante included)."""
        spent = [1.0] * NUM_PLAYERS
        for seq, size in ((self.round1, self.game.raise_sizes[0]), (self.round2, self.game.raise_sizes[1])):
            for i, action in enumerate(seq):
                player = i % NUM_PLAYERS
                top = max(spent)
                if action == CALL:
                    spent[player] = top
                elif action == RAISE:
                    spent[player] = top + size
        return spent

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * NUM_PLAYERS
        spent = self.contributions()
        if self._folded():
            seq = self._betting()
            loser = (len(seq) - 1) % NUM_PLAYERS
            return [-spent[p] if p == loser else spent[loser] for p in range(NUM_PLAYERS)]
        strength = [self._hand_strength(p) for p in range(NUM_PLAYERS)]
        best = max(strength)
        winners = [p for p in range(NUM_PLAYERS) if strength[p] == best]
        pot = sum(spent)
        return [(pot / len(winners) if p in winners else 0.0) - spent[p] for p in range(NUM_PLAYERS)]

    def _hand_strength(self, player: int) -> int:
        """Pairs beat every high card; otherwise the private rank decides."""
        rank = self.private[player] // self.game.suits
        pair = rank == self.public // self.game.suits
        return rank + (self.game.ranks if pair else 0)

    # -- views ---------------------------------------------------------------------

    def public_state_key(self) -> str:
        """Private cards dealt so far (how many), the bets, and the public card once dealt."""
        key = f"{len(self.private)}:" + "".join(ACTION_LETTERS[a] for a in self.round1)
        if self.public >= 0:
            key += f"/{self.game.card_name(self.public)}:" + "".join(ACTION_LETTERS[a] for a in self.round2)
        return key

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        if not 0 <= player < NUM_PLAYERS:
            raise ValueError(f"information_state_key needs a player in 0..{NUM_PLAYERS - 1}, got {player}")
        card = self.game.card_name(self.private[player]) if player < len(self.private) else "?"
        key = f"{player}:{card}:" + "".join(ACTION_LETTERS[a] for a in self.round1)
        if self.public >= 0:
            key += f"/{self.game.card_name(self.public)}:" + "".join(ACTION_LETTERS[a] for a in self.round2)
        return key

    def information_state_tensor(self, player: int | None = None) -> NDArray[np.float32]:
        player = self.current_player() if player is None else player
        if not 0 <= player < NUM_PLAYERS:
            raise ValueError(f"information_state_tensor needs a player in 0..{NUM_PLAYERS - 1}, got {player}")
        deck, longest = self.game.deck_size, self.game.max_raises + 2
        out = np.zeros(self.game.information_state_tensor_size(), dtype=np.float32)
        out[player] = 1.0
        if player < len(self.private):
            out[NUM_PLAYERS + self.private[player]] = 1.0
        if self.public >= 0:
            out[NUM_PLAYERS + deck + self.public] = 1.0
        base = NUM_PLAYERS + 2 * deck
        for seq in (self.round1, self.round2):
            for k, action in enumerate(seq):
                if action != FOLD:  # fold takes a slot but sets no bit, as in OpenSpiel
                    out[base + 2 * k + action - 1] = 1.0
            base += 2 * longest
        return out

    def action_to_string(self, action: int) -> str:
        if self.current_player() == CHANCE:
            return f"Deal:{self.game.card_name(action)}"
        if not 0 <= action < len(_ACTION_NAMES):
            return str(action)
        seq = self.round1 if self.public < 0 else self.round2
        if action == CALL:  # as a poker player says it: Check or Call, Bet or Raise (the only naming: play, show)
            return "Call" if seq and seq[-1] == RAISE else "Check"
        if action == RAISE:
            return "Raise" if RAISE in seq else "Bet"
        return _ACTION_NAMES[action]

    def __str__(self) -> str:
        cards = " ".join(self.game.card_name(c) for c in self.private)
        board = self.game.card_name(self.public) if self.public >= 0 else "-"
        r1 = "".join(ACTION_LETTERS[a] for a in self.round1) or "-"
        r2 = "".join(ACTION_LETTERS[a] for a in self.round2) or "-"
        return f"private [{cards}] public {board} round1 {r1} round2 {r2}"
