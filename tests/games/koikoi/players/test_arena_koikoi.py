"""Koi-Koi in the arena: the greedy agent against random play, and matches counted in rounds (the arena itself:
tests/eval/test_arena.py)."""

from __future__ import annotations

from cfrlab.agents import RandomAgent
from cfrlab.eval.arena import arena
from cfrlab.games.koikoi.players.greedy import GreedyAgent


def test_greedy_against_greedy_cancels_on_duplicate_deals() -> None:
    """Greedy is deterministic: each deal replays exactly with seats swapped, full Koi-Koi's sampled deal
    included."""
    res = arena("koikoi", GreedyAgent(name="g1"), GreedyAgent(name="g2"), deals=40, seed=3)
    assert res.return_a.mean == 0.0 and res.return_a.stderr == 0.0
    assert res.seat_returns_a[0] == -res.seat_returns_a[1]
    assert res.games == 80 and res.rounds == 80


def test_greedy_beats_random_with_intervals() -> None:
    res = arena("koikoi", GreedyAgent(), RandomAgent(), deals=150, seed=1)
    assert res.return_a.low > 0 and res.win_rate_a.low > 0.5
    assert "greedy" in res.table()


def test_match_counts_rounds() -> None:
    res = arena("koikoi(rounds=12,first_oya=coin)", RandomAgent(), RandomAgent(), deals=3, seed=0)
    assert res.rounds == 3 * 2 * 12
