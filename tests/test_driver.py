"""The driver's side of the solver contract: strategy files, checkpoints, ``close`` however a run ends."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

import cfrlab
from cfrlab.cli.main import main
from cfrlab.driver import make_solver, run
from cfrlab.policy import TabularPolicy


def test_solve_out_writes_what_the_cli_writes(tmp_path, capsys) -> None:
    api, cli = tmp_path / "api.npz", tmp_path / "cli.npz"
    result = cfrlab.solve("kuhn", "cfr+", iterations=40, out=api)
    assert main(["solve", "kuhn", "--algo", "cfr+", "-n", "40", "--out", str(cli), "-q"]) == 0
    game = cfrlab.load_game("kuhn")
    (ours, meta), (theirs, cli_meta) = TabularPolicy.load(api, game), TabularPolicy.load(cli, game)
    assert ours.keys == theirs.keys and np.array_equal(ours.probs, theirs.probs)
    assert np.array_equal(ours.probs, result.policy.probs)
    assert meta["solver"] == cli_meta["solver"] == "cfr+" and meta["config"] == cli_meta["config"]
    assert meta["iterations"] == 40 and meta["exploitability"] == result.exploitability
    assert not (tmp_path / "api.npz.ckpt.npz").exists() and not (tmp_path / "cli.npz.ckpt.npz").exists()


def test_keep_checkpoint_resumes(tmp_path) -> None:
    out = tmp_path / "s.npz"
    cfrlab.solve("kuhn", "cfr", iterations=10, out=out, keep_checkpoint=True)
    resumed = cfrlab.solve("kuhn", "cfr", iterations=25, out=out, resume=True)
    straight = cfrlab.solve("kuhn", "cfr", iterations=25)
    assert np.array_equal(resumed.policy.probs, straight.policy.probs)


class _Boom(RuntimeError):
    pass


def test_close_is_called_when_a_run_fails(monkeypatch) -> None:
    solver = make_solver("kuhn", "external")
    closed = []
    monkeypatch.setattr(solver, "close", lambda: closed.append(True))

    def fail(n: int = 1):
        raise _Boom("iteration failed")

    monkeypatch.setattr(solver, "iterate", fail)
    with pytest.raises(_Boom):
        run(solver, 5, evaluate=False)
    assert closed == [True]
    run(make_solver("kuhn", "cfr"), 2)  # and an ordinary run closes without complaint


def test_solver_is_a_context_manager() -> None:
    with make_solver("kuhn", "cfr+") as solver:
        solver.iterate(3)
    assert solver.iterations == 3


def test_dir_of_the_package_lists_its_public_names_only() -> None:
    import cfrlab

    names = dir(cfrlab)
    assert {"solve", "TabularPolicy", "load_game", "__version__"} <= set(names)
    assert not {"Any", "TYPE_CHECKING", "annotations", "importlib"} & set(names)
    assert all(hasattr(cfrlab, name) for name in names)


def test_the_readme_library_example_runs(tmp_path, monkeypatch) -> None:
    """The README's Library section, saving and loading included, runs as written."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = readme.split("## Library", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    assert (tmp_path / "leduc-dcfr.npz").exists() and (tmp_path / "kuhn3.npz").exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_between_steps_and_resume_stays_exact(tmp_path, monkeypatch, request, signum) -> None:
    """SIGTERM or a first Ctrl-C, arriving in the middle of a step, ends the run after that step: the checkpoint
    and the strategy file hold whole iterations, and ``resume`` ends where an uninterrupted run does."""
    solver, out = make_solver("kuhn", "cfr+"), tmp_path / "s.npz"
    iterate = solver.iterate

    def half_then_signal(n: int = 1) -> None:
        iterate(1)
        if solver.iterations == 7:
            os.kill(os.getpid(), signum)  # heard here, mid-step: the step's other iterations still run
        iterate(n - 1) if n > 1 else None

    monkeypatch.setattr(solver, "iterate", half_then_signal)
    _listening(request, signum)
    before = signal.getsignal(signum)
    result = run(solver, 1000, evaluate=False, out=out, checkpoint_every=1e9)
    assert result.stopped == "interrupted" and 7 <= result.iterations < 1000
    assert signal.getsignal(signum) == before  # the handler given back
    _, meta = TabularPolicy.load(out, solver.game)
    assert meta["iterations"] == result.iterations
    resumed = cfrlab.solve("kuhn", "cfr+", iterations=result.iterations + 5, out=out, resume=True)
    straight = cfrlab.solve("kuhn", "cfr+", iterations=result.iterations + 5)
    assert np.array_equal(resumed.policy.probs, straight.policy.probs)


def test_a_second_signal_stops_at_once_keeping_the_last_checkpoint(tmp_path, monkeypatch, request) -> None:
    solver, ckpt = make_solver("kuhn", "cfr+"), tmp_path / "c.npz"
    iterate = solver.iterate

    def signal_twice(n: int = 1) -> None:
        iterate(n)
        if solver.iterations >= 5:
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(solver, "iterate", signal_twice)
    _listening(request, signal.SIGTERM)
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        run(solver, 1000, evaluate=False, checkpoint_path=ckpt, checkpoint_every=1e9)
    assert not ckpt.exists()  # none was due: nothing half-done was written
    assert signal.getsignal(signal.SIGTERM) == before


def _listening(request: pytest.FixtureRequest, signum: int) -> None:
    """This process hears ``signum`` as a terminal's would (a test worker may ignore SIGINT, and an earlier test's
    Ray may have set a SIGTERM handler of its own); the handler it had is given back after the test."""
    previous = signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
    request.addfinalizer(lambda: signal.signal(signum, previous))
