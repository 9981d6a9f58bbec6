"""Every usage error of the CLI: one line saying what is wrong, exit code 2, no traceback, nothing written."""

from __future__ import annotations

import pytest

from cfrlab.checkpoint import load_checkpoint
from cfrlab.cli.main import main


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def assert_usage_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.mark.parametrize("args,words", [
    (["solve", "kuhn", "-n", "abc"], ["--iterations", "abc"]),
    (["eval"], ["path", "Missing"]),
    (["experiment", "no-such-experiment"], ["unknown experiment", "fsp-kuhn"]),
    (["serve", "kuhn", "--port", "70000"], ["--port", "70000"]),
    (["serve", "kuhn", "--port", "-1"], ["--port"]),
    (["solve", "kuhn", "-n", "-5"], ["--iterations", "-5"]),
    (["solve", "kuhn", "-n", "0"], ["--iterations"]),
    (["solve", "kuhn", "--time-limit", "nan"], ["--time-limit", "nan"]),
    (["solve", "kuhn", "--time-limit", "-1"], ["--time-limit"]),
    (["solve", "kuhn", "--time-limit", "inf"], ["--time-limit"]),
    (["solve", "kuhn", "--target-exploitability", "nan"], ["--target-exploitability"]),
    (["solve", "kuhn", "--target-exploitability", "-1"], ["--target-exploitability"]),
    (["solve", "kuhn", "--checkpoint-every", "-1"], ["--checkpoint-every"]),
    (["solve", "kuhn", "--checkpoint-every", "nan"], ["--checkpoint-every"]),
    (["solve", "kuhn", "--eval-every", "0"], ["--eval-every"]),
    (["no-such-command"], ["no-such-command"]),
    (["solve", "kuhn", "--seed", "x"], ["--seed"]),
])
def test_usage_error_is_one_line_exit_2(capsys, args, words):
    assert_usage_error(*cli(capsys, *args), *words)


def test_out_in_a_missing_folder_is_refused_and_creates_nothing(tmp_path, capsys):
    target = tmp_path / "no" / "such" / "x.npz"
    assert_usage_error(*cli(capsys, "solve", "kuhn", "-n", "5", "--out", str(target)), "--out", "does not exist")
    assert not (tmp_path / "no").exists()
    for flag in ("--log", "--plot", "--checkpoint"):
        assert_usage_error(*cli(capsys, "solve", "kuhn", "-n", "5", flag, str(target)), flag)
        assert not (tmp_path / "no").exists()


def test_resume_with_fewer_iterations_than_the_checkpoint_is_refused(tmp_path, capsys):
    ckpt = tmp_path / "c.npz"
    assert cli(capsys, "solve", "kuhn", "-n", "30", "--checkpoint", str(ckpt), "-q", "--no-eval")[0] == 0
    before = ckpt.read_bytes()
    code, out, err = cli(capsys, "solve", "kuhn", "-n", "10", "--checkpoint", str(ckpt), "--resume", "-q")
    assert_usage_error(code, out, err, "30", "10")
    assert ckpt.read_bytes() == before


def test_resume_refused_for_another_config_names_the_field(tmp_path, capsys):
    ckpt = tmp_path / "c.npz"
    assert cli(capsys, "solve", "kuhn", "-n", "5", "--checkpoint", str(ckpt), "-q", "--no-eval")[0] == 0
    code, out, err = cli(capsys, "solve", "kuhn", "--delay", "3", "-n", "10", "--checkpoint", str(ckpt), "--resume")
    assert_usage_error(code, out, err, "delay", "0", "3")
    assert "{" not in err  # names the field, does not print whole dicts


def test_resume_with_another_number_of_workers_is_accepted(tmp_path, capsys):
    """``workers`` and ``address`` change where the work runs, not the result, so a resume may change them."""
    from cfrlab.driver import make_solver

    ckpt = tmp_path / "c.npz"
    common = ["--algo", "mccfr+", "--batch", "4", "--no-eval", "-q", "--checkpoint", str(ckpt)]
    assert cli(capsys, "solve", "kuhn", "-n", "4", "--workers", "1", *common)[0] == 0
    _, meta = load_checkpoint(ckpt)
    assert "workers" not in meta["config"] and "address" not in meta["config"]
    solver = make_solver("kuhn", "mccfr+", batch=4, workers=3)  # Ray starts only when it iterates
    assert solver.load_checkpoint(ckpt)["iterations"] == 4 and solver.iterations == 4


def test_a_ray_worker_killed_for_memory_is_one_line_and_a_bug_in_a_task_is_not(capsys, monkeypatch) -> None:
    import ray.exceptions

    import cfrlab.eval.arena as arena_module

    def killed(*args, **kwargs):
        raise ray.exceptions.OutOfMemoryError("Task was killed due to the node running low on memory.\n"
                                              "Memory on the node (IP: 127.0.0.1) where the task was running was 22GB")

    monkeypatch.setattr(arena_module, "arena", killed)
    code, out, err = cli(capsys, "arena", "kuhn", "random", "random", "-n", "4", "--workers", "2")
    assert_usage_error(code, out, err, "a Ray worker died", "OutOfMemoryError", "running low on memory", "--workers")

    def died(*args, **kwargs):
        raise ray.exceptions.ActorDiedError()  # an actor's death (a subclass of RayActorError)

    monkeypatch.setattr(arena_module, "arena", died)
    code, out, err = cli(capsys, "arena", "kuhn", "random", "random", "-n", "4", "--workers", "2")
    assert_usage_error(code, out, err, "a Ray worker died", "ActorDiedError")

    def bug(*args, **kwargs):
        raise ray.exceptions.RayTaskError("fn", "Traceback ...", ZeroDivisionError("in our code"))

    monkeypatch.setattr(arena_module, "arena", bug)
    with pytest.raises(Exception):  # noqa: B017 - our own bug inside a task keeps its traceback
        main(["arena", "kuhn", "random", "random", "-n", "4", "--workers", "2"])
