"""Per-deal logs of hold'em head-to-head play (``cfrlab arena --log``, ``cfrlab eval --versus --versus-log``): the
figure recomputed from the file, an interrupted match continued to the uninterrupted one's figure, and a refusal in
one line for each mistake."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cfrlab.cli.main import main
from cfrlab.eval.arena_log import read_arena_log
from tests.games.holdem.conftest import REAL
from tests.games.holdem.test_cli_holdem_eval import _json


def _figure(log) -> str:
    done = subprocess.run([sys.executable, "benchmarks/bench_arena_log.py", str(log)], capture_output=True, text=True,
                          check=True)
    return done.stdout


def test_an_arena_log_resumes_to_the_uninterrupted_figure(capsys, tmp_path, strategy_file) -> None:
    straight = _json(capsys, ["arena", REAL, f"policy:{strategy_file}", "strength", "-n", "60", "--json"])
    log = tmp_path / "a.jsonl"
    _json(capsys, ["arena", REAL, f"policy:{strategy_file}", "strength", "-n", "25", "--log", str(log), "--json"])
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:-3]) + "\n" + lines[-3][:10])  # a kill: two deals lost, one torn
    resumed = _json(capsys, ["arena", REAL, f"policy:{strategy_file}", "strength", "-n", "60", "--log", str(log),
                             "--json"])
    assert resumed["return_a"] == pytest.approx(straight["return_a"])
    assert resumed["mbb_per_hand_a"] == pytest.approx(straight["mbb_per_hand_a"])
    meta, rows = read_arena_log(log)
    assert sorted(rows) == list(range(60)) and meta["seed"] == 0 and meta["agent_a"].startswith("policy")
    mbb = straight["mbb_per_hand_a"]
    assert f"{mbb['mean']:+.1f} [{mbb['low']:+.1f}, {mbb['high']:+.1f}]" in _figure(log)


def test_a_versus_log_holds_evals_figure(capsys, tmp_path, strategy_file) -> None:
    log = tmp_path / "v.jsonl"
    report = _json(capsys, ["eval", str(strategy_file), "--no-exact", "--versus", "call", "--hands", "30",
                            "--versus-log", str(log), "--json"])
    mbb = report["versus_mbb_per_hand"]["call"]
    assert f"{mbb['mean']:+.1f} [{mbb['low']:+.1f}, {mbb['high']:+.1f}]" in _figure(log)
    again = _json(capsys, ["eval", str(strategy_file), "--no-exact", "--versus", "call", "--hands", "30",
                           "--versus-log", str(log), "--json"])  # nothing left to play: the same figure
    assert again["versus_mbb_per_hand"]["call"] == pytest.approx(mbb)


@pytest.mark.parametrize("mistake", ["edited", "other agent", "beyond", "two agents", "no versus", "not a log",
                                     "twice", "not a deal", "the strategy", "arena"])
def test_log_mistakes_are_refused_in_one_line(capsys, tmp_path, strategy_file, mistake) -> None:
    log = tmp_path / "m.jsonl"
    argv = ["eval", str(strategy_file), "--no-exact", "--versus", "call", "--hands", "8", "--versus-log", str(log)]
    assert main(argv + ["--json"]) == 0
    lines = log.read_text().splitlines()
    record = json.loads(lines[3])
    if mistake == "edited":
        record["returns"] = [record["returns"][0] + 10, record["returns"][1]]
        log.write_text("\n".join([lines[0]] + [json.dumps(record)]) + "\n")  # recomputed: differs
    elif mistake == "other agent":
        argv[argv.index("call")] = "raise"
    elif mistake == "beyond":
        record["returns"] = [1e300, 0.0]
        log.write_text("\n".join(lines[:3] + [json.dumps(record)] + lines[4:]) + "\n")
    elif mistake == "two agents":
        argv[argv.index("call")] = "call,raise"
    elif mistake == "no versus":
        argv = ["eval", str(strategy_file), "--no-exact", "--versus-log", str(log)]
    elif mistake == "twice":
        log.write_text("\n".join(lines + [lines[3]]) + "\n")
    elif mistake == "not a deal":
        record["rounds"] = "\x1b[2J" * 3
        log.write_text("\n".join(lines[:3] + [json.dumps(record)] + lines[4:]) + "\n")
    elif mistake == "the strategy":  # an output that is an input
        argv[-1] = str(strategy_file)
        log = strategy_file
    elif mistake == "arena":  # the arena's log of another match
        argv = ["arena", REAL, f"policy:{strategy_file}", "raise", "-n", "8", "--log", str(log)]
    else:
        log.write_text('{"meta": {"lbr_log": 1}}\n')
    before = log.read_bytes()
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "\x1b" not in err, err
    assert log.read_bytes() == before  # nothing lost
