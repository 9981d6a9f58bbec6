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

The hand in progress (``LeducState``, the action codes ``FOLD`` ``CALL`` ``RAISE``) is in
``cfrlab.games.leduc_state``; this module holds the game: parameters, deck and deal, the suit quotient
(``SuitlessLeduc``) and the conditioned deal for OOS (``LeducDeal``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from cfrlab.game import DealProposal, Game, GameDefinitionError, GameInfo, State, params_from_mapping
from cfrlab.games.leduc_state import ACTION_LETTERS, NUM_PLAYERS, LeducState

_SUIT_NAMES = "shdc"
_RANK_NAMES_SMALL = "JQKA"
_RANK_NAMES_FULL = "23456789TJQKA"
DEFAULTS: dict[str, object] = {"ranks": 3, "suits": 2, "raise_sizes": [2, 4], "max_raises": 2}
MAX_DECK = 1000
"""Largest deck (ranks * suits): a bigger one could not be compiled or even dealt in reasonable memory."""
MAX_STAKE = 10**6
"""Largest bet size: payoffs stay far inside what the solvers sum exactly (1e300 was taken)."""


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
    parameter_bounds = {"ranks": (1, MAX_DECK), "suits": (1, MAX_DECK), "raise_sizes": (0, MAX_STAKE),
                        "max_raises": (0, 100)}

    def __init__(self, **params: object) -> None:
        super().__init__(**params_from_mapping(DEFAULTS, params, self.name))
        ranks, suits = self.params["ranks"], self.params["suits"]
        raise_sizes, max_raises = self.params["raise_sizes"], self.params["max_raises"]
        for label, value in (("ranks", ranks), ("suits", suits)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise GameDefinitionError(f"leduc: {label} must be a positive integer, got {value!r}")
        deck = ranks * suits
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
        self.ranks: int = ranks
        self.suits: int = suits
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

    def tree_builder(self) -> tuple[int, Callable[[], dict[str, Any]]] | None:
        """Leduc's regular tree written directly by a numba pass (``cfrlab.games.leduc_tree``)."""
        from cfrlab.games.leduc_tree import leduc_num_nodes, leduc_tree_arrays

        return leduc_num_nodes(self.deck_size, self.max_raises), lambda: leduc_tree_arrays(self)

    def conditioned_deal(self) -> Callable[..., LeducDeal]:
        """The private cards drawn given one player's infoset (``LeducDeal``)."""
        return lambda key, player, public=False: LeducDeal(self, key, player, public=public)

    def openspiel_twin(self) -> tuple[str, dict[str, Any]] | None:
        """``leduc_poker`` for the default game (module docstring); None for other parameters."""
        return ("leduc_poker", {}) if self.params == DEFAULTS and type(self) is LeducHoldem else None

    def symmetry_quotient(self) -> LeducHoldem | None:
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

    def tree_builder(self) -> tuple[int, Callable[[], dict[str, Any]]] | None:
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
            rounds = tuple(tuple(ACTION_LETTERS.index(ch) for ch in seq) for seq in (first, second))
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
