"""The documentation's tutorial works as written: it installs with the README's first command, each of its
``cfrlab`` commands succeeds in order in a fresh folder (the game it plays answered from stdin) and prints the
tables it shows, digit for digit, and its Python prints what its comments say."""

from __future__ import annotations

import io
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

import cfrlab
from cfrlab.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "site" / "tutorial" / "first-steps.md"


def command_lines() -> list[str]:
    """The ``$ ...`` lines of the tutorial's console blocks, without the prompt, in order."""
    return re.findall(r"^\$ (.*)$", TUTORIAL.read_text(), flags=re.M)


def tutorial_block(after: str) -> list[str]:
    """The output lines the tutorial shows after the command line ``after``, up to the block's end."""
    block = TUTORIAL.read_text().split(f"$ {after}\n", 1)[1].split("```", 1)[0]
    return [line.rstrip() for line in block.splitlines() if line.strip() and not line.startswith("$ ")]


def test_the_tutorial_installs_with_the_readme_s_first_command() -> None:
    """The tutorial starts as the README does (``make run``, the test suite's own install), then activates it;
    every later command is ``cfrlab``."""
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"^```\w*\n(.*?)$", readme, flags=re.M)
    assert first and first.group(1).split("#")[0].strip() == "make run"
    lines = command_lines()
    assert lines[:2] == ["make run", "source .venv/bin/activate"]
    assert [line for line in lines[2:] if not line.startswith("cfrlab ")] == []


def test_the_tutorial_runs_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command of the tutorial exits 0; ``show`` and ``eval`` print the tables it shows, digit for digit."""
    monkeypatch.chdir(tmp_path)
    commands = [shlex.split(line)[1:] for line in command_lines()[2:]]
    assert [c[0] for c in commands] == ["--version", "games", "algorithms", "solve", "show", "eval", "solve",
                                        "plot", "play"]
    for args in commands:
        if args[0] == "play":
            monkeypatch.setattr(sys, "stdin", io.StringIO("b\nq\n"))
        code = main(args)
        out, err = capsys.readouterr()
        assert code == 0, (args, err)
        if args[0] in ("show", "eval", "play", "--version"):
            shown = [re.sub(r"([?:]) [bq]$", r"\1", line).strip()  # a prompt, without the answer typed
                     for line in tutorial_block("cfrlab " + shlex.join(args))]
            assert [line for line in shown if line not in out] == [], args
        if args[0] == "play":
            assert "You are dealt Q." in out and "The opponent folds." in out
        if args[0] == "solve":  # the final exploitabilities the tutorial quotes: CFR+'s, and vanilla CFR's 7.3e-3
            assert ("exploitability 7.13003e-05" if "cfr+" in args else "exploitability 0.00726911") in out, out
    assert (tmp_path / "kuhn.png").stat().st_size > 10_000 and (tmp_path / "compare.png").stat().st_size > 10_000


def test_the_tutorials_python_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The tutorial's Python prints what its comments say (Kuhn's value, -1/18, within the exploitability)."""
    code = re.search(r"```python\n(.*?)```", TUTORIAL.read_text(), flags=re.S)
    assert code
    scope: dict[str, Any] = {}
    exec(compile(code.group(1), str(TUTORIAL), "exec"), scope)
    printed = capsys.readouterr().out.split("\n")
    assert printed[0].startswith("7.13") and printed[2].startswith("{0: 0.783")
    assert abs(float(cfrlab.expected_values(scope["game"], scope["result"].policy)[0]) + 1 / 18) < 1e-4
