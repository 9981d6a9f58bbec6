"""Playing for the match: the probability of winning a Koi-Koi match from (rounds left, score difference, who deals).

Method: a round changes the match only through the score difference and the next dealer (koikoi-rules.md sec.
6.5), so with a distribution of round outcomes, the match-win probability follows by dynamic programming backwards
from the last round (the approach of Guan et al. 2023's RL-WP reward table ``win_prob_mat[is_next_dealer, round,
point_total]``, computed here exactly over measured outcome distributions instead of by match self-play):

    W(0, d, .) = 1 if d > 0, 1/2 if d = 0, 0 if d < 0
    W(r, d, s) = sum over round outcomes o of P(o | s) * W'(r - 1, d + delta_o(s), next_s(o))

where s says whether the player deals, delta_o is the change of the player's lead (the points, doubled under
``transfer`` scoring, where the loser pays), and W' ends the match at once when a player is bust
(``bust_ends_match``: a total at or below 0; under ``transfer`` scoring, |d| >= 2 * initial points).

Specification in cfrlab:
* ``round_outcomes(rules, n, rng, round_index)``: the joint distribution of (the oya's lead change, whether the
  oya deals again) measured on ``n`` rounds of greedy self-play with the numba batched simulator.
* ``MatchTable.build(rules, rounds=n, seed=s)``: W for every rounds-left count of the rules' match, every lead in
  [-max_lead, max_lead] (beyond it the lead is clipped: a lead that large decides the match in practice) and both
  dealers; ``table.value(rounds_left, lead, deals)`` reads it, vectorised. Rules whose scoring depends on the month
  (tsukifuda, seasonal viewing) get one measured distribution per round.
* The round outcomes are those of greedy against greedy, not of the agents that will use the table: the table prices
  points as those players trade them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.rules.batched import sample_inputs, simulate
from cfrlab.games.koikoi.rules.rules import PRESETS, RuleSet, match_rounds

DEFAULT_MAX_LEAD = 400
DEFAULT_SAMPLES = 100_000


@dataclass(frozen=True)
class RoundOutcomes:
    """Distinct (lead change for the oya, oya deals again) pairs and their probabilities."""

    delta: NDArray[np.int64]
    oya_again: NDArray[np.bool_]
    prob: NDArray[np.float64]


def round_outcomes(rules: RuleSet, n: int, rng: np.random.Generator, round_index: int = 0) -> RoundOutcomes:
    """The outcome distribution of one round of greedy self-play, from the oya's side (``n`` sampled rounds)."""
    res = simulate(rules, sample_inputs(rules, n, rng, policy="greedy"), policy="greedy", round_index=round_index)
    scale = 2 if rules.scoring == "transfer" else 1
    delta = np.where(res.winner < 0, 0, np.where(res.winner == 0, 1, -1)) * res.points.astype(np.int64) * scale
    keys = np.stack([delta, (res.next_oya == 0).astype(np.int64)], axis=1)
    uniq, counts = np.unique(keys, axis=0, return_counts=True)
    return RoundOutcomes(uniq[:, 0], uniq[:, 1].astype(bool), counts / counts.sum())


def month_matters(rules: RuleSet) -> bool:
    """Whether a round's scoring depends on its month (tsukifuda, seasonal viewing): its place in the match."""
    return bool(rules.tsukifuda) or rules.viewing_seasonal != "off"


@dataclass(frozen=True)
class MatchTable:
    """Match-win probability ``win[rounds_left, lead + max_lead, deals]`` (``deals``: 1 if the player is the oya)."""

    win: NDArray[np.float64]
    max_lead: int
    rounds: int
    bust_lead: int | None = None
    """A lead of at least this size ends the match (``RuleSet.bust_ends_match``); None: no lead does."""
    outcomes: tuple[RoundOutcomes, ...] = ()
    """The measured round outcomes the table was induced from (one per distinct month)."""

    @classmethod
    def build(cls, rules: RuleSet, samples: int = DEFAULT_SAMPLES, seed: int = 0,
              max_lead: int = DEFAULT_MAX_LEAD) -> MatchTable:
        """Measure round outcomes (``samples`` rounds per distinct month) and run the backward induction."""
        if rules.bust_ends_match and rules.scoring != "transfer" and rules.initial_points > 0:
            bust_lead = None  # totals only grow from a positive start: nobody is ever bust
        elif rules.bust_ends_match:
            bust_lead = 2 * rules.initial_points if rules.scoring == "transfer" else 0
        else:
            bust_lead = None
        rng = np.random.default_rng(seed)
        months = rules.rounds if month_matters(rules) else 1
        outcomes = [round_outcomes(rules, samples, rng, i) for i in range(months)]
        return cls(backward_induction(outcomes, rules.rounds, max_lead, bust_lead), max_lead, rules.rounds, bust_lead,
                   tuple(outcomes))

    def value(self, rounds_left: int | NDArray[np.int64], lead: int | NDArray[np.int64],
              deals: bool | NDArray[np.bool_]) -> NDArray[np.float64]:
        """The match-win probability (a draw counts 1/2) with ``rounds_left`` rounds to play after this point."""
        idx = np.clip(np.asarray(lead), -self.max_lead, self.max_lead) + self.max_lead
        return self.win[np.asarray(rounds_left), idx, np.asarray(deals).astype(np.int64)]


def level_slope(table: MatchTable, reach: int = 5) -> float:
    """The slope of the match-win logit in the lead near level scores (leads within ``reach``, the dealer either
    seat), least squares, averaged over the rounds left: a first-order model of W in a round's points."""
    leads = np.arange(-reach, reach + 1)
    slopes = []
    for left in range(1, table.rounds + 1):
        w = np.clip((table.value(left, leads, True) + table.value(left, leads, False)) / 2, 1e-6, 1 - 1e-6)
        slopes.append(np.polyfit(leads, np.log(w / (1 - w)), 1)[0])
    return float(np.mean(slopes))


def backward_induction(outcomes: list[RoundOutcomes], rounds: int, max_lead: int,
                       bust_lead: int | None = None) -> NDArray[np.float64]:
    """``W[r, lead + max_lead, deals]`` by the recursion of the module docstring; round ``i`` of the match (0-based)
    has the outcomes ``outcomes[i % len(outcomes)]``; a lead of at least ``bust_lead`` in size ends the match."""
    leads = np.arange(-max_lead, max_lead + 1)
    final = np.where(leads > 0, 1.0, np.where(leads < 0, 0.0, 0.5))
    win = np.empty((rounds + 1, len(leads), 2))
    win[0] = final[:, None]
    for r in range(1, rounds + 1):
        o = outcomes[(rounds - r) % len(outcomes)]  # the round played with r rounds left
        for deals in (0, 1):
            sign = 1 if deals else -1
            after = np.clip(leads[:, None] + sign * o.delta[None, :], -max_lead, max_lead) + max_lead
            next_deals = (o.oya_again if deals else ~o.oya_again).astype(np.int64)
            value = win[r - 1][after, next_deals[None, :]]
            if bust_lead is not None:
                lead_after = leads[:, None] + sign * o.delta[None, :]
                value = np.where(np.abs(lead_after) >= bust_lead, final[after], value)
            win[r, :, deals] = value @ o.prob
    return win


class WinTable(NamedTuple):
    """A ``MatchTable`` as numba kernels read it (``win_after_round``), with the rules' match length and scoring."""

    win: NDArray[np.float64]
    max_lead: int
    bust_lead: int
    """-1: no lead ends the match."""
    rounds: int
    scale: int
    """The change of the winner's lead per point won (2 under ``transfer`` scoring, where the loser pays)."""


def match_rules(rules: RuleSet) -> RuleSet:
    """The rules of the match a round is played in: ``rules`` where they are a match's (more than one round), else
    the same over the preset's match (``rules.match_rounds``: 12, koikoi_japan's 8), as ``cfrlab arena --match``."""
    if rules.rounds > 1:
        return rules
    return rules.replace(rounds=match_rounds(rules.name) if rules.name in PRESETS else 12)


def win_table(rules: RuleSet, table: MatchTable | None = None) -> WinTable:
    """``table`` (default ``match_table(match_rules(rules))``: a single round is one of a match) for
    ``win_after_round`` under ``rules``."""
    table = table if table is not None else match_table(match_rules(rules))
    return WinTable(table.win, table.max_lead, -1 if table.bust_lead is None else table.bust_lead, table.rounds,
                    2 if rules.scoring == "transfer" else 1)


NO_TABLE = WinTable(np.full((1, 1, 2), 0.5), 0, -1, 0, 1)
"""The ``WinTable`` of a one-round match (every round's end is the match's): the argument of kernels that take one
where no match is valued."""


@nb.njit(cache=True)
def win_after_round(t, round_index, lead, gain, deals_next) -> float:
    """A player's match-win probability (a draw 1/2) after round ``round_index`` (0-based) of a match under the
    ``WinTable`` ``t`` ended with ``gain`` points to them (negative: lost), their lead before it ``lead`` and
    ``deals_next`` whether they deal the next round: exact where the match ends there (its last round, or a lead of
    ``bust_lead``), else the table's W(rounds left, lead after, deals)."""
    after = np.int64(lead) + t.scale * np.int64(gain)
    left = t.rounds - round_index - 1
    if left <= 0 or (t.bust_lead >= 0 and abs(after) >= t.bust_lead):
        return 1.0 if after > 0 else 0.0 if after < 0 else 0.5
    m = t.max_lead
    return t.win[left, min(max(after, -m), m) + m, 1 if deals_next else 0]


@lru_cache(maxsize=8)
def match_table(rules: RuleSet, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> MatchTable:
    """``MatchTable.build`` cached per rule set (agents share one)."""
    return MatchTable.build(rules, samples, seed)
