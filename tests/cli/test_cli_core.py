"""The core commands end to end: solve, eval, show, plot, options, errors, checkpoints and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cfrlab.checkpoint import load_checkpoint
from cfrlab.cli.main import main
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def cli_json(capsys, *args: str):
    code, out, err = cli(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_solve_eval_show_plot(tmp_path, capsys):
    out, log, png = tmp_path / "k.npz", tmp_path / "k.jsonl", tmp_path / "k.png"
    result = cli_json(capsys, "solve", "kuhn", "--algo", "cfr+", "-n", "300", "--out", str(out), "--log", str(log),
                      "--plot", str(png))
    assert result["iterations"] == 300 and result["exploitability"] < 2e-3
    assert out.exists() and log.exists() and png.stat().st_size > 10_000
    evaluated = cli_json(capsys, "eval", str(out))
    assert evaluated["exploitability"] == pytest.approx(result["exploitability"], abs=1e-12)
    assert evaluated["values"][0] == pytest.approx(-1 / 18, abs=2e-3)
    rows = cli_json(capsys, "show", str(out), "--filter", "0:K")
    assert {r["infoset"] for r in rows} == {"0:K:", "0:K:pb"}
    assert set(rows[0]["actions"]) == {"Check", "Bet"} and set(rows[1]["actions"]) == {"Fold", "Call"}
    code, text, _ = cli(capsys, "plot", str(log), str(log), "-o", str(tmp_path / "two.png"))
    assert code == 0 and (tmp_path / "two.png").exists()
    code, text, _ = cli(capsys, "eval", str(out))
    assert code == 0 and "exploitability" in text


def test_human_summary_table(tmp_path, capsys):
    code, out, _ = cli(capsys, "solve", "kuhn", "-n", "50", "-q")
    assert code == 0
    assert "iteration" in out and "exploitability" in out and "stopped at the iteration budget after 50" in out


def test_game_parameters_and_solver_options_from_flags(capsys):
    result = cli_json(capsys, "solve", "leduc", "--ranks", "4", "-n", "3")
    assert "ranks=4" in result["game"]
    result = cli_json(capsys, "solve", "kuhn", "--players", "3", "--algo", "cfr", "--alternating",
                      "--averaging", "linear", "-n", "20")
    assert "players=3" in result["game"] and result["iterations"] == 20


def test_list_options(capsys):
    code, out, _ = cli(capsys, "solve", "kuhn", "--algo", "cfr+", "--list-options")
    assert code == 0 and "--delay" in out and "--regret-matching-plus" in out


def test_target_exploitability_stops_early(capsys):
    result = cli_json(capsys, "solve", "kuhn", "--target-exploitability", "1e-3", "-n", "100000")
    values = [r["exploitability"] for r in result["records"]]
    assert result["stopped"] == "target" and result["iterations"] == result["records"][-1]["iteration"]
    assert values[-1] <= 1e-3 < min(values[:-1])  # stopped at the first evaluation that met the target


@pytest.mark.parametrize("args,message", [
    (["solve", "kuhn", "--algo", "nope"], "unknown algorithm"),
    (["solve", "chess"], "unknown game"),
    (["solve", "kuhn", "--players", "1"], "players"),
    (["solve", "kuhn", "--algo", "external", "--sampels", "3"],
     "--sampels (did you mean --sampling?): not an option of external"),
    (["solve", "openspiel:kuhn_poker", "--alternatng"], "--alternatng (did you mean --alternating?)"),
    (["solve", "kuhn", "--iteration", "3"], "--iteration (did you mean --iterations?)"),  # the command's own
    (["solve", "kuhn", "--target-exploitabilty", "1"], "(did you mean --target-exploitability?)"),
    (["solve", "kuhn", "--algo", "cfr++"], "unknown algorithm 'cfr++' (did you mean 'cfr+'?)"),
    (["solve", "kuhn", "--algo", "CFR+"], "unknown algorithm 'CFR+' (did you mean 'cfr+'?)"),
    (["solve", "kuhn", "--delay", "x"], "delay"),
    (["eval", "/no/such/file.npz"], "does not exist"),
])
def test_bad_input_gives_one_clear_line(capsys, args, message):
    code, out, err = cli(capsys, *args)
    assert code != 0
    assert message in err and "Traceback" not in err


def test_eval_of_corrupt_file(tmp_path, capsys):
    path = tmp_path / "bad.npz"
    path.write_bytes(b"garbage")
    code, _, err = cli(capsys, "eval", str(path))
    assert code != 0 and "corrupt" in err


def test_resume_equals_uninterrupted(tmp_path, capsys):
    ckpt = tmp_path / "c.npz"
    cli_json(capsys, "solve", "leduc", "--algo", "cfr+", "-n", "40", "--checkpoint", str(ckpt), "--no-eval")
    cli_json(capsys, "solve", "leduc", "--algo", "cfr+", "-n", "90", "--checkpoint", str(ckpt), "--resume",
             "--out", str(tmp_path / "resumed.npz"), "--no-eval")
    cli_json(capsys, "solve", "leduc", "--algo", "cfr+", "-n", "90", "--out", str(tmp_path / "straight.npz"),
             "--no-eval")
    game = load_game("leduc")
    a, meta = TabularPolicy.load(tmp_path / "resumed.npz", game)
    b, _ = TabularPolicy.load(tmp_path / "straight.npz", game)
    assert meta["iterations"] == 90
    np.testing.assert_array_equal(a.probs, b.probs)


def test_resume_refuses_another_algorithm(tmp_path, capsys):
    ckpt = tmp_path / "c.npz"
    cli_json(capsys, "solve", "kuhn", "--algo", "cfr+", "-n", "5", "--checkpoint", str(ckpt))
    code, _, err = cli(capsys, "solve", "kuhn", "--algo", "dcfr", "-n", "10", "--checkpoint", str(ckpt), "--resume")
    assert code != 0 and "algorithm" in err


def test_killed_run_resumes_to_the_same_result(tmp_path):
    """SIGKILL a long solve after a checkpoint, resume it, and compare with a run never interrupted."""
    ckpt = tmp_path / "c.npz"
    cmd = [sys.executable, "-m", "cfrlab.cli.main", "solve", "leduc", "--algo", "dcfr", "-n", "100000000",
           "--checkpoint", str(ckpt), "--checkpoint-every", "0.2", "--no-eval", "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while not ckpt.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(0.5)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert ckpt.exists(), proc.stderr.read().decode() if proc.stderr else ""
    _, meta = load_checkpoint(ckpt)
    done = int(meta["iterations"])
    assert done > 0
    total = done + 25
    base = [sys.executable, "-m", "cfrlab.cli.main", "solve", "leduc", "--algo", "dcfr", "-n", str(total),
            "--no-eval", "-q"]
    subprocess.run(base + ["--checkpoint", str(ckpt), "--resume", "--out", str(tmp_path / "r.npz")], check=True)
    subprocess.run(base + ["--out", str(tmp_path / "s.npz")], check=True)
    game = load_game("leduc")
    np.testing.assert_array_equal(TabularPolicy.load(tmp_path / "r.npz", game)[0].probs,
                                  TabularPolicy.load(tmp_path / "s.npz", game)[0].probs)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process's CPU time from /proc")
def test_sigterm_stops_a_solve_saving_its_strategy_and_checkpoint(tmp_path):
    """``kill`` (SIGTERM) ends a solve as Ctrl-C does: whole iterations in the strategy file and the checkpoint,
    exit status 0, and the run resumes from there."""
    out = tmp_path / "s.npz"
    cmd = [sys.executable, "-m", "cfrlab.cli.main", "solve", "leduc", "--algo", "cfr+", "-n", "100000000",
           "--no-eval", "--checkpoint-every", "1000000", "--out", str(out), "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and _cpu_seconds(proc.pid) < 4.0:
        time.sleep(0.1)  # imports, kernels loaded or compiled, then iterations
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=120)[1].decode()
    assert proc.returncode == 0 and "Traceback" not in err, err
    _, meta = load_checkpoint(Path(str(out) + ".ckpt.npz"))
    _, saved = TabularPolicy.load(out, load_game("leduc"))
    assert saved["iterations"] == int(meta["iterations"]) > 0


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process's state from /proc")
def test_a_second_signal_stops_a_solve_at_once_keeping_its_last_checkpoint(tmp_path, capsys):
    """Ctrl-C, then SIGTERM before the step in progress ends: the solve stops at once with exit status 130 and
    one line saying that the last checkpoint stands and ``--resume`` continues it, which it does."""
    ckpt = tmp_path / "c.npz"
    cmd = [sys.executable, "-m", "cfrlab.cli.main", "solve", "leduc", "--algo", "cfr+", "-n", "100000000",
           "--checkpoint", str(ckpt), "--checkpoint-every", "0.2", "--no-eval", "-q"]
    # the tests may ignore Ctrl-C (run as a shell's background job, or by a test worker), and an ignored signal
    # stays ignored in a child: this one hears it as from a terminal
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    finally:
        signal.signal(signal.SIGINT, ignored)
    deadline = time.time() + 120
    while not ckpt.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)  # imports, kernels loaded or compiled, then iterations and a first checkpoint
    proc.send_signal(signal.SIGSTOP)  # both signals arrive together, within one step, however loaded the machine
    while _stat(proc.pid)[:1] in (["R"], ["S"], ["D"]) and time.time() < deadline:  # running, until it stops
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGTERM)
    proc.send_signal(signal.SIGCONT)
    err = proc.communicate(timeout=120)[1].decode()
    lines = [line for line in err.splitlines() if not line.startswith("stopping after the step in progress")]
    assert proc.returncode == 130 and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0] == f"interrupted at once: {ckpt} holds the last checkpoint; continue with --resume"
    done = int(load_checkpoint(ckpt)[1]["iterations"])
    resumed = cli_json(capsys, "solve", "leduc", "--algo", "cfr+", "-n", str(done + 3), "--checkpoint", str(ckpt),
                       "--resume", "--no-eval")
    assert done > 0 and resumed["resumed_at"] == done and resumed["iterations"] == done + 3


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command's name, its state first; none once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else 0.0


@pytest.mark.parametrize("algo", ["cfr+", "external", "pvt-cfr"])
def test_list_options_fit_80_columns(capsys, monkeypatch, algo):
    """At 80 columns each option is its flag line and at most 3 lines of meaning, the first paragraph of a
    multi-line docstring on lines of its own (external's --average-update, pvt-cfr's --pass-deals)."""
    import cfrlab.cli.common as common

    monkeypatch.setattr(common.stdout, "width", 80)
    code, out, _ = cli(capsys, "solve", "kuhn", "--algo", algo, "--list-options")
    lines = out.splitlines()
    assert code == 0 and max(len(line) for line in lines) <= 80
    flags = [i for i, line in enumerate(lines) if line.startswith("--") and "  default " in line]
    assert len(flags) >= 2 and max(b - a for a, b in zip(flags, flags[1:])) <= 4  # a flag and at most 3 lines
    meaning = [line for i, line in enumerate(lines) if flags[0] < i < flags[-1] and i not in flags]
    assert all(line.startswith("    ") and not line.startswith("     ") and line == line.rstrip()
               for line in meaning)  # one indent, none carried over from the docstring's source lines


def test_option_summary_keeps_whole_sentences_of_the_first_paragraph() -> None:
    from cfrlab.cli.options import summary

    doc = """Weight of iteration t.  The second
        sentence runs on.

        A second paragraph."""
    assert summary(doc) == "Weight of iteration t. The second sentence runs on."
    assert summary(doc, width=30, lines=1) == "Weight of iteration t."
    cut = summary("one very long sentence " * 10, width=20, lines=2)
    assert cut.endswith("\u2026") and len(cut) <= 40 and cut.startswith("one very long sentence one")
