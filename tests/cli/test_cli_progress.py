"""What `solve` tells a person: plain progress lines off a terminal, seconds kept apart, checkpoints cleaned up."""

from __future__ import annotations

import json

import cfrlab.cli.common as common
from cfrlab.cli.main import main


def test_progress_is_plain_lines_when_not_a_terminal(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(common, "PLAIN_PROGRESS_SECONDS", 0.0)
    assert main(["solve", "kuhn", "-n", "200"]) == 0
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.startswith("cfr+: iteration ")]
    assert len(lines) >= 2 and "/200" in lines[-1] and "s solving" in lines[-1]
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


def test_building_a_card_abstraction_is_announced(tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
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
    from cfrlab.cli.solve import _run_with_plain_lines
    from cfrlab.driver import make_solver

    def compiling_run(solver, iterations, on_progress, on_compile, **kwargs):  # type: ignore[no-untyped-def]
        on_compile()
        return iterations

    assert _run_with_plain_lines(compiling_run, make_solver("kuhn", "cfr+"), 5) == 5
    err = capsys.readouterr().err
    assert "cfr+: compiling kernels, first run only (about 2 s of CPU)" in err, err
