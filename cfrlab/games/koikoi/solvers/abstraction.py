"""An information abstraction of Koi-Koi for tabular sampled CFR: a small key per decision and abstract actions.

Why: the full game's information sets (own hand, field, both piles, the whole public history) are far too many
for tables, so the blueprint (``cfrlab.games.koikoi.solvers.blueprint``) learns over abstract information sets instead
(information abstraction as in Gilpin & Sandholm 2007 and Johanson et al. 2013; sampled CFR on an imperfect-recall
abstraction: Waugh et al. 2009, Lanctot et al. 2012). What the key reads is only what the acting player sees.

Specification in cfrlab (``ABSTRACTION_VERSION`` changes whenever any of it changes):
* Card feature of a candidate capture (play or capture choice): ``4 * gain + kind``, where ``gain`` is 1 when the
  captured cards raise the player's base score (a yaku formed or grown, in the round's context: field, month, own
  calls) and ``kind`` is the best kind among the cards taken (0 bright, 1 animal, 2 ribbon, 3 chaff), ids 0-7.
  A play with no match is a discard: ``8 + kind`` of the discarded card, ids 8-11. A play matching two field cards
  is valued with the better of the two (the capture choice follows as its own decision).
* PLAY: abstract actions are the distinct features of the hand's cards; each stands for the card of its feature
  with the largest (score gain, captured card value), ties to the lowest card id (the greedy heuristic's order).
  Key ``P<stage><own yaku><opponent yaku>:<features>``: stage 0 (6-8 cards in hand), 1 (3-5), 2 (1-2); the two
  flags are 1 when that player's base score is positive.
* Capture choice (after a play or a draw): the same per field card, the pending card included in what is taken.
  Key ``C<phase><stage><own yaku><opponent yaku>:<features>``.
* KOI-KOI/STOP: abstract actions are the engine's own (48 STOP, 49 KOI-KOI). Key
  ``D<score><hand><opponent yaku><calls><opponent calls>``: own base score capped at 9, cards left in hand as
  0 / 1-2 / 3-4 / 5+, the opponent's yaku flag, own calls capped at 2, the opponent's calls capped at 1; a
  suffix ``s`` when the rules allow STOP only.
* ``AbstractKoiKoiGame`` wraps a Koi-Koi game: the same chance nodes and returns, the abstract key as
  ``information_state_key`` and abstract action ids as ``legal_actions`` (mapped back to cards on ``child``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from cfrlab.game import CHANCE, Game, GameInfo, IllegalActionError, State
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.heuristic import greedy_action
from cfrlab.games.koikoi.rules.playout_policy import hand_bucket

ABSTRACTION_VERSION = 1
DISCARD = 8
PLAYS = ("features", "greedy")


class Decision(NamedTuple):
    """One decision seen through the abstraction: its key, abstract actions (sorted) and their concrete actions."""

    key: str
    actions: tuple[int, ...]
    concrete: tuple[int, ...]


def _stage(hand_size: int) -> int:
    return 0 if hand_size >= 6 else 1 if hand_size >= 3 else 2


def _best(options: dict[int, tuple[tuple[int, int], int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    feats = tuple(sorted(options))
    return feats, tuple(options[f][1] for f in feats)


def _offer(options: dict[int, tuple[tuple[int, int], int]], feature: int, rank: tuple[int, int], card: int) -> None:
    """Keep, per feature, the card of the best rank (cards come in increasing id order, so ties keep the lowest)."""
    held = options.get(feature)
    if held is None or rank > held[0]:
        options[feature] = (rank, card)


def decide(state: Any, plays: str = "features") -> Decision:
    """The abstraction of the decision at ``state`` (a ``KoiKoiState`` at a player's node); module docstring.

    ``plays='greedy'`` collapses every PLAY decision to the greedy heuristic's card (key ``P``, one action)."""
    es: E.EngineState = state.es
    if es.phase == E.PLAY and plays == "greedy":
        card = greedy_action(state)
        return Decision("P", (card,), (card,))
    eng: E.Engine = state.game.engine
    p = eng.mover(es)
    own, opp = eng.score(es, p), eng.score(es, 1 - p)
    hand = es.hands[p]
    if es.phase == E.DECIDE:
        called = f"{min(es.calls[p], 2)}{min(es.calls[1 - p], 1)}"
        key = f"D{min(own, 9)}{hand_bucket(hand.bit_count())}{int(opp > 0)}{called}"
        legal = tuple(eng.legal_actions(es))
        return Decision(key if len(legal) == 2 else f"{key}s", legal, legal)
    field, pile = es.field, es.piles[p]
    month, calls = eng.round_month(es), es.calls[p]
    base = eng.scorer.score(pile, field, month, calls)
    options: dict[int, tuple[tuple[int, int], int]] = {}

    def take(gained: int) -> tuple[int, int, int]:
        gain = eng.scorer.score(pile | gained, field, month, calls) - base
        kind = min(C.KIND[c] for c in C.cards_of(gained))
        return 4 * int(gain > 0) + kind, gain, sum(C.CARD_VALUE[c] for c in C.cards_of(gained))

    flags = f"{_stage(hand.bit_count() + (0 if es.phase == E.PLAY else 1))}{int(own > 0)}{int(opp > 0)}"
    if es.phase == E.PLAY:
        for c in C.cards_of(hand):
            matches = field & C.CARD_MONTH_MASK[c]
            if not matches:
                _offer(options, DISCARD + C.KIND[c], (0, -C.CARD_VALUE[c]), c)
                continue
            if matches.bit_count() == 2:
                matches = 1 << max(C.cards_of(matches), key=lambda x: (C.CARD_VALUE[x], -x))
            feature, gain, value = take(matches | 1 << c)
            _offer(options, feature, (gain, value), c)
        feats, concrete = _best(options)
        return Decision(f"P{flags}:" + ",".join(map(str, feats)), feats, concrete)
    if es.phase in (E.PLAY_CAPTURE, E.DRAW_CAPTURE):
        pend = 1 << es.pending
        for f in eng.legal_actions(es):
            feature, gain, value = take(pend | 1 << f)
            _offer(options, feature, (gain, value), f)
        feats, concrete = _best(options)
        return Decision(f"C{es.phase}{flags}:" + ",".join(map(str, feats)), feats, concrete)
    raise ValueError(f"no player decision in phase {E.PHASE_NAMES[es.phase]}")


class AbstractKoiKoiState(State):
    """A Koi-Koi state seen through the abstraction (the wrapped state is ``inner``)."""

    __slots__ = ("game", "inner", "_decision")

    def __init__(self, game: AbstractKoiKoiGame, inner: Any) -> None:
        self.game = game
        self.inner = inner
        self._decision: Decision | None = None

    def decision(self) -> Decision:
        if self._decision is None:
            self._decision = decide(self.inner, self.game.plays)
        return self._decision

    def current_player(self) -> int:
        return self.inner.current_player()

    def is_terminal(self) -> bool:
        return self.inner.is_terminal()

    def is_chance_node(self) -> bool:
        return self.inner.is_chance_node()

    def legal_actions(self) -> list[int]:
        if self.inner.current_player() < 0:
            return self.inner.legal_actions()
        return list(self.decision().actions)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.inner.chance_outcomes()

    def sample_chance(self, rng: np.random.Generator) -> int:
        """A chance action drawn with its probability (the full deal included)."""
        return self.inner.sample_chance(rng)

    def concrete_action(self, action: int) -> int:
        """The game's action that abstract ``action`` stands for here."""
        d = self.decision()
        try:
            return d.concrete[d.actions.index(action)]
        except ValueError:
            raise IllegalActionError(f"abstract action {action} is not legal here; legal: {list(d.actions)}") from None

    def child(self, action: int) -> AbstractKoiKoiState:
        if self.inner.current_player() == CHANCE:
            return AbstractKoiKoiState(self.game, self.inner.child(action))
        return self._apply(action)

    def _apply(self, action: int) -> AbstractKoiKoiState:
        return AbstractKoiKoiState(self.game, self.inner.child(self.concrete_action(int(action))))

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        if player != self.current_player():
            raise ValueError("the abstract key is defined for the acting player only")
        return self.decision().key

    def returns(self) -> list[float]:
        return self.inner.returns()

    def action_to_string(self, action: int) -> str:
        return self.inner.action_to_string(self.concrete_action(action))


class AbstractKoiKoiGame(Game):
    """A Koi-Koi game (``koikoi`` with the same parameters) played through the abstraction; ``plays`` as in
    ``decide``."""

    name = "koikoi_abstract"
    rules_version = ABSTRACTION_VERSION

    def __init__(self, plays: str = "features", **params: Any) -> None:
        from cfrlab.games.koikoi.rules.game import KoiKoiGame

        if plays not in PLAYS:
            raise ValueError(f"plays must be one of {', '.join(PLAYS)}, got {plays!r}")
        super().__init__(plays=plays, **params)
        self.plays = plays
        self.inner = KoiKoiGame(**params)
        self.rules = self.inner.rules
        if self.rules.rounds != 1:  # the abstraction sees one round: no match score, no rounds left
            raise ValueError(f"the blueprint is trained on single rounds; {self.inner.spec()} plays "
                             f"{self.rules.rounds} (leave out rounds=)")

    @property
    def info(self) -> GameInfo:
        return self.inner.info

    def new_initial_state(self) -> AbstractKoiKoiState:
        return AbstractKoiKoiState(self, self.inner.new_initial_state())
