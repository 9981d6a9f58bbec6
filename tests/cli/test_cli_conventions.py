"""The CLI as people expect it: -h, --version, --json everywhere it is documented, list options, games with
their parameters, a user's own game, papers cited in help, a quick --help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cfrlab.cli.common as common
from cfrlab.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_games.py"


def run_json(capsys, *args: str):
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)  # strict: json.loads refuses nothing, so check for NaN by hand below


def test_help_and_version(capsys) -> None:
    assert main(["-h"]) == 0
    text = capsys.readouterr().out
    commands = text.split("Commands:")[1].strip().splitlines()
    assert "Usage: cfrlab" in text and len(commands) == 14 and commands[0].split()[0] == "solve"
    assert not any(line.rstrip().endswith("...") for line in commands), commands  # each said in full, one line
    assert main(["solve", "-h"]) == 0 and "--time-limit" in capsys.readouterr().out
    assert main(["--version"]) == 0 and capsys.readouterr().out.startswith("cfrlab ")


def test_help_order_does_not_depend_on_import_order() -> None:
    code = ("import cfrlab.cli.play, cfrlab.cli.arena\nfrom cfrlab.cli.main import main\nmain(['--help'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    commands = [line.split()[0] for line in proc.stdout.split("Commands:")[1].strip().splitlines()]
    assert commands[:3] == ["solve", "algorithms", "games"] and commands.index("play") < commands.index("arena")


def test_help_imports_nothing_heavy() -> None:
    code = ("import sys\nfrom cfrlab.cli.main import main\nmain(['--help'])\n"
            "print(sorted(m for m in ('numba', 'numpy', 'torch', 'matplotlib', 'rich.markdown') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout + proc.stderr


def test_every_documented_json_command_emits_valid_json(tmp_path, capsys) -> None:
    out, log = tmp_path / "k.npz", tmp_path / "k.jsonl"
    results = {
        "solve": run_json(capsys, "solve", "kuhn", "-n", "30", "--out", str(out), "--log", str(log)),
        "eval": run_json(capsys, "eval", str(out)),
        "show": run_json(capsys, "show", str(out)),
        "plot": run_json(capsys, "plot", str(log), "-o", str(tmp_path / "k.png")),
        "algorithms": run_json(capsys, "algorithms"),
        "games": run_json(capsys, "games"),
        "arena": run_json(capsys, "arena", "kuhn", "random", "random", "--rounds", "5", "--no-duplicate"),
    }
    for name, result in results.items():
        text = json.dumps(result, allow_nan=False)  # raises on NaN or infinity
        assert text, name
    assert results["plot"]["plot"].endswith("k.png") and (tmp_path / "k.png").exists()
    assert results["arena"]["seat_returns_a"][1] is None  # NaN (no second seating) is null in JSON
    leduc = next(g for g in results["games"] if g["name"] == "leduc")
    assert {"name": "ranks", "default": 3, "help": leduc["parameters"][0]["help"], "bounds": [1, 1000]} in \
        leduc["parameters"]
    assert "integer" in leduc["parameters"][0]["help"]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "`play` and `serve` are interactive" in readme


def test_list_options_take_comma_separated_values(capsys) -> None:
    pytest.importorskip("torch")
    result = run_json(capsys, "solve", "kuhn", "--algo", "nfsp", "--hidden-sizes", "32,32", "-n", "5", "--no-eval")
    assert result["iterations"] == 5
    assert main(["solve", "kuhn", "--algo", "nfsp", "--hidden-sizes", "32,x", "-n", "5"]) == 2
    assert "comma-separated int values such as 32,32" in capsys.readouterr().err
    assert main(["solve", "kuhn", "--algo", "nfsp", "--list-options"]) == 0
    listed = capsys.readouterr().out
    assert "(64,)" not in listed and "32,32" in listed


def test_help_cites_papers_not_source_numbers(capsys) -> None:
    rows = run_json(capsys, "algorithms")
    assert all("seed 0" not in row["description"] for row in rows)
    assert any("Tammelin" in row["description"] and "2015" in row["description"] for row in rows)
    for algo in ("fsp-softmax", "mccfr+", "nfsp-ppo"):  # option docs, "default from" and presets alike
        assert main(["solve", "kuhn", "--algo", algo, "--list-options"]) == 0
        assert "seed 0" not in capsys.readouterr().out


def test_a_users_own_game_from_a_module(tmp_path, capsys) -> None:
    out = tmp_path / "rps.npz"
    result = run_json(capsys, "--game-module", str(EXAMPLE), "solve", "rps", "-n", "200", "--out", str(out))
    assert result["exploitability"] < 0.05
    rows = run_json(capsys, "-g", str(EXAMPLE), "show", str(out))
    assert {row["infoset"] for row in rows} == {"0:", "1:"}
    assert all(abs(p - 1 / 3) < 0.05 for row in rows for p in row["actions"].values())
    assert main(["-g", "no_such_module_here", "games"]) == 2


def test_arena_shows_progress(capsys, monkeypatch) -> None:
    monkeypatch.setattr(common, "PLAIN_PROGRESS_SECONDS", 0.0)
    assert main(["arena", "kuhn", "random", "random", "--rounds", "4"]) == 0
    err = capsys.readouterr().err
    assert "random(A) vs random(B): 4/4 deals, " in err and "1/4 deals" in err
    assert "deals/s" in err and " left" in err  # the rate and the time left
