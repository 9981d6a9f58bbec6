"""Local Best Response (Lisý and Bowling 2017) for limit hold'em: a lower bound on a strategy's exploitability.

LBR plays real hands against the strategy. It keeps the opponent's range (a
weight per private hand, updated by Bayes' rule with the strategy's own action
probabilities) and, at each of its decisions, picks the action that is best
if both players only check or call afterwards (the paper's Algorithm 1):

* fold: 0; call: ``wp * pot - (1 - wp) * asked``;
* raise: ``fp * pot + (1 - fp) * (wp * (pot + bet) - (1 - wp) * (asked + bet))``;

all relative to folding now, ``pot`` both players' chips in, ``asked`` the amount to call and ``bet`` what the
raise adds beyond it (the paper's ``a``): a called raise won gains the pot and the opponent's call of ``bet``,
lost it costs the call and the raise. With ``wp`` the probability of beating the range at the showdown (ties half,
over board completions: all of them up to ``rollouts``, else that many drawn at
random) and ``fp`` the range's probability of folding to the raise. A raise's ``wp``
is against the part of the range that does not fold to it (each hand weighted by
its probability of staying in), not the whole range as in the paper's Algorithm 1:
a range whose weak hands fold is stronger when it calls, and on the last round,
against a strategy that folds or calls, the raise's value is then exact. LBR's mean
return over both seats is an estimate of a lower bound on exploitability
(NashConv / 2), with a 95 % interval. A hand that reaches a showdown scores its
expected result over the opponent's range (the exact posterior of its cards)
instead of the result against its one dealt hand: the same expectation, a
smaller variance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from math import comb
from typing import cast

import numpy as np
from numba import njit

from cfrlab.eval.arena import Interval
from cfrlab.game import CHANCE
from cfrlab.games.holdem.rules.evaluator import hand_value_nb, tables
from cfrlab.games.holdem.rules.game import CALL, FOLD, RAISE, HoldemState, LimitHoldem
from cfrlab.seeding import as_generator

ActionProbs = Callable[[HoldemState], Mapping[int, float]]


@njit(cache=True, nogil=True)
def range_equity(hole, board, opponents, weights, completions, flush, counts, dp, offsets):  # pragma: no cover
    """Weighted probability that ``hole`` beats the range at the showdown, ties half (absolute card ids)."""
    h, nb, nc = len(hole), len(board), completions.shape[1]
    n = h + nb + nc
    mine_cards = np.empty(n, dtype=np.int64)
    theirs_cards = np.empty(n, dtype=np.int64)
    mine_cards[:h] = hole
    mine_cards[h : h + nb] = board
    theirs_cards[h : h + nb] = board
    score, total = 0.0, 0.0
    for c in range(completions.shape[0]):
        mine_cards[h + nb :] = completions[c]
        theirs_cards[h + nb :] = completions[c]
        mine = hand_value_nb(mine_cards, n, flush, counts, dp, offsets)
        for o in range(opponents.shape[0]):
            if weights[o] <= 0.0:
                continue
            clash = False
            for i in range(h):
                for j in range(nc):
                    if opponents[o, i] == completions[c, j]:
                        clash = True
            if clash:
                continue
            theirs_cards[:h] = opponents[o]
            theirs = hand_value_nb(theirs_cards, n, flush, counts, dp, offsets)
            score += weights[o] * (1.0 if mine > theirs else (0.5 if mine == theirs else 0.0))
            total += weights[o]
    return score / total if total > 0.0 else 0.5


def raise_value(pot: float, asked: float, bet: float, wp: float, fp: float) -> float:
    """A raise's value relative to folding when the range folds with ``fp`` and else calls to a showdown won
    with ``wp`` (Lisý & Bowling 2017, Algorithm 1: fp * pot + (1 - fp) (wp (pot + a) - (1 - wp) (asked + a)))."""
    return fp * pot + (1 - fp) * (wp * (pot + bet) - (1 - wp) * (asked + bet))


def _with_hole(state: HoldemState, player: int, hole: tuple[int, ...]) -> HoldemState:
    h = state.game.hole_cards
    cards = state.cards[: player * h] + hole + state.cards[(player + 1) * h :]
    return HoldemState(state.game, cards, state.rounds)


class _LBR:
    def __init__(self, game: LimitHoldem, probs: ActionProbs, rollouts: int, rng: np.random.Generator) -> None:
        self.game, self.probs, self.rollouts, self.rng = game, probs, rollouts, rng

    def equity(self, state: HoldemState, me: int, holes: list[tuple[int, ...]], weights: np.ndarray) -> float:
        game = self.game
        seen = set(state.hole(me)) | set(state.board())
        rest = [c for c in range(game.deck_size) if c not in seen]
        missing = sum(game.board_cards) - len(state.board())
        if missing == 0:
            completions = np.zeros((1, 0), dtype=np.int64)
        elif comb(len(rest), missing) <= self.rollouts:
            completions = np.array(list(combinations(rest, missing)), dtype=np.int64).reshape(-1, missing)
        else:
            completions = np.array([self.rng.choice(rest, missing, replace=False) for _ in range(self.rollouts)],
                                   dtype=np.int64).reshape(-1, missing)
        a = game.absolute
        return float(range_equity(a[list(state.hole(me))], a[list(state.board())], a[np.array(holes)], weights,
                                  a[completions], *tables()))

    def act(self, state: HoldemState, me: int, holes: list[tuple[int, ...]], weights: np.ndarray) -> int:
        values = self.action_values(state, me, holes, weights)
        return max(values, key=lambda x: (values[x], x == CALL))

    def action_values(self, state: HoldemState, me: int, holes: list[tuple[int, ...]],
                      weights: np.ndarray) -> dict[int, float]:
        """Each legal action's value to ``me`` relative to folding, both players checking or calling after it
        (the module docstring's formulas) against the range ``holes`` weighted by ``weights``."""
        legal = state.legal_actions()
        spent = state.contributions()
        pot, asked = sum(spent), spent[1 - me] - spent[me]
        wp = self.equity(state, me, holes, weights)
        values = {CALL: wp * pot - (1 - wp) * asked}
        if FOLD in legal:
            values[FOLD] = 0.0
        if RAISE in legal:
            raised = cast(HoldemState, state.child(RAISE))
            bet = raised.contributions()[me] - spent[1 - me]
            fold = self.range_probs(raised, holes, weights > 0)[:, FOLD]
            fp = float((weights * fold).sum() / weights.sum()) if weights.sum() > 0 else 0.0
            calling = weights * (1.0 - fold)  # the range that answers the raise: its showdown equity
            wp_called = self.equity(state, me, holes, calling) if calling.sum() > 0 else wp
            values[RAISE] = raise_value(pot, asked, bet, wp_called, fp)
        return values

    def range_probs(self, state: HoldemState, holes: list[tuple[int, ...]], live: np.ndarray) -> np.ndarray:
        """The strategy's action probabilities (a column per action) at ``state`` with its actor holding each of
        ``holes``, zero where ``live`` is False: from the strategy's ``range_probs`` where it has one (a whole range
        at once), else one call per hand."""
        fast = getattr(self.probs, "range_probs", None)
        table = fast(state, holes, live) if fast is not None else None
        if table is not None:
            return table
        table = np.zeros((len(holes), RAISE + 1))
        for i in np.flatnonzero(live):
            for action, p in self.probs(_with_hole(state, state.current_player(), holes[i])).items():
                table[i, action] = p
        return table

    def hand(self, deal: list[int], me: int) -> float:
        """LBR's return on one deal (cards in dealing order) from seat ``me``."""
        game, state, order = self.game, self.game.new_initial_state(), iter(deal)
        holes: list[tuple[int, ...]] | None = None
        weights = np.zeros(0)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state = cast(HoldemState, state.child(next(order)))
                if len(state.cards) == 2 * game.hole_cards:  # private cards dealt: the opponent's range
                    mine = set(state.hole(me))
                    holes = [h for h in combinations(range(game.deck_size), game.hole_cards) if not mine & set(h)]
                    weights = np.ones(len(holes))
                elif holes is not None and len(state.cards) > 2 * game.hole_cards:
                    card = state.cards[-1]
                    weights[[card in h for h in holes]] = 0.0
                continue
            assert holes is not None
            if state.current_player() == me:
                state = cast(HoldemState, state.child(self.act(state, me, holes, weights)))
                continue
            probs = self.probs(state)
            legal = state.legal_actions()
            p = np.array([probs.get(a, 0.0) for a in legal])
            action = legal[int(self.rng.choice(len(legal), p=p / p.sum()))]
            weights *= self.range_probs(state, holes, weights > 0)[:, action]
            state = cast(HoldemState, state.child(action))
        if state.folded() or holes is None:
            return state.returns()[me]
        return self.showdown_value(state, me, holes, weights)

    def showdown_value(self, state: HoldemState, me: int, holes: list[tuple[int, ...]], weights: np.ndarray) -> float:
        """``me``'s expected return at a showdown over the opponent's range, not at its one dealt hand.

        The range is the exact posterior of the opponent's cards given all that ``me`` saw (uniform deal, Bayes'
        rule with the strategy's own probabilities), so this conditional mean has the return's expectation
        (the law of total expectation) and a smaller variance: fewer deals separate two strategies."""
        wp = self.equity(state, me, holes, weights)  # the board is complete: exact, ties half
        return (2.0 * wp - 1.0) * state.contributions()[me]  # equal stakes at a showdown


def lbr_returns(game: LimitHoldem, probs: ActionProbs, seeds: Sequence[np.random.SeedSequence],
                rollouts: int = 200) -> list[float]:
    """LBR's return on each deal, the mean of both seats, chips: deal i (its cards, board rollouts and the
    strategy's sampled actions) comes from ``seeds[i]`` alone, so any split of the deals gives the same numbers."""
    out = []
    dealt = 2 * game.hole_cards + sum(game.board_cards)
    for seq in seeds:
        rng = as_generator(seq)
        lbr = _LBR(game, probs, rollouts, rng)
        deal = [int(c) for c in rng.permutation(game.deck_size)[:dealt]]
        out.append((lbr.hand(deal, 0) + lbr.hand(deal, 1)) / 2)
    return out


def local_best_response(game: LimitHoldem, probs: ActionProbs, hands: int = 1000, rollouts: int = 200,
                        seed: int | None = 0) -> Interval:
    """LBR's mean return per hand against ``probs`` (both seats on every deal), chips, with a 95 % interval.

    ``probs(state)`` gives the strategy's action probabilities at a state where it acts (it may read only what
    that player sees: its own cards, the board and the betting).
    """
    if hands < 1 or rollouts < 1:
        raise ValueError(f"LBR needs at least one hand and one rollout, got {hands} hands, {rollouts} rollouts")
    return Interval.of(lbr_returns(game, probs, np.random.SeedSequence(seed).spawn(hands), rollouts))
