"""Heads-up limit Texas hold'em as the AAAI/ACPC competitions played it, with small variants.

Rules (ACPC ``holdem.limit.2p.reverse_blinds.game``): player 0 posts the big
blind (10 chips, one small bet) and player 1 the small blind (5). Each player
gets two private cards; betting rounds follow the deals of 0, 3, 1 and 1 board
cards (pre-flop, flop, turn, river). Bets are 10 in the first two rounds and 20
in the last two; a round allows at most 3 raises pre-flop (4 bets counting the
big blind) and 4 afterwards. Player 1 (small blind) acts first pre-flop, the big
blind first after. A player may fold only when facing a bet. A round ends when
a bet is called or both players check; a fold ends the hand. At the showdown the
best five-card hand from the private and board cards wins the pot; ties split.

Specification in cfrlab:
* Parameters: ``ranks`` (13), ``suits`` (4), ``hole_cards`` (2),
  ``board_cards`` ([0, 3, 1, 1], one entry per round, so its length is the
  number of rounds), ``raise_sizes`` ([10, 10, 20, 20]), ``max_raises``
  ([3, 4, 4, 4], raises after the blinds per round), ``blinds`` ([10, 5]: player
  0's and player 1's). Small decks use the lowest ranks, as ACPC does.
  ``holdem(ranks=4, suits=2, hole_cards=1, board_cards=[0,1], raise_sizes=[10,20],
  max_raises=[1,1])`` is a Leduc-sized variant that compiles.
* Actions: 0 = fold (only facing a bet), 1 = check/call, 2 = raise (while the
  round's cap is not reached): OpenSpiel's ``universal_poker`` ids.
* Chance deals one card at a time, uniform over the cards left: player 0's
  private cards, player 1's, then each round's board cards; chance action = card
  id ``rank * suits + suit`` (as ``universal_poker``).
* Returns in chips (a small bet is ``raise_sizes[0]``; mb/h = 1000 * chips /
  small bet per hand).
* Information-state key of player p: ``"{p}:{private}"`` then, per round
  started, ``"/{that round's board}:{actions}"`` with actions ``f c r``; cards
  high to low within a deal. E.g. ``"0:AsKd/:cr/Qc7c4h:c"``. The key keeps the
  round each board card came in (perfect recall); OpenSpiel's string sorts the
  whole board together, so its partition is coarser across board orders and
  equal on every single deal (tested).
* The same game as ``openspiel:universal_poker`` with the ACPC definition that
  ``universal_poker_params`` writes, state by state on random deals (tested).
* ``holdem_suitiso`` (``SuitQuotientHoldem``): the game's suit-renaming quotient
  (``symmetry_quotient``), which the full-tree solvers sweep instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, GameInfo, State, params_from_mapping
from cfrlab.games.holdem.rules.cards import absolute_cards, card_name, cards_text
from cfrlab.games.holdem.rules.evaluator import MAX_CARDS, hand_value_nb, tables
from cfrlab.games.holdem.rules.symmetry import canonical_key, suit_images

FOLD, CALL, RAISE = 0, 1, 2
_ACTION_LETTERS = "fcr"
_ACTION_NAMES = ("Fold", "Call", "Raise")
NUM_PLAYERS = 2
MAX_STAKE = 10**6
"""Largest bet or blind: payoffs stay far inside what the solvers sum exactly (blinds of 1e20 were taken)."""
DEFAULTS: dict[str, object] = {
    "ranks": 13,
    "suits": 4,
    "hole_cards": 2,
    "board_cards": [0, 3, 1, 1],
    "raise_sizes": [10, 10, 20, 20],
    "max_raises": [3, 4, 4, 4],
    "blinds": [10, 5],
}
FIRST_PLAYER_PREFLOP, FIRST_PLAYER_LATER = 1, 0


def round_over(seq: tuple[int, ...]) -> bool:
    """A betting round ends on a fold, or on a call that is not the round's first action."""
    return bool(seq) and (seq[-1] == FOLD or (seq[-1] == CALL and len(seq) >= 2))


def first_player(round_index: int) -> int:
    """The small blind (player 1) opens pre-flop, the big blind every later round."""
    return FIRST_PLAYER_PREFLOP if round_index == 0 else FIRST_PLAYER_LATER


@dataclass(frozen=True, slots=True)
class HoldemState(State):
    game: LimitHoldem
    cards: tuple[int, ...] = ()
    """Every card dealt, in deal order: player 0's, player 1's, then the board."""
    rounds: tuple[tuple[int, ...], ...] = ()
    """Actions of each betting round started so far."""

    # -- structure -----------------------------------------------------------------

    def folded(self) -> bool:
        return bool(self.rounds) and bool(self.rounds[-1]) and self.rounds[-1][-1] == FOLD

    def is_terminal(self) -> bool:
        if self.folded():
            return True
        return len(self.rounds) == self.game.num_rounds and round_over(self.rounds[-1])

    def current_player(self) -> int:
        if not self.rounds:
            return CHANCE
        if self.is_terminal():
            return TERMINAL
        seq = self.rounds[-1]
        if round_over(seq):
            return CHANCE
        return (first_player(len(self.rounds) - 1) + len(seq)) % NUM_PLAYERS

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == CHANCE:
            used = set(self.cards)
            return [c for c in range(self.game.deck_size) if c not in used]
        if player == TERMINAL:
            return []
        spent = self.contributions()
        actions = [FOLD] if spent[player] < max(spent) else []
        actions.append(CALL)
        if self.rounds[-1].count(RAISE) < self.game.max_raises[len(self.rounds) - 1]:
            actions.append(RAISE)
        return actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.uniform_chance_outcomes()

    def _apply(self, action: int) -> HoldemState:
        if self.current_player() == CHANCE:
            return self.game.start_rounds(self.cards + (action,), self.rounds)
        rounds = self.rounds[:-1] + (self.rounds[-1] + (action,),)
        return self.game.start_rounds(self.cards, rounds)

    # -- cards ---------------------------------------------------------------------

    def hole(self, player: int) -> tuple[int, ...]:
        """Player ``player``'s private cards dealt so far."""
        h = self.game.hole_cards
        return self.cards[player * h : (player + 1) * h]

    def board(self) -> tuple[int, ...]:
        return self.cards[NUM_PLAYERS * self.game.hole_cards :]

    def board_by_round(self) -> list[tuple[int, ...]]:
        """Board cards of each round started so far."""
        board, bounds = self.board(), self.game.board_bounds
        return [board[bounds[r] : bounds[r + 1]] for r in range(len(self.rounds))]

    # -- money ---------------------------------------------------------------------

    def contributions(self) -> list[float]:
        """Chips each player has put in the pot so far (blinds included)."""
        spent = [float(b) for b in self.game.blinds]
        for r, seq in enumerate(self.rounds):
            player = first_player(r)
            for action in seq:
                top = max(spent)
                if action == CALL:
                    spent[player] = top
                elif action == RAISE:
                    spent[player] = top + self.game.raise_sizes[r]
                player = 1 - player
        return spent

    def pot(self) -> float:
        return sum(self.contributions())

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * NUM_PLAYERS
        spent = self.contributions()
        if self.folded():
            r = len(self.rounds) - 1
            loser = (first_player(r) + len(self.rounds[r]) - 1) % NUM_PLAYERS
            return [-spent[p] if p == loser else spent[loser] for p in range(NUM_PLAYERS)]
        v0, v1 = (self.game.hand_value(self.hole(p) + self.board()) for p in range(NUM_PLAYERS))
        if v0 == v1:
            return [0.0, 0.0]  # equal contributions at a showdown: the split returns each stake
        winner = 0 if v0 > v1 else 1
        return [spent[1 - p] if p == winner else -spent[p] for p in range(NUM_PLAYERS)]

    # -- views ---------------------------------------------------------------------

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        if not 0 <= player < NUM_PLAYERS:
            raise ValueError(f"information_state_key needs a player in 0..{NUM_PLAYERS - 1}, got {player}")
        suits = self.game.suits
        key = f"{player}:{cards_text(self.hole(player), suits)}"
        for board, seq in zip(self.board_by_round(), self.rounds):
            key += f"/{cards_text(board, suits)}:" + "".join(_ACTION_LETTERS[a] for a in seq)
        return key

    def action_to_string(self, action: int) -> str:
        if self.current_player() == CHANCE:
            return f"Deal:{card_name(action, self.game.suits)}"
        if not 0 <= action < len(_ACTION_NAMES):
            return str(action)
        spent = self.contributions()  # as a poker player says it: Check or Call, Bet or Raise
        facing = spent[self.current_player()] < max(spent)
        if action == CALL:
            return "Call" if facing else "Check"
        if action == RAISE:
            blinds_bet = len(self.rounds) == 1 and max(self.game.blinds) > 0
            return "Raise" if facing or blinds_bet or any(a != CALL for a in self.rounds[-1]) else "Bet"
        return _ACTION_NAMES[action]

    def __str__(self) -> str:
        suits = self.game.suits
        holes = " | ".join(cards_text(self.hole(p), suits) or "-" for p in range(NUM_PLAYERS))
        parts = [f"[{cards_text(b, suits)}] " + ("".join(_ACTION_LETTERS[a] for a in s) or "-")
                 for b, s in zip(self.board_by_round(), self.rounds)]
        return f"private {holes}; " + " / ".join(parts)


def _int_list(name: str, value: object, length: int | None, minimum: int) -> list[int]:
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in value
    ):
        raise GameDefinitionError(f"holdem: {name} must be a list of integers >= {minimum}, got {value!r}")
    if length is not None and len(value) != length:
        raise GameDefinitionError(
            f"holdem: {name} needs one entry per round ({length}, the length of board_cards), got {value!r}"
        )
    return [int(v) for v in value]


class LimitHoldem(Game):
    """Heads-up limit hold'em (ACPC rules); parameters give the small variants."""

    name = "holdem"
    default_params = DEFAULTS
    state_class: type[HoldemState] = HoldemState
    """The states ``start_rounds`` makes (the suit quotient's deal and key otherwise)."""
    parameter_help = {
        "ranks": "card ranks: 1-13 (13: the full deck)",
        "suits": "suits: 1-4",
        "hole_cards": "private cards per player: 1-3",
        "board_cards": "public cards dealt before each betting round: a list, one entry per round",
        "raise_sizes": "bet size per round: a list of positive integers, one per round",
        "max_raises": "bets and raises allowed per round: a list of integers, one per round",
        "blinds": "blinds of player 0 (big) and player 1 (small): two non-negative integers",
    }
    parameter_bounds = {"ranks": (1, 13), "suits": (1, 4), "hole_cards": (1, 3), "board_cards": (0, MAX_CARDS),
                        "raise_sizes": (1, MAX_STAKE), "max_raises": (0, 100), "blinds": (0, MAX_STAKE)}

    def __init__(self, **params: object) -> None:
        super().__init__(**params_from_mapping(DEFAULTS, params, self.name))
        p = self.params
        for label, value, top in (("ranks", p["ranks"], 13), ("suits", p["suits"], 4),
                                  ("hole_cards", p["hole_cards"], 3)):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= top:
                raise GameDefinitionError(f"holdem: {label} must be an integer in 1..{top}, got {value!r}")
        self.ranks: int = p["ranks"]
        self.suits: int = p["suits"]
        self.hole_cards: int = p["hole_cards"]
        self.board_cards = _int_list("board_cards", p["board_cards"], None, 0)
        self.num_rounds = len(self.board_cards)
        if self.num_rounds < 1:
            raise GameDefinitionError("holdem: board_cards needs at least one round")
        self.raise_sizes = _int_list("raise_sizes", p["raise_sizes"], self.num_rounds, 1)
        self.max_raises = _int_list("max_raises", p["max_raises"], self.num_rounds, 0)
        self.blinds = _int_list("blinds", p["blinds"], None, 0)
        if len(self.blinds) != NUM_PLAYERS:
            raise GameDefinitionError(f"holdem: blinds must be two amounts (player 0, player 1), got {p['blinds']!r}")
        self.deck_size = self.ranks * self.suits
        self.board_bounds = [int(x) for x in np.concatenate([[0], np.cumsum(self.board_cards)])]
        dealt = NUM_PLAYERS * self.hole_cards + self.board_bounds[-1]
        if dealt > self.deck_size:
            raise GameDefinitionError(f"holdem: {dealt} cards are dealt but the deck has {self.deck_size}")
        if self.hole_cards + self.board_bounds[-1] > MAX_CARDS:
            raise GameDefinitionError(f"holdem: a hand has at most {MAX_CARDS} cards (private + board)")
        most = max(self.blinds) + sum(m * s for m, s in zip(self.max_raises, self.raise_sizes))
        self._info = GameInfo(
            num_players=NUM_PLAYERS,
            max_actions=3,
            max_chance_outcomes=self.deck_size,
            min_utility=-float(most),
            max_utility=float(most),
            zero_sum=True,
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    @cached_property
    def absolute(self) -> np.ndarray:
        """Evaluator ids of this deck's cards."""
        return absolute_cards(self.suits)

    @property
    def milli_bets_per_chip(self) -> float:
        """mb/h per chip per hand: 1000 / small bet (the first round's bet)."""
        return 1000.0 / self.raise_sizes[0]

    def hand_value(self, cards: tuple[int, ...]) -> int:
        """Evaluator value of a player's private plus board cards (higher wins)."""
        return int(hand_value_nb(self.absolute[list(cards)], len(cards), *tables()))

    def start_rounds(self, cards: tuple[int, ...], rounds: tuple[tuple[int, ...], ...]) -> HoldemState:
        """The state with ``cards`` dealt, each betting round opened once its cards are out."""
        h2 = NUM_PLAYERS * self.hole_cards
        while len(rounds) < self.num_rounds and len(cards) >= h2 + self.board_bounds[len(rounds) + 1]:
            if rounds and not round_over(rounds[-1]):
                break
            if rounds and rounds[-1][-1] == FOLD:
                break
            rounds = rounds + ((),)
        return self.state_class(self, cards, rounds)

    def new_initial_state(self) -> HoldemState:
        return self.start_rounds((), ())

    def symmetry_quotient(self) -> LimitHoldem | None:
        """Suit renamings map deals to equivalent ones: ``holdem_suitiso`` (``cfrlab.games.holdem.rules.symmetry``)."""
        return SuitQuotientHoldem(**self.params) if self.suits > 1 else None

    def quotient_key(self, key: str) -> str:
        return canonical_key(key, self.ranks, self.suits)

    def quotient_infosets(self, key: str) -> list[str]:
        images = suit_images(key, self.ranks, self.suits)
        if images[0] != key:
            raise ValueError(f"{key!r} is not an infoset of {self.spec()}'s suit quotient")
        return images

    def openspiel_twin(self) -> tuple[str, dict[str, Any]] | None:
        """``universal_poker`` with ``universal_poker_params`` (the same deals, actions and returns); None for the
        suit quotient, whose deals are merged."""
        return ("universal_poker", self.universal_poker_params()) if type(self) is LimitHoldem else None

    def universal_poker_params(self) -> dict[str, object]:
        """The same game for OpenSpiel's ``universal_poker`` (ACPC game definition)."""
        join = lambda xs: " ".join(str(x) for x in xs)  # noqa: E731
        return {
            "betting": "limit",
            "numPlayers": NUM_PLAYERS,
            "numRounds": self.num_rounds,
            "blind": join(self.blinds),
            "firstPlayer": join(first_player(r) + 1 for r in range(self.num_rounds)),
            "numSuits": self.suits,
            "numRanks": self.ranks,
            "numHoleCards": self.hole_cards,
            "numBoardCards": join(self.board_cards),
            "raiseSize": join(self.raise_sizes),
            "maxRaises": join(self.max_raises),
        }


class SuitQuotientState(HoldemState):
    """A state of ``holdem_suitiso`` (``cfrlab.games.holdem.rules.symmetry``): chance deals one card per class of
    suit renamings fixing the cards dealt; keys are canonical."""

    __slots__ = ()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return HoldemState.chance_outcomes(self)
        suits, used = self.game.suits, set(self.cards)
        dealt = {c % suits for c in self.cards}
        fresh = min((s for s in range(suits) if s not in dealt), default=-1)
        count: dict[int, int] = {}
        for c in range(self.game.deck_size):
            if c not in used:
                rep = c if c % suits in dealt else (c // suits) * suits + fresh
                count[rep] = count.get(rep, 0) + 1
        left = self.game.deck_size - len(used)
        return [(rep, n / left) for rep, n in sorted(count.items())]

    def legal_actions(self) -> list[int]:
        if self.current_player() == CHANCE:
            return [c for c, _ in self.chance_outcomes()]
        return HoldemState.legal_actions(self)

    def information_state_key(self, player: int | None = None) -> str:
        key = HoldemState.information_state_key(self, player)
        return canonical_key(key, self.game.ranks, self.game.suits)


class SuitQuotientHoldem(LimitHoldem):
    """``holdem``'s suit-symmetry quotient: the same parameters, deals merged by suit renaming."""

    name = "holdem_suitiso"
    state_class = SuitQuotientState

    def symmetry_quotient(self) -> None:
        return None
