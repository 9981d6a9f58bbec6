"""What `solve` tells a person: plain progress lines off a terminal, seconds kept apart, checkpoints cleaned up."""

from __future__ import annotations

import json

import pytest

import cfrlab.cli.common as common
from cfrlab.cli.main import main


def test_progress_is_plain_lines_when_not_a_terminal(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(common, "PLAIN_PROGRESS_SECONDS", 0.0)
    assert main(["solve", "kuhn", "-n", "200"]) == 0
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.startswith("cfr+: ") and "/200 iterations" in line]
    assert len(lines) >= 2 and lines[-1].startswith("cfr+: 200/200 iterations, ")
    assert "iterations/s, " in lines[-1] and " left, exploitability " in lines[-1] and "elapsed" in lines[-1]
    assert "\x1b[" not in err  # no terminal control codes in a log file
    assert "s solving," in out and "s evaluating" in out and "not counted above: solver built in" in out


def test_json_keeps_solver_evaluation_and_compile_seconds_apart(capsys) -> None:
    assert main(["solve", "kuhn", "-n", "50", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("seconds", "eval_seconds", "compile_seconds", "setup_seconds", "wall_seconds"):
        assert result[key] >= 0
    assert result["wall_seconds"] >= result["seconds"] + result["eval_seconds"] - 1e-3


def test_finished_run_removes_its_checkpoint_unless_kept(tmp_path, capsys) -> None:
    out = tmp_path / "k.npz"
    assert main(["solve", "kuhn", "-n", "30", "--out", str(out), "--json", "--checkpoint-every", "0"]) == 0
    assert out.exists() and not (tmp_path / "k.npz.ckpt.npz").exists()
    assert main(["solve", "kuhn", "-n", "30", "--out", str(out), "--json", "--keep-checkpoint"]) == 0
    assert (tmp_path / "k.npz.ckpt.npz").exists()
    capsys.readouterr()


def test_building_a_card_abstraction_is_announced(tmp_path, monkeypatch, capsys) -> None:
    """A first build of an E[HS^2] abstraction runs for minutes on larger decks: it is said, then read from the
    cache silently."""
    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    holdem = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1])"
    args = ["solve", holdem, "--abstraction", "ehs2:2", "--algo", "vector-cfr+", "-n", "1", "-q"]
    assert main(args) == 0
    assert "building the E[HS^2] abstraction" in capsys.readouterr().err
    assert main(args) == 0
    assert "building" not in capsys.readouterr().err


def test_the_compile_line_says_once_and_about_how_long(capsys) -> None:
    from cfrlab.cli.solve import _run_with_progress
    from cfrlab.driver import make_solver

    def compiling_run(solver, iterations, on_progress, on_compile, **kwargs):
        on_compile()
        return iterations

    assert _run_with_progress(compiling_run, make_solver("kuhn", "cfr+"), 5, quiet=False) == 5
    err = capsys.readouterr().err
    assert "cfr+: compiling kernels, first run only (about 3 s of CPU)" in err, err


def test_the_meter_gives_the_rate_since_its_first_update_and_the_time_left() -> None:
    from cfrlab.cli.progress import Meter

    now = [0.0]
    meter = Meter(total=1000, unit="deals", clock=lambda: now[0])
    now[0] = 30.0  # compiling before the first piece of work is not counted against the rate
    meter.update(10)
    assert meter.rate() is None and meter.left() is None and "rate -" in meter.text()
    now[0] = 40.0
    meter.update(110)
    assert meter.rate() == pytest.approx(10.0) and meter.left() == pytest.approx(89.0)
    assert meter.text() == "110/1,000 deals, 10 deals/s, 1 min 29 s left"
    budgeted = Meter(total=1000, budget=60.0, clock=lambda: now[0])  # a budget that ends first
    now[0] = 50.0
    budgeted.update(1, spent=20.0)
    now[0] = 51.0
    budgeted.update(2, spent=21.0)
    assert budgeted.left() == pytest.approx(39.0) and budgeted.fraction() == pytest.approx(21.0 / 60.0)
