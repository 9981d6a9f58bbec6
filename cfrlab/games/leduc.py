"""Leduc hold'em (Southey et al. 2005), with parameters for larger variants.

Rules: a deck of 6 cards, J Q K in 2 suits. Two players each ante 1 and are
dealt one private card. A first betting round follows (raise size 2), then one
public card is dealt face up and a second betting round follows (raise size 4).
In each round player 0 acts first; a player may check/call, raise (at most 2
raises per round) or, only when facing a raise, fold. A round ends when a raise
is called, when both players check, or when a player folds (the other takes the
pot). At the showdown a player whose private card pairs the public card wins;
otherwise the higher private rank wins; equal ranks split the pot.

Specification in cfrlab:
* Parameters: ``ranks`` (3), ``suits`` (2), ``raise_sizes`` ([2, 4], one per
  round, exactly two rounds), ``max_raises`` (2, per round). ``leduc(ranks=4)``
  plays with J Q K A. The default game matches OpenSpiel's ``leduc_poker``
  exactly: same action ids, chance outcome ids, histories, returns and
  information-state partition (936 infosets), so trees map state by state.
* Actions: 0 = fold (legal only when facing a raise), 1 = check/call,
  2 = raise (legal while fewer than ``max_raises`` raises were made this round).
* Cards: card id ``c`` has rank ``c // suits`` and suit ``c % suits`` (so J J Q
  Q K K for the default deck, as in OpenSpiel). Chance deals player 0's card,
  then player 1's, then (after round 1, unless someone folded) the public card;
  chance action = card id, uniform over the cards left.
* Information-state key of player p: ``"{p}:{private}:{round 1}"`` and, once
  the public card is out, ``"/{public}:{round 2}"`` appended, with actions
  written ``f`` ``c`` ``r``; e.g. ``"0:Qh:rc/Ks:r"``. Cards are rank then suit
  (``s h d c`` for up to 4 suits, else the suit number).
* ``information_state_tensor`` (OpenSpiel's layout, generalised), with
  ``D = ranks * suits`` and ``L = max_raises + 2`` (longest betting round):

  =============================  ===========================================
  index                          meaning
  =============================  ===========================================
  0 .. 1                         observing player one-hot
  2 .. 2+D-1                     own private card one-hot
  2+D .. 2+2D-1                  public card one-hot (zeros before the deal)
  2+2D + 2k, +1                  round-1 action k: [call, raise] (fold: 0 0)
  2+2D+2L + 2k, +1               round-2 action k: [call, raise] (fold: 0 0)
  =============================  ===========================================

  Size ``2 + 2D + 4L`` (30 for the default game, as OpenSpiel).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import (CHANCE, TERMINAL, DealProposal, Game, GameDefinitionError, GameInfo, State,
                         params_from_mapping)

FOLD, CALL, RAISE = 0, 1, 2
_ACTION_LETTERS = "fcr"
_ACTION_NAMES = ("Fold", "Call", "Raise")
_SUIT_NAMES = "shdc"
_RANK_NAMES_SMALL = "JQKA"
_RANK_NAMES_FULL = "23456789TJQKA"
NUM_PLAYERS = 2
DEFAULTS: dict[str, object] = {"ranks": 3, "suits": 2, "raise_sizes": [2, 4], "max_raises": 2}
MAX_DECK = 1000
"""Largest deck (ranks * suits): a bigger one could not be compiled or even dealt in reasonable memory."""


def _round_over(seq: tuple[int, ...]) -> bool:
    """A betting round ends on a fold, or on a call that is not the opening check."""
    return bool(seq) and (seq[-1] == FOLD or (seq[-1] == CALL and len(seq) >= 2))


@dataclass(frozen=True, slots=True)
class LeducState(State):
    game: "LeducHoldem"
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

    def _apply(self, action: int) -> "LeducState":
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
        key = f"{len(self.private)}:" + "".join(_ACTION_LETTERS[a] for a in self.round1)
        if self.public >= 0:
            key += f"/{self.game.card_name(self.public)}:" + "".join(_ACTION_LETTERS[a] for a in self.round2)
        return key

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        if not 0 <= player < NUM_PLAYERS:
            raise ValueError(f"information_state_key needs a player in 0..{NUM_PLAYERS - 1}, got {player}")
        card = self.game.card_name(self.private[player]) if player < len(self.private) else "?"
        key = f"{player}:{card}:" + "".join(_ACTION_LETTERS[a] for a in self.round1)
        if self.public >= 0:
            key += f"/{self.game.card_name(self.public)}:" + "".join(_ACTION_LETTERS[a] for a in self.round2)
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
        return _ACTION_NAMES[action] if 0 <= action < len(_ACTION_NAMES) else str(action)

    def __str__(self) -> str:
        cards = " ".join(self.game.card_name(c) for c in self.private)
        board = self.game.card_name(self.public) if self.public >= 0 else "-"
        r1 = "".join(_ACTION_LETTERS[a] for a in self.round1) or "-"
        r2 = "".join(_ACTION_LETTERS[a] for a in self.round2) or "-"
        return f"private [{cards}] public {board} round1 {r1} round2 {r2}"


class LeducHoldem(Game):
    """Leduc hold'em; the default matches OpenSpiel's ``leduc_poker``."""

    name = "leduc"
    default_params = DEFAULTS
    parameter_help = {
        "ranks": "card ranks: an integer >= 1 (ranks * suits: 3 to 1000 cards)",
        "suits": "suits: an integer >= 1",
        "raise_sizes": "bet size per round: a list of two positive integers",
        "max_raises": "bets and raises allowed per round: an integer >= 1",
    }

    def __init__(self, **params: object) -> None:
        super().__init__(**params_from_mapping(DEFAULTS, params, self.name))
        ranks, suits = self.params["ranks"], self.params["suits"]
        raise_sizes, max_raises = self.params["raise_sizes"], self.params["max_raises"]
        for label, value in (("ranks", ranks), ("suits", suits)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise GameDefinitionError(f"leduc: {label} must be a positive integer, got {value!r}")
        deck = ranks * suits  # type: ignore[operator]
        if deck > MAX_DECK:
            raise GameDefinitionError(f"leduc: ranks*suits must be at most {MAX_DECK} cards, got ranks={ranks} "
                                      f"and suits={suits}")
        if deck < NUM_PLAYERS + 1:
            raise GameDefinitionError(
                f"leduc: the deck needs at least 3 cards (2 private + 1 public); got ranks*suits={deck}"
            )
        if (
            not isinstance(raise_sizes, (list, tuple))
            or len(raise_sizes) != 2
            or not all(isinstance(r, (int, float)) and not isinstance(r, bool) and r > 0 for r in raise_sizes)
        ):
            raise GameDefinitionError(
                f"leduc: raise_sizes must be two positive numbers (round 1, round 2), got {raise_sizes!r}"
            )
        if not isinstance(max_raises, int) or isinstance(max_raises, bool) or not 0 <= max_raises <= 100:
            raise GameDefinitionError(f"leduc: max_raises must be an integer >= 0 and at most 100, got {max_raises!r}")
        self.ranks: int = ranks  # type: ignore[assignment]
        self.suits: int = suits  # type: ignore[assignment]
        self.raise_sizes: tuple[float, float] = (float(raise_sizes[0]), float(raise_sizes[1]))
        self.max_raises: int = max_raises
        self.deck_size: int = self.ranks * self.suits
        if self.ranks <= len(_RANK_NAMES_SMALL):
            self._rank_names = list(_RANK_NAMES_SMALL[: self.ranks])
        elif self.ranks <= len(_RANK_NAMES_FULL):
            self._rank_names = list(_RANK_NAMES_FULL[-self.ranks :])
        else:
            self._rank_names = [f"r{r}" for r in range(self.ranks)]
        self._suit_names = list(_SUIT_NAMES[: self.suits]) if self.suits <= len(_SUIT_NAMES) else [
            str(s) for s in range(self.suits)
        ]
        self._rank_of_card = {LeducHoldem.card_name(self, c): self._rank_names[c // self.suits]
                              for c in range(self.deck_size)}
        most = 1.0 + max_raises * (self.raise_sizes[0] + self.raise_sizes[1])
        self._info = GameInfo(
            num_players=NUM_PLAYERS,
            max_actions=3,
            max_chance_outcomes=self.deck_size,
            min_utility=-most,
            max_utility=most,
            zero_sum=True,
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    def deal(self, used: tuple[int, ...]) -> list[tuple[int, float]]:
        """Chance outcomes of the next card: each card not in ``used``, uniformly."""
        left = [c for c in range(self.deck_size) if c not in used]
        return [(c, 1.0 / len(left)) for c in left]

    def tree_builder(self) -> "tuple[int, Callable[[], dict[str, Any]]] | None":
        """Leduc's regular tree written directly by a numba pass (``cfrlab.games.leduc_tree``)."""
        from cfrlab.games.leduc_tree import leduc_num_nodes, leduc_tree_arrays

        return leduc_num_nodes(self.deck_size, self.max_raises), lambda: leduc_tree_arrays(self)

    def conditioned_deal(self) -> "Callable[[str, int], LeducDeal]":
        """The private cards drawn given one player's infoset (``LeducDeal``)."""
        return lambda key, player, public=False: LeducDeal(self, key, player, public=public)

    def symmetry_quotient(self) -> "LeducHoldem | None":
        """Suits never matter in Leduc: the game with cards dealt by rank (``leduc_suitless``)."""
        return SuitlessLeduc(**self.params) if self.suits > 1 else None

    def quotient_key(self, key: str) -> str:
        """``"0:Qh:rc/Ks:r"`` -> ``"0:Q:rc/K:r"``; ``ValueError`` for a key that is not this game's."""
        try:
            player, rest = key.split(":", 1)
            parts = []
            for part in rest.split("/"):
                card, actions = part.split(":")
                parts.append(f"{self._rank_of_card[card]}:{actions}")
        except (ValueError, KeyError):
            raise ValueError(f"{key!r} is not an infoset of {self.spec()}") from None
        return f"{player}:" + "/".join(parts)

    def quotient_infosets(self, key: str) -> list[str]:
        """``"0:Q:rc/K:r"`` -> ``["0:Qs:rc/Ks:r", "0:Qs:rc/Kh:r", ...]``: every suit of each card, cards distinct."""
        try:
            player, rest = key.split(":", 1)
            parts = [part.split(":") for part in rest.split("/")]
            ranks = [self._rank_names.index(name) for name, _ in parts]
            if player not in ("0", "1") or len(parts) > 2 or any(len(part) != 2 for part in parts):
                raise ValueError
        except ValueError:
            raise ValueError(f"{key!r} is not an infoset of {self.spec()}'s suit quotient") from None
        suits = range(self.suits)
        out = []
        for chosen in itertools.product(*[[r * self.suits + s for s in suits] for r in ranks]):
            if len(set(chosen)) == len(chosen):
                out.append(f"{player}:" + "/".join(f"{self.card_name(c)}:{actions}"
                                                   for c, (_, actions) in zip(chosen, parts)))
        return out

    def card_name(self, card: int) -> str:
        """Rank then suit, e.g. ``"Qh"``; with more than 4 suits the suit is a number (``"Q5"``)."""
        return self._rank_names[card // self.suits] + self._suit_names[card % self.suits]

    def new_initial_state(self) -> LeducState:
        return LeducState(self)

    def information_state_tensor_size(self) -> int:
        return NUM_PLAYERS + 2 * self.deck_size + 4 * (self.max_raises + 2)


class SuitlessLeduc(LeducHoldem):
    """Leduc with suits merged: each deal draws a rank with probability (cards of it left) / (cards left).

    Payoffs depend on ranks only, so this is ``leduc``'s suit-symmetry quotient: an infoset here is the
    union of the ``leduc`` infosets that differ only in suits (keys with rank-only cards, ``"0:Q:rc/K:r"``),
    and solving it solves ``leduc`` (a lossless isomorphism abstraction, Gilpin & Sandholm 2007).
    The card dealt stands for its rank: the lowest unused card of that rank.
    """

    name = "leduc_suitless"

    def deal(self, used: tuple[int, ...]) -> list[tuple[int, float]]:
        left = [c for c in range(self.deck_size) if c not in used]
        first: dict[int, int] = {}
        count: dict[int, int] = {}
        for c in left:
            first.setdefault(c // self.suits, c)
            count[c // self.suits] = count.get(c // self.suits, 0) + 1
        return [(first[r], count[r] / len(left)) for r in sorted(first)]

    def symmetry_quotient(self) -> None:
        return None

    def tree_builder(self) -> "tuple[int, Callable[[], dict[str, Any]]] | None":
        from cfrlab.games.leduc_tree import leduc_num_nodes, leduc_tree_arrays

        size = leduc_num_nodes(self.deck_size, self.max_raises, self.suits)
        return size, lambda: leduc_tree_arrays(self, by_rank=True)

    def card_name(self, card: int) -> str:
        return self._rank_names[card // self.suits]


class LeducDeal(DealProposal):
    """Leduc's two private cards given infoset ``key`` of ``player`` (seed 000 sec. 10.1's proposal): the
    player's own card, and the opponent's drawn from chance restricted to the cards the public card leaves
    possible, i.e. sigma'_c(deal) = f_c(deal) / f_c(deals of the infoset) on the infoset's deals. With
    ``public`` (public-subgame targeting): both cards drawn so, the player's own card unknown too."""

    length = NUM_PLAYERS

    def __init__(self, game: LeducHoldem, key: str, player: int, public: bool = False) -> None:
        self.game = game
        own, board, self.rounds = self._parse(key, player)
        names = {c: game.card_name(c) for c in range(game.deck_size)}
        self.rows: dict[int, dict[int, float]] = {}  # first card -> {second card: f_c(second | first)} that fit
        self.first: dict[int, float] = {}  # first card -> f_c(first) * f_c(seconds that fit | first)
        self.mass: dict[int, float] = {}  # first card -> f_c(seconds that fit | first)
        for c0, f0 in game.deal(()):
            row = {c1: f1 for c1, f1 in game.deal((c0,))
                   if (public or names[(c0, c1)[player]] == own)
                   and (board is None or any(names[b] == board for b, _ in game.deal((c0, c1))))}
            if row:
                self.rows[c0], self.mass[c0] = row, sum(row.values())
                self.first[c0] = f0 * self.mass[c0]
        self.total = sum(self.first.values())
        self.board = board
        self.reach(game, key, player, public=f"{NUM_PLAYERS}:" + key.split(":", 2)[2] if public else None)

    @staticmethod
    def _parse(key: str, player: int) -> tuple[str, str | None, tuple[tuple[int, ...], tuple[int, ...]]]:
        """(own card, public card or None, the two rounds' actions) of a key ``"0:Qh:rc/Ks:r"``."""
        try:
            owner, own, rest = key.split(":", 2)
            first, _, second = rest.partition("/")
            board, _, second = second.partition(":") if second else ("", "", "")
            rounds = tuple(tuple(_ACTION_LETTERS.index(ch) for ch in seq) for seq in (first, second))
            if int(owner) != player:
                raise ValueError
        except ValueError:
            raise ValueError(f"no history has infoset {key!r} for player {player}") from None
        return own, board or None, rounds  # type: ignore[return-value]

    def propose(self, state: State, uniform: Callable[[], float]) -> int:
        private = state.private  # type: ignore[attr-defined]
        if not private:
            return self.pick(list(self.first), list(self.first.values()), uniform)
        row = self.rows[private[0]]
        return self.pick(list(row), list(row.values()), uniform)

    def ratio(self, state: State, action: int) -> float:
        private = state.private  # type: ignore[attr-defined]
        if not private:  # sigma'(first) / f(first) = f(seconds that fit | first) / f(deals of the infoset)
            return self.mass[action] / self.total if action in self.mass else 0.0
        return 1.0 / self.mass[private[0]] if action in self.rows.get(private[0], ()) else 0.0

    def continuation(self, deal: tuple[int, ...]) -> tuple[int, ...]:
        first, second = self.rounds
        if self.board is None:
            return first
        board = [b for b, _ in self.game.deal(deal) if self.game.card_name(b) == self.board]
        return first + tuple(board[:1]) + second
