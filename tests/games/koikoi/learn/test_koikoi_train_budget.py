"""`train koikoi --hours` keeps its budget, the final score against greedy included, on an injected clock."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

import cfrlab.eval.arena as arena_module
from cfrlab.games.koikoi.learn.blueprint import FIRST_SLICE, train_blueprint
from cfrlab.games.koikoi.players.blueprint import PROGRESS
from cfrlab.games.koikoi.solvers.blueprint import BlueprintMCCFR

SECONDS_PER_ITERATION = 0.05
SECONDS_PER_DEAL = 0.01


class Clock:
    """Time that passes only as work is done: each iteration and each deal played costs a fixed number of seconds."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock, iterate = Clock(), BlueprintMCCFR.iterate

    def timed_iterate(self, n):
        clock.now += SECONDS_PER_ITERATION * n
        return iterate(self, n)

    def timed_arena(game, a, b, deals, **kwargs):
        clock.now += SECONDS_PER_DEAL * deals
        return SimpleNamespace(return_a=SimpleNamespace(mean=0.0, low=-1.0, high=1.0))

    monkeypatch.setattr(BlueprintMCCFR, "iterate", timed_iterate)
    monkeypatch.setattr(arena_module, "arena", timed_arena)
    return clock


def test_the_budget_holds_the_training_and_the_final_score(tmp_path, clock) -> None:
    budget = 5.0
    solver = train_blueprint(tmp_path / "bp", seconds=budget, eval_deals=200, clock=clock)
    spent = clock.now - 100.0
    assert 0.9 * budget <= spent <= 1.1 * budget, spent
    lines = [json.loads(line) for line in (tmp_path / "bp" / PROGRESS).read_text().splitlines()]
    final = lines[-1]
    # 200 deals (2 s) would not fit beside the training: the final score plays what the time left holds
    assert "vs_greedy" in final and 0 < final["eval_deals"] < 200
    assert solver.iterations > FIRST_SLICE and final["iterations"] == solver.iterations


def test_slices_stop_on_the_clock_without_an_evaluation(tmp_path, clock) -> None:
    solver = train_blueprint(tmp_path / "bp", seconds=4.0, eval_deals=0, clock=clock)
    spent = clock.now - 100.0
    assert 3.6 <= spent <= 4.4 and solver.iterations >= 0.9 * 4.0 / SECONDS_PER_ITERATION


def test_an_iteration_count_is_reached_exactly_in_time_sized_slices(tmp_path, clock) -> None:
    solver = train_blueprint(tmp_path / "bp", iterations=75, eval_deals=0, clock=clock)
    lines = [json.loads(line) for line in (tmp_path / "bp" / PROGRESS).read_text().splitlines()]
    assert solver.iterations == 75 and lines[0]["iterations"] == FIRST_SLICE and lines[-1]["iterations"] == 75


def test_the_cli_shows_the_rate_the_time_left_and_the_score(tmp_path, capsys, monkeypatch) -> None:
    import cfrlab.cli.common as common
    from cfrlab.cli.main import main

    monkeypatch.setattr(common, "PLAIN_PROGRESS_SECONDS", 0.0)
    assert main(["train", "koikoi", "--out", str(tmp_path / "bp"), "--iterations", "25", "--eval-deals", "2"]) == 0
    err = capsys.readouterr().err
    assert "train: training the first 10 iterations" in err
    assert "train: 25/25 iterations, " in err and "iterations/s, " in err and " left, " in err
    assert "vs greedy " in err and "(2 deals)" in err
