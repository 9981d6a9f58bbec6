"""A wider fuzz's findings, each a reproduction: outputs that would replace a device or each other, inputs that
are not regular files, deflated arrays that inflate to gigabytes, JSON nested a thousand deep, run logs of the
wrong shape. Each must give one ``error:`` line, exit code 2, no traceback, and change no file."""

from __future__ import annotations

import errno
import io
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cfrlab.checkpoint import CheckpointError, atomic_write_bytes, load_arrays, save_arrays
from cfrlab.cli.main import main
from cfrlab.file_checks import MAX_JSON_DEPTH, JSONInputError, distinct_outputs, parse_json
from cfrlab.games.koikoi.players.blueprint import SHIPPED
from cfrlab.registry import load_game
from cfrlab.solvers.cfr import CFRPlus
from tests.forged_files import META, edited
from tests.test_fuzz_new_inputs import refused

DEEP = 5000


def write_raw_meta(path: Path, arrays: dict[str, np.ndarray], meta_text: str) -> None:
    """An ``.npz`` as ``save_arrays`` writes it, with metadata bytes that need not be JSON ``json.dumps`` writes."""
    np.savez(path, **arrays, **{META: np.frombuffer(meta_text.encode(), dtype=np.uint8)})


def zip_bomb(source: Path, target: Path, megabytes: int) -> Path:
    """A copy of strategy file ``source`` whose ``probs`` is a deflated array of ``megabytes`` MiB of zeros."""
    arrays, meta = load_arrays(source)
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in archive.infolist():
            if info.filename != "probs.npy":
                out.writestr(info.filename, archive.read(info))
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                      "shape": (megabytes * 2**17,)})
        with out.open("probs.npy", "w", force_zip64=True) as handle:
            handle.write(header.getvalue())
            zeros = bytes(2**20)
            for _ in range(megabytes):
                handle.write(zeros)
    return target


CHECKPOINT_ITERATIONS = {"minus": -5, "text": "50", "float": 2.5, "true": True, "null": None, "list": [3]}
CHECKPOINT_SECONDS = {"seconds_list": {"seconds": [1]}, "seconds_nan": {"seconds": float("nan")},
                      "eval_seconds_text": {"eval_seconds": "1"}, "eval_seconds_negative": {"eval_seconds": -1.0},
                      "extra_list": {"extra": [1]}}


def _first_rows(n: int):
    def cut(a: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        end = int(a["offset"][n])
        return {"keys": a["keys"][:n], "offset": a["offset"][:n + 1], "actions": a["actions"][:end],
                "probs": a["probs"][:end]}
    return cut


BLUEPRINT_CASES = {
    "empty": (_first_rows(0), {}), "one_key": (_first_rows(1), {}),
    "fudawiki": (lambda a: {}, {"game": "koikoi(rules=fudawiki)"}),
    "junk_game": (lambda a: {}, {"game": "koikoi_nope(rules=x)"}), "kuhn_game": (lambda a: {}, {"game": "kuhn"}),
    "deep_game": (lambda a: {}, {"game": "koikoi(rules=" + "[" * 50 + ")"}),
    "action_2_40": (lambda a: {"actions": a["actions"].astype(np.int64) + 2**40}, {}),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz_second")
    kuhn = load_game("kuhn")
    good = root / "kuhn.npz"
    CFRPlus(kuhn).iterate(5).average_policy().save(good, kuhn, solver="cfr+", iterations=5)
    arrays, meta = load_arrays(good)
    os.mkfifo(root / "fifo")
    (root / "trained").mkdir()
    os.mkfifo(root / "trained" / "progress.jsonl")
    nested = "[" * DEEP + "]" * DEEP
    write_raw_meta(root / "deep_meta.npz", arrays, nested)
    text = str(meta).replace("'", '"').replace("None", "null")
    write_raw_meta(root / "deep_entry.npz", arrays, text[:-1] + ', "config": ' + '{"a": ' * 70 + "1" + "}" * 71)
    write_raw_meta(root / "deep_value.npz", arrays, text[:-1] + ', "extra": ' + nested + "}")
    write_raw_meta(root / "huge_int.npz", arrays, text[:-1] + ', "iterations": ' + "9" * 5001 + "}")
    zip_bomb(good, root / "bomb.npz", 80)
    leduc = load_game("leduc")
    CFRPlus(leduc).iterate(1).average_policy().save(root / "leduc.npz", leduc, solver="cfr+", iterations=1)
    l_arrays, _ = load_arrays(root / "leduc.npz")
    row = int(np.flatnonzero(~l_arrays["legal_mask"][:, 0])[0])  # an infoset where fold is illegal
    mask, probs = l_arrays["legal_mask"].copy(), l_arrays["probs"].copy()
    mask[row, 0], probs[row] = True, [0.5, 0.5, 0.0]
    edited(root / "leduc.npz", root / "illegal_mass.npz", legal_mask=mask, probs=probs)
    (root / "exits.py").write_text("import sys\nsys.exit(0)\n")
    (root / "interrupts.py").write_text("raise KeyboardInterrupt\n")
    (root / "ckpt").mkdir()
    assert main(["solve", "kuhn", "-n", "3", "--checkpoint", str(root / "ckpt" / "c.npz"), "--keep-checkpoint",
                 "--no-eval", "-q"]) == 0
    ckpt = root / "ckpt" / "c.npz"
    c_arrays, _ = load_arrays(ckpt)
    for name, value in CHECKPOINT_ITERATIONS.items():
        edited(ckpt, root / f"ck_{name}.npz", {"iterations": value})
    for name, change in CHECKPOINT_SECONDS.items():
        edited(ckpt, root / f"ck_{name}.npz", change)
    for name in ("regret", "strategy_sum"):
        edited(ckpt, root / f"ck_negative_{name}.npz", **{name: c_arrays[name] - 1.0})
        edited(ckpt, root / f"ck_nan_{name}.npz", **{name: np.full_like(c_arrays[name], np.nan)})
        edited(ckpt, root / f"ck_text_{name}.npz", **{name: c_arrays[name].astype(str)})
    bp_arrays, bp_meta = load_arrays(SHIPPED)
    for name, (array_edits, meta_edits) in BLUEPRINT_CASES.items():
        save_arrays(root / f"bp_{name}.npz", {**bp_arrays, **array_edits(bp_arrays)}, {**bp_meta, **meta_edits})
    logs = {
        "deep": '{"meta": {}}\n{"iteration": 1, "seconds": 0.1, "exploitability": ' + "[" * 100_000 + "]" * 100_000
                + "}\n",
        "array_line": '{"meta": {}}\n[1, 2, 3]\n', "meta_list": '{"meta": [1]}\n',
        "meta_text": '{"meta": "x"}\n{"iteration": 1, "seconds": 0.1, "exploitability": 0.5}\n',
        "text_value": '{"meta": {}}\n{"iteration": 1, "seconds": 0.1, "exploitability": "0.5"}\n',
        "list_value": '{"meta": {}}\n{"iteration": [1], "seconds": 0.1, "exploitability": 0.5}\n',
        "text_seconds": '{"meta": {}}\n{"iteration": 1, "seconds": "x", "exploitability": 0.5}\n',
        "null_iteration": '{"meta": {}}\n{"iteration": null, "seconds": 0.1, "exploitability": 0.5}\n',
        "text_iteration": '{"meta": {}}\n{"iteration": "x", "seconds": 0.1, "exploitability": 0.5}\n',
    }
    for name, body in logs.items():
        (root / f"log_{name}.jsonl").write_text(body)
    return root


OUTPUT_CASES: list[tuple[list[str], str]] = [
    (["solve", "kuhn", "-n", "3", "--out", "{d}/fifo"], "FIFO"),
    (["solve", "kuhn", "-n", "3", "--log", "{d}/fifo"], "FIFO"),
    (["solve", "kuhn", "-n", "3", "--checkpoint", "{d}/fifo"], "FIFO"),
    (["solve", "kuhn", "-n", "3", "--plot", "{d}/fifo"], "FIFO"),
    (["plot", "{d}/log_text_value.jsonl", "-o", "{d}/fifo"], "FIFO"),
    (["train", "koikoi", "--out", "{d}/trained", "-n", "1", "--eval-deals", "0"], "FIFO"),
    (["solve", "kuhn", "-n", "3", "--out", "{d}/o.npz", "--checkpoint", "{d}/o.npz"], "same file"),
    (["solve", "kuhn", "-n", "3", "--out", "{d}/o.npz", "--log", "{d}/o.npz"], "same file"),
    (["solve", "kuhn", "-n", "3", "--log", "{d}/o.jsonl", "--checkpoint", "{d}/./o.jsonl"], "same file"),
    (["solve", "kuhn", "-n", "3", "--plot", "{d}/o.jsonl", "--log", "{d}/o.jsonl"], "same file"),
    (["solve", "kuhn", "-n", "3", "--plot", "{d}/o.png", "--out", "o.png"], "same file"),
]

INPUT_CASES: list[tuple[list[str], str]] = [
    *[([cmd, "{d}/fifo"], "FIFO") for cmd in ("eval", "show", "plot")],
    (["eval", "/dev/zero"], "device"), (["show", "/dev/zero"], "device"), (["plot", "/dev/zero"], "device"),
    (["arena", "kuhn", "policy:{d}/fifo", "random", "-n", "1"], "FIFO"),
    (["serve", "kuhn", "--strategy", "{d}/fifo"], "FIFO"),
    (["play", "kuhn", "--strategy", "{d}/fifo"], "FIFO"),
    (["arena", "koikoi", "blueprint:{d}/fifo", "random", "-n", "1"], "FIFO"),
    (["solve", "kuhn", "-n", "5", "--checkpoint", "{d}/ckpt", "--resume"], "folder"),
    *[([cmd, "{d}/bomb.npz"], "inflate") for cmd in ("eval", "show")],
    *[([cmd, f"{{d}}/{name}.npz"], "") for cmd in ("eval", "show")
      for name in ("deep_meta", "deep_entry", "deep_value", "huge_int")],
    (["arena", "kuhn", "policy:{d}/deep_meta.npz", "random", "-n", "1"], "nested too deeply"),
    (["serve", "kuhn", "--strategy", "{d}/deep_value.npz"], "nested too deeply"),
    (["play", "kuhn", "--strategy", "{d}/deep_meta.npz"], "nested too deeply"),
    *[(["plot", f"{{d}}/log_{name}.jsonl", "-o", "{d}/p.png"], says) for name, says in (
        ("deep", "nested too deeply"), ("array_line", "not an object"), ("meta_list", "not a JSON object"),
        ("meta_text", "not a JSON object"), ("text_value", "not a number"), ("list_value", "not a number"),
        ("text_seconds", "not a number"), ("null_iteration", "not a number"))],
]

NESTED = "[" * DEEP + "]" * DEEP
GAME_CASES: list[tuple[list[str], str]] = [
    (["solve", "kuhn(players=2,players=3)", "-n", "1"], "given twice"),
    (["solve", "leduc", "--ranks", "3", "--ranks", "4", "-n", "1"], "given twice"),
    (["solve", "kuhn", "--delay", "1", "--delay=2", "-n", "1"], "given twice"),
    (["solve", f"kuhn(players={NESTED})", "-n", "1"], "nests brackets"),
    (["solve", "leduc", "--raise-sizes", NESTED, "-n", "1"], "nests brackets"),
    (["eval", "{d}/kuhn.npz", "--game", f"leduc(raise_sizes={NESTED})"], "nests brackets"),
    (["solve", "kuhn(players=2_0)", "-n", "1"], "'2_0'"),
    (["solve", "kuhn(players=13)", "-n", "1"], "too large to compile"),
    (["solve", "kuhn", "--players", "9", "-n", "1"], "too large to compile"),
    (["eval", "{d}/kuhn.npz", "--game", "kuhn(players=12)"], ""),
]

OPTION_CASES: list[tuple[list[str], str]] = [
    (["solve", "kuhn", "--algo", "deep-cfr", "--advantage-hidden", "99999999999", "-n", "1"], "--advantage-hidden"),
    (["solve", "kuhn", "--algo", "nfsp", "--hidden-sizes", "99999999999", "-n", "1"], "--hidden-sizes must be"),
    (["solve", "kuhn", "--algo", "dcfr", "--dcfr-beta", "1e400", "-n", "1"], "finite"),
    (["solve", "kuhn", "--algo", "dcfr", "--dcfr-alpha", "nan", "-n", "1"], "finite"),
    (["solve", "kuhn", "--algo", "dcfr", "--dcfr-gamma", "-1", "-n", "1"], ">= 0"),
    (["serve", "kuhn", "--session-ttl", "1e-300"], "at least 1 second"),
    (["serve", "kuhn", "--host", ""], "--host is empty"), (["serve", "kuhn", "--host", "999.1.1.1"], "not an address"),
    (["play", "kuhn", "--hands", "0"], "--hands"), (["play", "kuhn", "--hands", "99999999999999"], "--hands"),
    (["--game-module", "{d}/exits.py", "games"], "SystemExit"),
    (["--game-module", "{d}/interrupts.py", "solve", "kuhn", "-n", "1"], "KeyboardInterrupt"),
]

RESUME = ["solve", "kuhn", "-n", "10", "--resume", "--checkpoint"]
LOADING_CASES: list[tuple[list[str], str]] = [
    *[([cmd, "leduc", "--strategy", "{d}/illegal_mass.npz"], "legal_mask differs") for cmd in ("play", "serve")],
    (["arena", "leduc", "policy:{d}/illegal_mass.npz", "random", "-n", "1"], "legal_mask differs"),
    *[([*RESUME, f"{{d}}/ck_{name}.npz"], "iterations") for name in CHECKPOINT_ITERATIONS],
    *[([*RESUME, f"{{d}}/ck_{name}.npz"], name.rsplit("_", 1)[0] + " is") for name in CHECKPOINT_SECONDS],
    *[([*RESUME, f"{{d}}/ck_negative_{name}.npz"], "negative") for name in ("regret", "strategy_sum")],
    *[([*RESUME, f"{{d}}/ck_nan_{name}.npz"], "NaN") for name in ("regret", "strategy_sum")],
    *[([*RESUME, f"{{d}}/ck_text_{name}.npz"], "<U") for name in ("regret", "strategy_sum")],
    *[(["arena", "koikoi", f"{agent}{{d}}/bp_{name}.npz", "greedy", "-n", "1"], f"bp_{name}.npz")
      for name in BLUEPRINT_CASES for agent in ("blueprint:", "cfr:10:")],
    (["play", "koikoi", "--opponent", "blueprint:{d}/bp_fudawiki.npz"], "fudawiki rules"),
    ([*RESUME, "{d}/ckpt/c.npz", "--log", "{d}/log_text_iteration.jsonl"], "not a number"),
]


ALL_CASES = OUTPUT_CASES + INPUT_CASES + GAME_CASES + OPTION_CASES + LOADING_CASES


@pytest.mark.parametrize("args,says", ALL_CASES, ids=lambda a: " ".join(a)[:70] if isinstance(a, list) else None)
def test_refused_in_one_line(args: list[str], says: str, files: Path, capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    refused(args, files, capsys, monkeypatch, says)


def test_the_atomic_writer_never_replaces_a_device_or_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    for target in (tmp_path / "fifo", Path("/dev/null")):
        with pytest.raises(ValueError, match="refusing to replace it"):
            atomic_write_bytes(target, lambda handle: handle.write(b"x"))
    assert Path("/dev/null").is_char_device() and not (tmp_path / "fifo").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]  # no temporary file left either


def test_a_failed_plot_write_is_an_error_and_leaves_nothing(files: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """A full disk (ENOSPC at fsync) is exit 2 with no 'wrote' line and no image, never a success."""
    log = tmp_path / "run.jsonl"
    log.write_text('{"meta": {}}\n{"iteration": 1, "seconds": 0.1, "exploitability": 0.5}\n'
                   '{"iteration": 2, "seconds": 0.2, "exploitability": 0.25}\n')

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    assert main(["plot", str(log), "-o", str(tmp_path / "p.png")]) == 2
    out, err = capsys.readouterr()
    assert "No space left" in err and "wrote" not in out + err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]


def test_distinct_outputs_compare_resolved_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "a.npz")
    distinct_outputs([("--out", "a.npz"), ("--log", "b.jsonl"), ("--plot", None), ("--checkpoint", None)])
    with pytest.raises(ValueError, match="--out and --checkpoint"):
        distinct_outputs([("--out", "a.npz"), ("--checkpoint", str(tmp_path / "sub" / ".." / "a.npz"))])
    with pytest.raises(ValueError, match="symbolic link"):  # an output is never written through a link
        distinct_outputs([("--out", "a.npz"), ("--checkpoint", str(tmp_path / "link"))])


@pytest.mark.parametrize("text", ["[" * DEEP + "]" * DEEP, '{"a": ' * 70 + "1" + "}" * 70, "9" * 5001, "{", ""])
def test_parse_json_refuses_with_a_value_error(text: str) -> None:
    with pytest.raises(JSONInputError):
        parse_json(text)


def test_parse_json_accepts_nesting_up_to_the_bound() -> None:
    depth = MAX_JSON_DEPTH
    assert parse_json("[" * depth + "]" * depth) is not None


def test_a_zip_bomb_is_refused_before_inflating(files: Path) -> None:
    with pytest.raises(CheckpointError, match="inflate"):
        load_arrays(files / "bomb.npz")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_tree_size_estimate_is_near_the_true_size(players: int) -> None:
    """Knuth's estimator against the enumerated tree: within a factor 1.5 for 64 probes on Kuhn."""
    from cfrlab.tree.compile import compile_tree, estimate_nodes

    game = load_game(f"kuhn(players={players})")
    true = compile_tree(game).num_nodes
    assert true / 1.5 < estimate_nodes(game) < 1.5 * true
    assert estimate_nodes(game) == estimate_nodes(game)  # seeded: the same refusal every run


def test_a_huge_game_is_refused_in_a_few_walks_when_the_openspiel_extra_is_installed() -> None:
    pytest.importorskip("pyspiel")
    from cfrlab.tree.compile import DEFAULT_MAX_NODES, TreeTooLarge, compile_tree

    with pytest.raises(TreeTooLarge, match="too large to compile"):
        compile_tree(load_game("openspiel:chess"), DEFAULT_MAX_NODES)


def test_dcfr_factors_stay_finite_for_huge_exponents() -> None:
    """t^a / (t^a + 1) for a = 1e308 was inf / inf: NaN regrets. The logistic form is exact at the limits."""
    from cfrlab.solvers.regret import dcfr_factors

    for t in (1, 2, 10**6):
        pos, neg, _ = dcfr_factors(t, 1e308, -1e308, 2.0)
        assert (pos, neg) == ((0.5, 0.5) if t == 1 else (1.0, 0.0))
    assert dcfr_factors(3, 1.5, 0.0, 2.0)[:2] == pytest.approx((3**1.5 / (3**1.5 + 1), 0.5))


def test_the_bot_answers_every_hostile_line_and_keeps_serving() -> None:
    """A 5,000-digit number, deep nesting and junk each get an error line; the bot answers the next line."""
    from cfrlab.agents import make_agent
    from cfrlab.games.koikoi.ui.bot import serve_lines

    game = load_game("koikoi")
    lines = ['{"turn": ' + "9" * 5001 + "}", "[" * DEEP + "]" * DEEP, '{"a": ' * 70 + "1" + "}" * 70, "{nope", "null"]
    out = io.StringIO()
    refused = serve_lines(game, make_agent("greedy", game), io.StringIO("\n".join(lines) + "\n"), out)
    answers = out.getvalue().splitlines()
    assert refused == len(lines) == len(answers)
    assert all(a.startswith('{"error": "line ') for a in answers), answers


def test_openspiel_errors_are_one_line_at_the_file_descriptor(capfd: pytest.CaptureFixture[str]) -> None:
    """pyspiel's C++ printed every exception (for an unknown game, 90 game names) to stderr before raising."""
    pytest.importorskip("pyspiel")
    for spec in ("openspiel:kokoi", "openspiel:kuhn_poker(players=x)"):
        assert main(["solve", spec, "-n", "1"]) == 2
        err = capfd.readouterr().err
        assert err.startswith("error: OpenSpiel could not load") and err.count("\n") == 1, err


def test_a_large_tree_is_announced_before_it_is_built(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Building millions of nodes takes minutes: the CLI says what it builds (here with the bar lowered)."""
    from cfrlab.tree import compile as tree_compile

    monkeypatch.setattr(tree_compile, "ANNOUNCED_NODES", 100)
    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))  # not cached: compiled, so announced
    assert main(["solve", "kuhn(players=3)", "-n", "1", "--no-eval", "-q", "--algo", "cfr"]) == 0
    err = capsys.readouterr().err
    assert "note: building the game tree of kuhn(players=3): about" in err
