"""What ``cfrlab solve`` reports of a run: a time limit of solving and evaluating only, a run without evaluation,
a resumed run. The time-limit test reads the driver's clock, a stand-in that moves only when the solver says it
spent time, so the machine's load cannot change what it checks."""

from __future__ import annotations

import json

import pytest

from cfrlab import solvers
from cfrlab.cli.main import main
from cfrlab.solvers.cfr import CFRPlus


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


CLOCK = _Clock()


class SlowBuildCFR(CFRPlus):
    """CFR+ that takes 5 s to build (a large game tree) and 0.01 s an iteration, on ``CLOCK``."""

    algorithm = "slow-build-cfr+"

    def __init__(self, *args, **kwargs) -> None:
        CLOCK.now += 5.0
        super().__init__(*args, **kwargs)

    def _iterate_once(self) -> None:
        CLOCK.now += 0.01
        super()._iterate_once()


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_time_limit_leaves_out_building_the_solver(monkeypatch, capsys) -> None:
    """--time-limit bounds solving plus evaluation: the 5 s of building the solver are reported apart, and the
    2 s limit is spent solving (it was spent building, leaving no time to solve)."""
    monkeypatch.setattr(solvers, "_REGISTERED", {"slow-build-cfr+": SlowBuildCFR})
    monkeypatch.setattr("cfrlab.driver.clock", CLOCK)
    code, out, err = cli(capsys, "solve", "kuhn", "--algo", "slow-build-cfr+", "--time-limit", "2", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["setup_seconds"] == pytest.approx(5.0) and result["stopped"] == "time"
    assert 1.9 <= result["seconds"] + result["eval_seconds"] <= 2.0 + 0.01
    assert result["iterations"] >= 190 and result["exploitability"] is not None


def test_no_eval_prints_the_run_without_an_empty_table(tmp_path, capsys) -> None:
    out = tmp_path / "k.npz"
    code, printed, err = cli(capsys, "solve", "kuhn", "-n", "30", "--no-eval", "--out", str(out))
    assert code == 0, err
    assert "┏" not in printed and "iteration ┃" not in printed  # no table without evaluations
    assert printed.splitlines()[0] == "cfr+ on kuhn"
    assert f"exploitability not evaluated (--no-eval) (`cfrlab eval {out}` computes it)" in printed
    code, printed, _ = cli(capsys, "solve", "kuhn", "-n", "30", "--no-eval", "--json")
    assert code == 0 and json.loads(printed)["evaluated"] is False and json.loads(printed)["exploitability"] is None


def test_resume_says_where_it_resumes_from(tmp_path, capsys) -> None:
    out = tmp_path / "k.npz"
    ckpt = f"{out}.ckpt.npz"
    code, _, err = cli(capsys, "solve", "kuhn", "-n", "40", "--out", str(out), "--resume", "-q", "--keep-checkpoint")
    assert code == 0 and f"no checkpoint at {ckpt} yet: starting from iteration 0" in err
    code, printed, err = cli(capsys, "solve", "kuhn", "-n", "100", "--out", str(out), "--resume", "-q")
    assert code == 0 and f"after 100 iterations (40 of them resumed from {ckpt})" in printed
    code, printed, _ = cli(capsys, "solve", "kuhn", "-n", "100", "--out", str(out), "--json")
    assert code == 0 and json.loads(printed)["resumed_at"] is None


def test_resume_without_a_checkpoint_path_is_one_line(capsys) -> None:
    code, _, err = cli(capsys, "solve", "kuhn", "-n", "10", "--resume")
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("error: ") and "--resume needs a checkpoint" in err
