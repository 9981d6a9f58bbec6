"""The driver's side of the solver contract: strategy files, checkpoints, ``close`` however a run ends."""

from __future__ import annotations

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

    def fail(n: int = 1):  # type: ignore[no-untyped-def]
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
