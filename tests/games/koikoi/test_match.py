"""Playing for the match: the backward induction against a plain recursion and against simulated matches, and the
search agent's match objective."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from cfrlab.agents import make_agent, with_search_options
from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.batched import sample_inputs, simulate
from cfrlab.games.koikoi.rules.information import information
from cfrlab.games.koikoi.rules.match import MatchTable, RoundOutcomes, backward_induction, match_table, round_outcomes
from cfrlab.games.koikoi.rules.rules import RuleSet
from cfrlab.registry import load_game


def recursion(outcomes: list[RoundOutcomes], rounds: int, r: int, lead: int, deals: bool, bust: int | None) -> float:
    """The match-win probability by plain recursion over every sequence of round outcomes (no table, no clip)."""
    if r == 0 or (bust is not None and abs(lead) >= bust):
        return 1.0 if lead > 0 else 0.0 if lead < 0 else 0.5
    o = outcomes[(rounds - r) % len(outcomes)]
    total = 0.0
    for delta, again, p in zip(o.delta, o.oya_again, o.prob):
        step = int(delta) if deals else -int(delta)
        total += p * recursion(outcomes, rounds, r - 1, lead + step, bool(again) == deals, bust)
    return total


@pytest.mark.parametrize("bust", [None, 5])
def test_backward_induction_equals_the_plain_recursion(bust) -> None:
    rng = np.random.default_rng(0)
    outcomes = []
    for _ in range(2):
        delta = rng.integers(-6, 7, size=5)
        prob = rng.random(5)
        outcomes.append(RoundOutcomes(delta, rng.random(5) < 0.5, prob / prob.sum()))
    rounds = 4
    win = backward_induction(outcomes, rounds, max_lead=60, bust_lead=bust)
    for r in range(rounds + 1):
        for lead in (-7, -2, 0, 1, 4):
            for deals in (False, True):
                if bust is not None and abs(lead) >= bust:
                    continue
                truth = recursion(outcomes, rounds, r, lead, deals, bust)
                assert win[r, lead + 60, int(deals)] == pytest.approx(truth, abs=1e-12), (r, lead, deals)


@lru_cache(maxsize=2)
def table(rules: RuleSet) -> MatchTable:
    return MatchTable.build(rules, samples=40_000, seed=1)


@pytest.mark.parametrize("rules", [RuleSet(rounds=3), RuleSet.koikoi_japan(rounds=3, initial_points=6)],
                         ids=["nintendo", "koikoi_japan-bust"])
def test_table_predicts_simulated_greedy_matches(rules: RuleSet) -> None:
    """3-round greedy matches played round after round with the batched simulator (the dealer carried over, busts
    ending the match): the table's win probability for the first dealer is within 4.5 standard errors."""
    n = 30_000
    rng = np.random.default_rng(2)
    lead = np.zeros(n, dtype=np.int64)  # player 0's lead
    oya = np.zeros(n, dtype=np.int64)  # player 0 deals first
    alive = np.ones(n, dtype=bool)
    scale = 2 if rules.scoring == "transfer" else 1
    for rnd in range(rules.rounds):
        res = simulate(rules, sample_inputs(rules, n, rng, policy="greedy"), policy="greedy", round_index=rnd)
        gain_oya = np.where(res.winner < 0, 0, np.where(res.winner == 0, 1, -1)) * res.points * scale
        lead = np.where(alive, lead + np.where(oya == 0, gain_oya, -gain_oya), lead)
        oya = np.where(res.next_oya == 0, oya, 1 - oya)
        if rules.bust_ends_match:
            alive &= np.abs(lead) < 2 * rules.initial_points
    won = np.where(lead > 0, 1.0, np.where(lead < 0, 0.0, 0.5))
    predicted = float(table(rules).value(rules.rounds, 0, True))
    assert abs(won.mean() - predicted) < 4.5 * won.std() / np.sqrt(n) + 1e-3, (won.mean(), predicted)
    assert 0.5 < predicted < 0.7  # the first dealer's edge


def test_table_shape_and_monotonicity() -> None:
    t = match_table(RuleSet(rounds=12), samples=20_000)
    w = t.win
    assert w.shape == (13, 2 * t.max_lead + 1, 2)
    assert np.all(np.diff(w, axis=1) >= -1e-12)  # a bigger lead never lowers the win probability
    assert np.all(w[1:, t.max_lead, 1] > w[1:, t.max_lead, 0])  # level scores: dealing is worth something
    assert t.value(0, 3, False) == 1.0 and t.value(0, 0, True) == 0.5 and t.value(0, -1, True) == 0.0


def test_match_objective_calls_koikoi_when_stopping_loses_the_match() -> None:
    """Last round, trailing by one more than the stop pays: STOP's match value is exactly 0, so the match search
    calls KOI-KOI; with points, STOP is worth exactly the points."""
    game = load_game("koikoi(rounds=12)")
    eng = game.engine
    rng = np.random.default_rng(5)
    found = 0
    while found < 3:
        s = game.new_initial_state()
        while not s.is_terminal() and s.es.round == 0:
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
                continue
            if s.es.phase == E.DECIDE and s.es.hands[s.current_player()].bit_count() >= 3:
                p = s.current_player()
                pts = eng.scorer.round_points(eng.score(s.es, p), s.es.calls[p], s.es.calls[1 - p])
                es = s.es._replace(round=11, totals=(0, pts + 1) if p == 0 else (pts + 1, 0))
                info = information(eng, es, p)
                match = SearchAgent(game.rules, SearchConfig(rollouts=64, objective="match"))
                res = match.search(info, np.random.default_rng(0))
                assert res.means[0] == 0.0 and res.stderrs[0] == 0.0
                assert res.action == E.KOIKOI and res.means[1] > 0
                points = SearchAgent(game.rules, SearchConfig(rollouts=64)).search(info, np.random.default_rng(0))
                assert points.means[0] == pts
                found += 1
                break
            s = s.child(s.legal_actions()[int(rng.integers(len(s.legal_actions())))])


def test_agent_names_and_options() -> None:
    game = load_game("koikoi(rounds=12)")
    assert make_agent("search:20:match", game).name == "search(20, match)"
    assert make_agent("search:match", game).config.objective == "match"
    assert with_search_options("search", 400, "match") == "search:400:match"
    assert with_search_options("search:30:points", 400, "match") == "search:30:points"
    assert with_search_options("greedy", 400, "match") == "greedy"
    with pytest.raises(ValueError, match="points or match"):
        with_search_options("search", None, "glory")
    with pytest.raises(ValueError, match="positive number"):
        make_agent("search:5:6", game)


def test_round_outcomes_are_a_distribution() -> None:
    o = round_outcomes(RuleSet(rounds=1), 5000, np.random.default_rng(0))
    assert o.prob.sum() == pytest.approx(1.0) and np.all(o.prob > 0)
    assert 0 in o.delta  # draws happen


def test_arena_cli_takes_the_objective(capsys) -> None:
    import json

    from cfrlab.cli.main import main

    assert main(["arena", "koikoi", "search", "greedy", "--rollouts", "4", "--objective", "match", "--match",
                 "--rounds", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["agent_a"] == "search(4, match)" and data["rounds"] >= 2
    assert main(["arena", "koikoi", "search", "greedy", "--objective", "glory"]) == 2
    assert "points or match" in capsys.readouterr().err
