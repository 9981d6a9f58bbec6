"""The Koi-Koi rules engine: pure step functions over an immutable state of ints and 48-bit card masks.

Rules (koikoi-rules.md sec. 3-7): deal 8 cards to each hand and 8 to the field (redeal if the field shows four of a
month); a hand with teshi or kuttsuki wins at once; then the oya and the ko alternate 8 turns each. A turn plays a
hand card and captures by month (choose when 2 match, take all when 3 match), then draws and captures the same way.
If the mover's base score rose, they STOP (win now) or call KOI-KOI (once per round, either player); after a call
the next rise ends the round. Both hands empty: an exhaustive draw. The winner deals the next round; 12 rounds.

Specification in cfrlab:
* ``EngineState`` is an immutable ``NamedTuple`` (hashable, cheap to copy; ``_replace`` gives the successor), the
  pgx style with explicit randomness: ``Engine.step(state, action)`` returns a new state and never mutates;
  ``Engine.sample_chance(state, rng)`` draws a chance action from an ``np.random.Generator``.
* Phases: FIRST_OYA (chance coin, matches only) -> DEAL (chance) -> [teyaku resolved inside step] -> per half-turn
  PLAY -> [PLAY_CAPTURE] -> DRAW (chance) -> [DRAW_CAPTURE] -> [DECIDE] -> ... -> TERMINAL. Forced moves (stops
  after a koi-koi, on an empty hand) are resolved inside ``step``.
* Actions (sec. 7): 0-47 the card (play it, or pick it as the capture target), 48 STOP, 49 KOI-KOI.
* Chance actions: FIRST_OYA 0/1; DRAW the card id drawn (uniform over the undrawn cards); DEAL the *rank* of the
  partition (ko hand, field, oya hand) in colex order over the deck (``encode_deal``/``decode_deal``); for the full
  game that is an integer below 3.05e23, sampled, never listed. A misdealt partition is a legal outcome and leads
  to a redeal (same oya, ``redeals`` + 1), exactly as at the table.
* Round utilities are zero-sum: +P for the winner, -P for the loser, 0 for a void round. Matches add them up
  (``match_utility='points'``) or give +1/-1/0 for the match result (``'win'``).

The state, the phase and action codes and the deal codec are in ``engine_state`` (re-exported here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cfrlab.game import GameDefinitionError, IllegalActionError
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules.engine_state import (
    CHANCE_PHASES,
    DEAL,
    DECIDE,
    DRAW,
    DRAW_CAPTURE,
    ENUMERABLE_DEALS,
    FIRST_OYA,
    KOIKOI,
    NUM_ACTIONS,
    PHASE_NAMES,
    PLAY,
    PLAY_CAPTURE,
    STOP,
    TERMINAL,
    DealCodec,
    EngineState,
    RoundResult,
    _set,
)
from cfrlab.games.koikoi.rules.rules import RuleSet, month_of_round
from cfrlab.games.koikoi.rules.yaku import Scorer

__all__ = ["CHANCE_PHASES", "DEAL", "DECIDE", "DRAW", "DRAW_CAPTURE", "ENUMERABLE_DEALS", "FIRST_OYA", "KOIKOI",
           "NUM_ACTIONS", "PHASE_NAMES", "PLAY", "PLAY_CAPTURE", "STOP", "TERMINAL", "DealCodec", "Engine",
           "EngineState", "RoundResult"]


class Engine(DealCodec):
    """Rules engine for one ``RuleSet``: stateless apart from tables derived from the rules."""

    def __init__(self, rules: RuleSet | None = None, first_oya: int | None = 0, match_utility: str = "points") -> None:
        self.rules = rules = rules or RuleSet()
        if first_oya not in (0, 1, None):
            raise GameDefinitionError(f"koikoi: first_oya must be 0, 1 or 'coin', got {first_oya!r}")
        if match_utility not in ("points", "win"):
            raise GameDefinitionError(f"koikoi: match_utility must be 'points' or 'win', got {match_utility!r}")
        self.first_oya = first_oya
        self.match_utility = match_utility
        self.scorer = Scorer(rules)
        super().__init__(C.deck_mask(rules.months), rules.hand_size, rules.field_size)
        self.half_turns = 2 * rules.hand_size
        self._score_needs_context = not self.scorer._nintendo_fast
        self._new_yaku = rules.koikoi_trigger == "new_yaku"

    # ------------------------------------------------------------------ queries
    def initial_state(self) -> EngineState:
        r = self.rules
        phase = FIRST_OYA if self.first_oya is None else DEAL
        return EngineState(phase, self.first_oya or 0, 0, 0, (0, 0), 0, (0, 0), self.deck, -1, 0, frozenset(),
                           (0, 0), -1, 0, (r.initial_points, r.initial_points), 0, 0, None)

    def mover(self, s: EngineState) -> int:
        """The player to act at a decision phase (oya on even half-turns)."""
        return (s.oya + s.turn) & 1

    def round_month(self, s: EngineState) -> int:
        return month_of_round(self.rules, s.round)

    def score(self, s: EngineState, p: int) -> int:
        """Player ``p``'s base score now."""
        if self._score_needs_context:
            return self.scorer.score(s.piles[p], s.field, self.round_month(s), s.calls[p])
        return self.scorer._score_nintendo(s.piles[p])

    def yaku(self, s: EngineState, p: int) -> list[tuple[str, int]]:
        return self.scorer.yaku(s.piles[p], s.field, self.round_month(s), s.calls[p])

    def legal_actions(self, s: EngineState) -> list[int]:
        """Sorted legal actions; chance phases list their outcomes (the full-game deal raises)."""
        ph = s.phase
        if ph == PLAY:
            return C.cards_of(s.hands[(s.oya + s.turn) & 1])
        if ph == DRAW:
            return C.cards_of(s.stock)
        if ph == PLAY_CAPTURE or ph == DRAW_CAPTURE:
            return C.cards_of(s.field & C.CARD_MONTH_MASK[s.pending])
        if ph == DECIDE:
            return [STOP, KOIKOI]
        if ph == FIRST_OYA:
            return [0, 1]
        if ph == DEAL:
            self._require_enumerable()
            return list(range(self.num_deals))
        return []

    def chance_outcomes(self, s: EngineState) -> list[tuple[int, float]]:
        """(action, probability) at a chance node; uniform in every case."""
        if s.phase not in CHANCE_PHASES:
            raise GameDefinitionError(f"not a chance node (phase {PHASE_NAMES[s.phase]})")
        acts = self.legal_actions(s)
        p = 1.0 / len(acts)
        return [(a, p) for a in acts]

    def sample_chance(self, s: EngineState, rng: np.random.Generator) -> int:
        """A chance action drawn with its probability (the deal too, without listing it)."""
        if s.phase == DRAW:
            stock = C.cards_of(s.stock)
            return stock[int(rng.random() * len(stock))]  # uniform index; rng.random() is cheaper than integers()
        if s.phase == FIRST_OYA:
            return int(rng.integers(2))
        if s.phase == DEAL:
            ko, field, oya = self.sample_deal(rng)
            return self.encode_deal(ko, field, oya)
        raise GameDefinitionError(f"sample_chance called at a non-chance phase {PHASE_NAMES[s.phase]}")

    # ------------------------------------------------------------------ step
    def step(self, s: EngineState, action: int) -> EngineState:
        """The successor of ``s`` after ``action``; raises ``IllegalActionError`` and leaves ``s`` as it was."""
        ph = s.phase
        if ph == DEAL:
            return self.deal(s, *self.decode_deal(action))
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"actions are integers, got {action!r}")
        action = int(action)
        if ph == PLAY:
            p = (s.oya + s.turn) & 1
            bit = 1 << action if 0 <= action < 48 else 0
            if not s.hands[p] & bit:
                raise IllegalActionError(self._illegal(s, action, "play a card from your hand"))
            return self._put_down(s, p, action, PLAY_CAPTURE, hands=_set(s.hands, p, s.hands[p] ^ bit),
                                  played=_set(s.played, p, s.played[p] | bit))
        if ph == DRAW:
            bit = 1 << action if 0 <= action < 48 else 0
            if not s.stock & bit:
                raise IllegalActionError(self._illegal(s, action, "draw an undrawn card"))
            return self._put_down(s, (s.oya + s.turn) & 1, action, DRAW_CAPTURE, stock=s.stock ^ bit)
        if ph == PLAY_CAPTURE or ph == DRAW_CAPTURE:
            p = (s.oya + s.turn) & 1
            bit = 1 << action if 0 <= action < 48 else 0
            if not s.field & C.CARD_MONTH_MASK[s.pending] & bit:
                raise IllegalActionError(self._illegal(s, action, "choose one of the matching field cards"))
            s = s._replace(field=s.field ^ bit, piles=_set(s.piles, p, s.piles[p] | bit | 1 << s.pending), pending=-1)
            return s._replace(phase=DRAW) if ph == PLAY_CAPTURE else self._end_turn(s, p)
        if ph == DECIDE:
            p = (s.oya + s.turn) & 1
            if action == STOP:
                return self._win(s, p, self.score(s, p), "stop")
            if action == KOIKOI:
                return self._next_turn(s._replace(calls=_set(s.calls, p, s.calls[p] + 1)))
            raise IllegalActionError(self._illegal(s, action, "choose STOP (48) or KOI-KOI (49)"))
        if ph == FIRST_OYA:
            if action not in (0, 1):
                raise IllegalActionError(f"the first-oya coin is 0 or 1, got {action}")
            return s._replace(phase=DEAL, oya=action)
        raise IllegalActionError(f"no action is legal at a terminal state (got {action})")

    def _illegal(self, s: EngineState, action: int, what: str) -> str:
        legal = self.legal_actions(s)
        return (f"action {action} is not legal in phase {PHASE_NAMES[s.phase]}: {what}; legal: "
                + ", ".join(map(str, legal)))

    def _put_down(self, s: EngineState, p: int, card: int, capture_phase: int, **changes: Any) -> EngineState:
        """Capture rule (sec. 4.2) for a played or drawn card; ``changes`` ride along in the same copy."""
        m = s.field & C.CARD_MONTH_MASK[card]
        k = m.bit_count()
        if k == 2:
            return s._replace(phase=capture_phase, pending=card, **changes)
        if k == 0:
            field, piles = s.field | 1 << card, s.piles
        else:  # 1 or 3 (4 only if a four-of-a-month field was allowed to stand: take all)
            field, piles = s.field & ~m, _set(s.piles, p, s.piles[p] | m | 1 << card)
        if capture_phase == PLAY_CAPTURE:
            return s._replace(phase=DRAW, field=field, piles=piles, **changes)
        return self._end_turn(s._replace(field=field, piles=piles, **changes), p)

    def _end_turn(self, s: EngineState, p: int) -> EngineState:
        r = self.rules
        s1 = self.score(s, p)
        if self._new_yaku:
            rose = bool(self.scorer.yaku_names(s.piles[p], s.field, self.round_month(s), s.calls[p]) - s.y0)
        else:
            rose = s1 > s.s0
        if rose and s1 > 0 and s1 >= r.koikoi_min_points:
            s = s._replace(last_riser=p)
            if not r.koikoi_allowed or (r.koikoi_limit and s.calls[0] + s.calls[1] >= r.koikoi_limit):
                return self._win(s, p, s1, "stop")
            if r.forced_stop_on_empty_hand and not s.hands[p]:
                return self._win(s, p, s1, "stop")
            return s._replace(phase=DECIDE)
        return self._next_turn(s)

    def _next_turn(self, s: EngineState) -> EngineState:
        t = s.turn + 1
        if t >= self.half_turns:
            return self._exhaustive_draw(s._replace(turn=t))
        if self._score_needs_context or self._new_yaku:
            return self.turn_start(s._replace(phase=PLAY, turn=t))
        return s._replace(phase=PLAY, turn=t, s0=self.scorer._score_nintendo(s.piles[(s.oya + t) & 1]))

    def turn_start(self, s: EngineState) -> EngineState:
        """Record the mover's base score (and yaku, for the 'new_yaku' trigger) at the start of their turn."""
        p = (s.oya + s.turn) & 1
        y0 = self.scorer.yaku_names(s.piles[p], s.field, self.round_month(s), s.calls[p]) if self._new_yaku else s.y0
        return s._replace(s0=self.score(s, p), y0=y0)

    # ------------------------------------------------------------------ round ends
    def _win(self, s: EngineState, p: int, base: int, reason: str, next_oya: int | None = None) -> EngineState:
        steps = self.scorer.round_points_steps(base, s.calls[p], s.calls[1 - p], s.field_brights)
        return self._finish_round(s, p, steps[-1][1], reason, next_oya=p if next_oya is None else next_oya,
                                  yaku=tuple(self.yaku(s, p)), steps=tuple(steps))

    def _exhaustive_draw(self, s: EngineState) -> EngineState:
        mode = self.rules.exhaustive_draw
        if mode == "nothing_oya_stays":
            return self._finish_round(s, -1, 0, "draw", next_oya=s.oya)
        if mode == "oya_ken":
            return self._finish_round(s, s.oya, self.rules.oya_ken_points, "draw", next_oya=s.oya)
        if mode == "oya_plus_one":
            return self._finish_round(s, s.oya, 1, "draw", next_oya=s.oya)
        if mode == "last_yaku_maker" and s.last_riser >= 0:
            return self._win(s, s.last_riser, self.score(s, s.last_riser), "draw")
        return self._finish_round(s, -1, 0, "draw", next_oya=1 - s.oya)

    def _finish_round(self, s: EngineState, winner: int, points: int, reason: str, next_oya: int,
                      yaku: tuple[tuple[str, int], ...] = (), steps: tuple[tuple[str, int], ...] = ()) -> EngineState:
        r = self.rules
        totals, net = s.totals, s.net
        if winner >= 0 and points:
            totals = _set(totals, winner, totals[winner] + points)
            if r.scoring == "transfer":
                totals = _set(totals, 1 - winner, totals[1 - winner] - points)
            net += points if winner == 0 else -points
        result = RoundResult(winner, points, reason, yaku, steps)
        rnd = s.round + 1
        bust = r.bust_ends_match and min(totals) <= 0
        if rnd >= r.rounds or bust:
            return s._replace(phase=TERMINAL, totals=totals, net=net, result=result, pending=-1)
        return EngineState(DEAL, next_oya, rnd, 0, (0, 0), 0, (0, 0), self.deck, -1, 0, frozenset(), (0, 0), -1, 0,
                           totals, net, 0, result)

    # ------------------------------------------------------------------ the deal
    def deal(self, s: EngineState, ko: int, field: int, oya_hand: int) -> EngineState:
        """Apply a deal given as masks: misdeals redeal, teyaku end the round, else the oya's first turn."""
        if s.phase != DEAL:
            raise IllegalActionError(f"no deal now (phase {PHASE_NAMES[s.phase]})")
        r = self.rules
        if (ko | field | oya_hand) & ~self.deck or ko & field or ko & oya_hand or field & oya_hand:
            raise IllegalActionError("a deal needs disjoint cards from this deck")
        hands = _set(_set((0, 0), s.oya, oya_hand), 1 - s.oya, ko)
        stock = self.deck & ~(ko | field | oya_hand)
        base = s._replace(hands=hands, field=field, stock=stock, field_brights=(field & C.BRIGHTS).bit_count())
        counts = [(field & m).bit_count() for m in C.MONTH_MASK]
        if 4 in counts:
            if r.field_four_of_month == "redeal":
                return s._replace(redeals=s.redeals + 1)
            if r.field_four_of_month == "oya_wins":
                return self._finish_round(base, s.oya, r.teshi_points, "field_four", next_oya=s.oya)
        if r.redeal_field_three_of_month and max(counts) >= 3:
            return s._replace(redeals=s.redeals + 1)
        if r.redeal_field_four_pairs and sorted(c for c in counts if c) == [2, 2, 2, 2]:
            return s._replace(redeals=s.redeals + 1)
        if r.redeal_hand_four_of_month and any(self._teshi(x) for x in (ko, oya_hand)):
            return s._replace(redeals=s.redeals + 1)
        return self._teyaku_check(s, base, hands)

    def _teyaku_check(self, s: EngineState, base: EngineState, hands: tuple[int, int]) -> EngineState:
        r = self.rules
        if r.teyaku != "off":
            tey = [self.teyaku_points(hands[0]), self.teyaku_points(hands[1])]
            if tey[0] or tey[1]:
                if r.teyaku == "redeal":
                    return s._replace(redeals=s.redeals + 1)
                if tey[0] and tey[1]:
                    if r.teyaku_both == "void_oya_passes":
                        return self._finish_round(base, -1, 0, "void_teyaku", next_oya=1 - s.oya)
                    if r.teyaku_both == "void_same_oya":
                        return self._finish_round(base, -1, 0, "void_teyaku", next_oya=s.oya)
                else:
                    w = 0 if tey[0] else 1
                    return self._finish_round(base, w, tey[w], "teyaku", next_oya=w,
                                              yaku=tuple(self.teyaku(hands[w])))
        return self.turn_start(base._replace(phase=PLAY, turn=0, pending=-1))

    def hands_play_on(self, hand_a: int, hand_b: int) -> bool:
        """Whether two dealt hands lead to play (no redeal for a hand, no teyaku ending the round)."""
        if self.rules.redeal_hand_four_of_month and (self._teshi(hand_a) or self._teshi(hand_b)):
            return False
        probe = self.initial_state()._replace(phase=DEAL)
        return self._teyaku_check(probe, probe, (hand_a, hand_b)).phase == PLAY

    @staticmethod
    def _teshi(hand: int) -> bool:
        return any((hand & m).bit_count() == 4 for m in C.MONTH_MASK)

    def teyaku_points(self, hand: int) -> int:
        """Teyaku points of a dealt hand: teshi (all 4 of a month) and/or kuttsuki (four pairs)."""
        return sum(p for _, p in self.teyaku(hand))

    def teyaku(self, hand: int) -> list[tuple[str, int]]:
        """The hand yaku of a dealt hand that score, as (name, points): Teshi and/or Kuttsuki."""
        r = self.rules
        counts = [(hand & m).bit_count() for m in C.MONTH_MASK]
        nonzero = [c for c in counts if c]
        if r.kuttsuki_definition == "strict":
            kutt = sorted(nonzero) == [2, 2, 2, 2]
        else:
            kutt = bool(nonzero) and all(c % 2 == 0 for c in nonzero) and hand.bit_count() == 8
        found = [("Teshi", r.teshi_points)] * (4 in counts) + [("Kuttsuki", r.kuttsuki_points)] * kutt
        if len(found) > 1 and not r.teyaku_stack:
            found = [max(found, key=lambda y: y[1])]
        return found

    # ------------------------------------------------------------------ outcome
    def returns(self, s: EngineState) -> tuple[float, float]:
        """Zero-sum utilities (0, 0 before the end)."""
        if s.phase != TERMINAL:
            return (0.0, 0.0)
        if self.rules.rounds > 1 and self.match_utility == "win":
            d = s.totals[0] - s.totals[1]
            v = 1.0 if d > 0 else -1.0 if d < 0 else 0.0
            return (v, -v)
        return (float(s.net), float(-s.net))

    def max_points(self) -> int:
        """An upper bound on one round's points (for utility bounds)."""
        r = self.rules
        base = self.scorer.score(self.deck, 0, 1, 1) + r.tsukifuda + 2 * r.viewing_points
        mult = 4 * max(1, 6 if r.own_koikoi_bonus != "none" else 1) * (6 if r.bright_field_multiplier != "off" else 1)
        if r.opponent_koikoi_multiplier == "calls_plus_one":
            mult *= 2 * r.hand_size + 1
        return max(base * mult + base, r.teshi_points + r.kuttsuki_points, r.oya_ken_points)
