"""Every log record holds the run's wall and CPU seconds and peak memory, continued across ``--resume``."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from cfrlab.checkpoint import CheckpointError
from cfrlab.driver import RUN_USAGE, make_solver, process_usage, run
from cfrlab.solvers.cfr import CFRPlus


class _Clock:
    """A clock that moves only when the stand-in solver says it spent time."""

    extra = 0.0

    def __call__(self) -> float:
        return self.extra


class _Timed(CFRPlus):
    """CFR+ whose iterations cost 1 s and evaluations 0.5 s on ``clock``."""

    evaluates_itself = True

    def __init__(self, game, clock: _Clock) -> None:
        super().__init__(game)
        self.clock = clock

    def iterate(self, n: int = 1):
        self.clock.extra += n
        return super().iterate(n)

    def exact_evaluation(self) -> dict[str, float]:
        self.clock.extra += 0.5
        return {"exploitability": 0.5}


def _records(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def test_a_resumed_runs_clocks_continue_and_equal_an_uninterrupted_runs(kuhn, tmp_path, monkeypatch) -> None:
    """``wall_seconds`` restarted at a resume while ``seconds`` continued; now every clock continues, and the
    records of a run stopped at 30 and resumed to 60 hold what the uninterrupted run's do."""
    clock = _Clock()
    monkeypatch.setattr("cfrlab.driver.clock", clock)
    straight, split, ckpt = tmp_path / "straight.jsonl", tmp_path / "split.jsonl", tmp_path / "c.npz"
    run(_Timed(kuhn, clock), 60, eval_every=10, log_path=straight)
    run(_Timed(kuhn, clock), 30, eval_every=10, log_path=split, checkpoint_path=ckpt)
    run(_Timed(kuhn, clock), 60, eval_every=10, log_path=split, checkpoint_path=ckpt, resume=True)
    ours, theirs = _records(split), _records(straight)
    assert [r["iteration"] for r in ours] == [r["iteration"] for r in theirs] and ours[-1]["iteration"] == 60
    for mine, other in zip(ours, theirs):
        assert set(mine) == set(other) and set(RUN_USAGE) <= set(mine)
        for key in ("seconds", "eval_seconds", "wall_seconds"):
            assert mine[key] == pytest.approx(other[key])
    assert ours[-1]["wall_seconds"] == pytest.approx(60 + len(ours) * 0.5)
    for key in RUN_USAGE:
        values = [r[key] for r in ours]
        assert values == sorted(values) and values[0] > 0  # monotone across the resume


def test_cpu_seconds_and_peak_memory_are_the_processes(kuhn, tmp_path) -> None:
    """``cpu_seconds`` is the process's (getrusage), ``peak_rss_mb`` its peak resident memory: an array of 200 MB
    touched during the run shows in the peak."""
    log = tmp_path / "r.jsonl"
    started = time.process_time()

    class Big(CFRPlus):
        def iterate(self, n: int = 1):
            np.ones(25_000_000).sum()
            return super().iterate(n)

    run(Big(kuhn), 3, log_path=log)
    record = _records(log)[-1]
    cpu, peak = process_usage()
    assert started <= record["cpu_seconds"] <= cpu + 1e-3
    assert 200 <= record["peak_rss_mb"] <= peak + 0.1


def test_a_checkpoint_with_malformed_usage_is_refused(kuhn, tmp_path) -> None:
    ckpt = tmp_path / "c.npz"
    solver = make_solver("kuhn", "cfr+")
    solver.iterate(2)
    solver.save_checkpoint(ckpt, seconds=1.0, cpu_seconds=-3.0)
    with pytest.raises(CheckpointError, match="cpu_seconds"):
        run(make_solver("kuhn", "cfr+"), 5, checkpoint_path=ckpt, resume=True)
