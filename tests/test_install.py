"""cfrlab as users install it, in fresh virtual environments: the base install alone (``pip install .``, what
``make run`` gives) answers every usage error and missing extra with one line and exit code 2, and the lowest
versions ``pyproject.toml`` declares install together and solve a game.

The suite's own venv has every extra, which brings packages the base install lacks (click, for one): only a venv
of its own shows what a user meets. Each venv installs from pip's cache and the machine's wheel files, without
compiling .pyc files (BENCHMARKS.md, "The install tests": about a minute or two each); a machine that cannot make
a venv skips them, saying so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTALL_TIMEOUT = 900

USAGE_ERRORS: list[list[str]] = [
    ["solve", "kuhn", "--algo", "cfr++"],
    ["solve", "kuhn", "--iteration", "3"],
    ["solve", "kuhn", "-n", "0"],
    ["solve"],
    ["no-such-command"],
    ["eval", "/no/such/strategy.npz"],
]
MISSING_EXTRAS: dict[str, list[str]] = {  # extra -> a command that needs it
    "web": ["serve", "kuhn"],
    "torch": ["solve", "kuhn", "--algo", "deep-cfr", "-n", "2"],
    "openspiel": ["solve", "openspiel:kuhn_poker", "-n", "2"],
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cfrlab's wheel, built once from this checkout as ``pip install .`` builds it."""
    out, source = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):  # a copy: the build leaves cfrlab.egg-info beside its sources
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "cfrlab", source / "cfrlab", ignore=shutil.ignore_patterns("__pycache__"))
    _pip([sys.executable], "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out), str(source))
    return next(out.glob("cfrlab-*.whl"))


def _fresh_venv(folder: Path) -> list[str]:
    """A new venv with pip (the Python running the tests, nothing else installed); skips where none can be made."""
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot create a virtual environment here ({exc}): the install tests need python3-venv")
    python = folder / ("Scripts" if os.name == "nt" else "bin") / "python"
    if not python.exists():
        pytest.skip(f"venv made no interpreter at {python}: the install tests need python3-venv")
    return [str(python)]


def _pip(python: list[str], *args: str) -> None:
    proc = subprocess.run([*python, "-m", "pip", *args], capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
                          env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONPATH": ""})
    assert proc.returncode == 0, f"pip {' '.join(args)} failed:\n{proc.stderr[-3000:]}"


def _cfrlab(python: list[str], *args: str, cwd: Path, given: str = "") -> subprocess.CompletedProcess[str]:
    """The installed console script, outside the checkout (so the checkout's cfrlab cannot be imported)."""
    script = Path(python[0]).parent / "cfrlab"
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(script), *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env,
                          input=given)


def _one_line_exit_2(proc: subprocess.CompletedProcess[str], args: list[str]) -> str:
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (args, proc.stderr[-3000:])
    return lines[0]


def lowest_versions(requirements: list[str]) -> list[str]:
    """``name==X`` for each ``name>=X`` requirement (upper bounds dropped): the resolution at the lower bounds."""
    pins = []
    for requirement in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.\-\[\]]+)\s*>=\s*([^,;\s]+).*", requirement)
        assert match, f"{requirement!r} declares no lowest version"
        pins.append(f"{match[1]}=={match[2]}")
    return pins


def test_lowest_versions_read_every_declared_minimum() -> None:
    assert lowest_versions(["numba>=0.59,<0.69", "typer>=0.13.1"]) == ["numba==0.59", "typer==0.13.1"]
    with pytest.raises(AssertionError, match="no lowest version"):
        lowest_versions(["numpy"])


def test_the_wheel_ships_every_file_of_the_package_and_its_metadata(wheel: Path) -> None:
    """Every file of ``cfrlab/`` but the READMEs is in the wheel (the typing marker ``py.typed``, the web page, its
    font, the shipped networks: package data forgotten in ``pyproject.toml`` fails here), and its metadata has the
    classifiers, licence and Python version ``pyproject.toml`` declares."""
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
        metadata = next(archive.read(n).decode() for n in shipped if n.endswith(".dist-info/METADATA"))
    source = {path.relative_to(ROOT).as_posix() for path in (ROOT / "cfrlab").rglob("*")
              if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".md"}
    assert "cfrlab/py.typed" in source and len(source) > 100
    assert sorted(source - shipped) == []
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "Typing :: Typed" in project["classifiers"]
    for classifier in project["classifiers"]:
        assert f"Classifier: {classifier}\n" in metadata, classifier
    assert f"Requires-Python: {project['requires-python']}\n" in metadata
    assert f"License-Expression: {project['license']}\n" in metadata


@pytest.mark.slow
def test_the_base_install_answers_mistakes_in_one_line(wheel: Path, tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path / "venv")
    _pip(python, "install", "--quiet", "--no-compile", str(wheel))
    solved = _cfrlab(python, "solve", "kuhn", "-n", "10", "--no-eval", cwd=tmp_path)
    assert solved.returncode == 0, solved.stderr[-3000:]
    played = _cfrlab(python, "play", "kuhn", "--hands", "1", cwd=tmp_path, given="q\n")  # no web extra needed
    assert played.returncode == 0 and "Goodbye" in played.stdout, played.stderr[-3000:]
    lines = [_one_line_exit_2(_cfrlab(python, *args, cwd=tmp_path), args) for args in USAGE_ERRORS]
    assert "(did you mean 'cfr+'?)" in lines[0] and "(did you mean --iterations?)" in lines[1], lines
    for extra, args in MISSING_EXTRAS.items():  # the command that works here: this venv's pip
        line = _one_line_exit_2(_cfrlab(python, *args, cwd=tmp_path), args)
        assert line.endswith(f"not installed here: venv/bin/pip install 'cfrlab[{extra}]'"), line


@pytest.mark.slow
def test_the_lowest_declared_versions_install_and_solve(wheel: Path, tmp_path: Path) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    python = _fresh_venv(tmp_path / "venv")
    _pip(python, "install", "--quiet", "--no-compile", str(wheel), *lowest_versions(project["dependencies"]))
    out = tmp_path / "kuhn"
    solved = _cfrlab(python, "solve", "kuhn", "-n", "10", "--log", f"{out}.jsonl", "--plot", f"{out}.png",
                     "--out", f"{out}.npz", cwd=tmp_path)
    assert solved.returncode == 0, solved.stderr[-3000:]
    assert Path(f"{out}.png").stat().st_size > 0 and Path(f"{out}.npz").exists()
    for args in USAGE_ERRORS[:3]:  # typer's oldest and click itself: the same lines
        _one_line_exit_2(_cfrlab(python, *args, cwd=tmp_path), args)
