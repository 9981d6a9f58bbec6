"""The arena: duplicate deals, intervals, determinism, generic games (Ray workers: tests/test_distributed.py;
Koi-Koi's greedy agent and matches of rounds: tests/games/koikoi/players/test_arena_koikoi.py)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pytest

from cfrlab.agents import PolicyAgent, RandomAgent
from cfrlab.driver import make_solver
from cfrlab.eval.arena import Z95, Interval, arena
from cfrlab.policy import TabularPolicy


@pytest.fixture(scope="module")
def leduc_cfr() -> TabularPolicy:
    """CFR+'s average policy on Leduc after 100 iterations (exploitability about 0.05: far above random play)."""
    return make_solver("leduc", "cfr+", seed=0).iterate(100).average_policy()


def pure(policy: TabularPolicy, name: str) -> PolicyAgent:
    """A deterministic agent: ``policy``'s most likely action at each infoset."""
    def row(key: str) -> Mapping[int, float]:
        probs = policy.action_probabilities(key)
        return {max(probs, key=probs.__getitem__): 1.0}

    return PolicyAgent(row, name=name)


def test_duplicate_deals_cancel_between_identical_deterministic_agents(leduc_cfr: TabularPolicy) -> None:
    """A pure agent against itself replays each deal exactly with seats swapped: every pair sums to zero."""
    res = arena("leduc", pure(leduc_cfr, "g1"), pure(leduc_cfr, "g2"), deals=40, seed=3)
    assert res.return_a.mean == 0.0 and res.return_a.stderr == 0.0
    assert res.seat_returns_a[0] == -res.seat_returns_a[1] != 0.0  # the seats differ; the pair cancels
    assert res.games == 80 and res.rounds == 80


def test_an_equilibrium_beats_random_with_intervals(leduc_cfr: TabularPolicy) -> None:
    """It wins chips (about +1.1 a hand), not more hands: random play folds what it would lose."""
    res = arena("leduc", PolicyAgent(leduc_cfr, name="cfr+"), RandomAgent(), deals=150, seed=1)
    assert res.return_a.low > 0 and res.win_rate_a.low < res.win_rate_a.mean < res.win_rate_a.high
    assert res.return_a.low < res.return_a.mean < res.return_a.high
    assert abs(res.win_rate_a.mean + res.draw_rate + res.loss_rate_a - 1) < 1e-12
    again = arena("leduc", PolicyAgent(leduc_cfr, name="cfr+"), RandomAgent(), deals=150, seed=1)
    assert again == res
    assert "cfr+" in res.table() and "[" in res.table()


def test_per_deal_samples_are_the_intervals_samples_in_deal_order(leduc_cfr: TabularPolicy) -> None:
    """The per-deal scores give the result's intervals, and deal i is the same deal whatever the run's length, so
    runs pool exactly: the first 8 of 20 deals are the run of 8."""
    agent = PolicyAgent(leduc_cfr, name="cfr+")
    long = arena("leduc", agent, RandomAgent(), deals=20, seed=4)
    short = arena("leduc", agent, RandomAgent(), deals=8, seed=4)
    assert len(long.points_per_deal_a) == len(long.wins_per_deal_a) == 20
    assert long.points_per_deal_a[:8] == short.points_per_deal_a and long.wins_per_deal_a[:8] == short.wins_per_deal_a
    assert Interval.of(long.points_per_deal_a) == long.points_per_round_a
    assert Interval.of_rate(long.wins_per_deal_a) == long.win_rate_a
    assert set(long.wins_per_deal_a) <= {0.0, 0.5, 1.0} and len(set(long.points_per_deal_a)) > 1


def test_generic_game_without_duplicates() -> None:
    res = arena("kuhn", RandomAgent(), RandomAgent(), deals=400, seed=0, duplicate=False)
    assert res.games == 400 and np.isnan(res.seat_returns_a[1])
    assert abs(res.return_a.mean) < 5 * res.return_a.stderr + 1e-9  # symmetric random play: value 0


def test_interval_and_errors() -> None:
    iv = Interval.of([1.0, 3.0])
    assert iv.mean == 2.0 and iv.low < 2.0 < iv.high
    with pytest.raises(ValueError):
        arena("kuhn", RandomAgent(), RandomAgent(), deals=0)
    with pytest.raises(ValueError, match="two-player"):
        arena("kuhn(players=3)", RandomAgent(), RandomAgent(), deals=2)


def test_win_rate_interval_is_wilsons_and_stays_inside_zero_and_one() -> None:
    """Two won deals: the normal interval would be [1, 1] (no spread); Wilson's is [0.342, 1] (Wilson 1927's
    formula at z = 1.96, n = 2). A rate of a half over 2 samples never reaches below 0 or above 1. Duplicate deals
    (scores 0, 1/2, 1) with less spread than coin flips give a narrower interval than Wilson's over the deals."""
    won = Interval.of_rate([1.0, 1.0])
    assert won.mean == 1.0 and won.high == 1.0 and won.low == pytest.approx(0.3424, abs=1e-4)
    split = Interval.of_rate([0.0, 1.0])
    assert 0.0 < split.low < 0.5 < split.high < 1.0
    assert split.low == pytest.approx(1 - split.high)
    many = Interval.of_rate(np.r_[np.ones(600), np.zeros(400)])  # large n: close to the normal interval
    normal = Interval.of(np.r_[np.ones(600), np.zeros(400)])
    assert many.low == pytest.approx(normal.low, abs=2e-3) and many.high == pytest.approx(normal.high, abs=2e-3)
    halves = Interval.of_rate(np.r_[np.full(800, 0.5), np.ones(150), np.zeros(50)])  # mean 0.55, sd 0.22
    plain = (0.55 + Z95**2 / 2000 - Z95 * np.sqrt(0.55 * 0.45 / 1000 + Z95**2 / 4e6)) / (1 + Z95**2 / 1000)
    assert halves.mean == pytest.approx(0.55) and plain < halves.low < 0.55 < halves.high
    assert halves.high - halves.low == pytest.approx(2 * Z95 * halves.stderr, rel=0.02)
    res = arena("kuhn", RandomAgent(), RandomAgent(), deals=2, seed=0)
    assert 0.0 <= res.win_rate_a.low <= res.win_rate_a.mean <= res.win_rate_a.high <= 1.0


def test_play_game_shows_its_observer_every_state_from_the_first_to_the_last() -> None:
    """``play_game(..., observe=f)``: f sees the initial state, each child and the terminal state, once each, in
    order, and the game played is the one played without it."""
    from cfrlab.eval.arena import play_game
    from cfrlab.registry import load_game

    game = load_game("leduc")
    seen: list = []
    end = play_game(game, [RandomAgent(), RandomAgent()], np.random.default_rng(1),
                    [np.random.default_rng(2), np.random.default_rng(3)], observe=seen.append)
    again = play_game(game, [RandomAgent(), RandomAgent()], np.random.default_rng(1),
                      [np.random.default_rng(2), np.random.default_rng(3)])
    assert str(seen[0]) == str(game.new_initial_state()) and seen[-1] is end and end.returns() == again.returns()
    assert [s.is_terminal() for s in seen] == [False] * (len(seen) - 1) + [True] and len(seen) > 4
    for before, after in zip(seen, seen[1:]):
        actions = [a for a, _ in before.chance_outcomes()] if before.is_chance_node() else before.legal_actions()
        assert str(after) in {str(before.child(a)) for a in actions}
