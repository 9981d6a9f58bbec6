"""A hostile user's inputs to the newer commands and options: hold'em evaluation in the real game, abstractions,
symmetry-quotient strategy files, Online Outcome Sampling options, Koi-Koi blueprints (``cfr``/``blueprint``
agents, ``cfrlab train koikoi``) and the JSON-lines bot. Each must give one ``error:`` line, exit code 2, no
traceback, and leave every file and folder as it was (``test_fuzz_inputs`` holds the older cases)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from cfrlab.checkpoint import load_arrays, save_arrays
from cfrlab.cli.main import main
from cfrlab.games.koikoi.players.blueprint import SHIPPED, Blueprint
from cfrlab.registry import load_game
from cfrlab.solvers.cfr import CFRPlus
from tests.forged_files import edited, write_npz
from tests.test_fuzz_inputs import run_cli

HOLDEM = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1])"
BIG_LEDUC = "leduc(ranks=13,suits=4,max_raises=8)"  # beyond the evaluation limit: eval collapses to the quotient


def _blueprint_edits() -> dict[str, tuple[dict, dict]]:
    arrays, _ = load_arrays(SHIPPED)
    a = {name: arrays[name] for name in ("keys", "offset", "actions", "probs")}
    first_d = int(np.flatnonzero(np.char.startswith(a["keys"], "D"))[0])
    d_row = a["actions"].copy()
    d_row[a["offset"][first_d] + 1] = 50  # a koi-koi row whose second action is no action of the engine
    dup, bad = a["keys"].copy(), a["keys"].copy()
    dup[1], bad[0] = dup[0], "X1:0"
    return {
        "actions_big": ({"actions": a["actions"].astype(np.int64) + 60}, {}),
        "actions_negative": ({"actions": -a["actions"]}, {}),
        "actions_decide": ({"actions": d_row}, {}),
        "actions_float": ({"actions": a["actions"].astype(np.float64)}, {}),
        "actions_2d": ({"actions": a["actions"][None, :]}, {}),
        "keys_dup": ({"keys": dup}, {}), "keys_bad": ({"keys": bad}, {}),
        "probs_2d": ({"probs": a["probs"][None, :]}, {}),
        "inf": ({"probs": np.full_like(a["probs"], np.inf)}, {}),
        "offset_float": ({"offset": a["offset"].astype(np.float64)}, {}),
        "iterations": ({}, {"iterations": -5}), "game": ({}, {"game": 12345}), "config": ({}, {"config": [1]}),
        "version_true": ({}, {"abstraction_version": True}), "plays_features": ({}, {"plays": "features"}),
        "nan": ({"probs": np.full_like(a["probs"], np.nan)}, {}),
        "negative": ({"probs": -a["probs"]}, {}),
        "zero": ({"probs": np.zeros_like(a["probs"])}, {}),
        "offset_big": ({"offset": a["offset"] * 1000}, {}),
        "offset_short": ({"offset": a["offset"][:5]}, {}),
        "keys_int": ({"keys": np.arange(len(a["keys"]))}, {}),
        "probs_text": ({"probs": a["probs"].astype(str)}, {}),
        "no_probs": ({"probs": None}, {}),
        "plays": ({}, {"plays": "nope"}),
        "plays_list": ({}, {"plays": ["greedy"]}),
        "version": ({}, {"abstraction_version": 99}),
        "no_version": ({}, {"abstraction_version": None}),
    }


BLUEPRINT_EDITS = _blueprint_edits()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Strategy files (Kuhn, a Leduc quotient file and crafted copies), crafted blueprints and a training run."""
    root = tmp_path_factory.mktemp("fuzz_new")
    kuhn, leduc = load_game("kuhn"), load_game("leduc")
    CFRPlus(kuhn).iterate(5).average_policy().save(root / "kuhn.npz", kuhn, solver="cfr+", iterations=5)
    quotient = leduc.symmetry_quotient()
    good = root / "leduc.npz"
    CFRPlus(quotient).iterate(2).average_policy().save(good, leduc, quotient=True, solver="cfr+", iterations=2)
    arrays, meta = load_arrays(good)
    for name, entry in QUOTIENT_ENTRIES.items():
        edited(good, root / f"q_{name}.npz", {"quotient": entry})
    edited(root / "kuhn.npz", root / "q_on_kuhn.npz", {"quotient": meta["quotient"]})
    for name, key in (("bad_key", "::||"), ("bad_actions", "0:K:x"), ("dup_key", str(arrays["keys"][1]))):
        keys = arrays["keys"].copy()
        keys[0] = key
        write_npz(root / f"q_{name}.npz", {**arrays, "keys": keys}, meta)
    big = load_game(BIG_LEDUC)
    big_meta = {**{k: v for k, v in meta.items() if k != "quotient"}, "game": big.spec(),
                "fingerprint": big.fingerprint(), "game_identity": big.identity()}
    for name, key in (("big_bad_key", "::||"), ("big_bad_card", "0:Zz:")):
        write_npz(root / f"{name}.npz", {"keys": np.array([key]), "probs": np.array([[0.5, 0.5, 0.0]]),
                                         "legal_mask": np.array([[True, True, False]])}, big_meta)
    bp_arrays, bp_meta = load_arrays(SHIPPED)
    for name, (array_edits, meta_edits) in BLUEPRINT_EDITS.items():
        out = {k: v for k, v in {**bp_arrays, **array_edits}.items() if v is not None}
        save_arrays(root / f"bp_{name}.npz", out, {k: v for k, v in {**bp_meta, **meta_edits}.items() if v is not None})
    assert main(["train", "koikoi", "--out", str(root / "trained"), "-n", "2", "--eval-deals", "0"]) == 0
    ckpt = (root / "trained" / "checkpoint.npz").read_bytes()
    (root / "cut").mkdir()
    (root / "cut" / "checkpoint.npz").write_bytes(ckpt[: len(ckpt) // 2])
    return root


QUOTIENT_ENTRIES = {"empty": {}, "no_fingerprint": {"game": "leduc_suitless"}, "text": "leduc_suitless",
                    "true": True, "list": [1], "numbers": {"game": 5, "fingerprint": 5},
                    "wrong_fingerprint": {"game": "leduc_suitless", "fingerprint": "0123456789abcdef"}}


def folders(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir())


def refused(args: list[str], files: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
            says: str = "") -> None:
    """``run_cli``'s checks, no folder made, and the error line saying ``says``."""
    before = folders(files)
    run_cli(args, files, capsys, monkeypatch)
    assert folders(files) == before, args
    if says:
        monkeypatch.chdir(files)
        main([a.format(d=files) for a in args])
        assert says in capsys.readouterr().err, (args, says)


TRAIN = ["train", "koikoi", "--eval-deals", "0"]
NEW_CLI_CASES: list[tuple[list[str], str]] = [
    # hold'em abstraction and real-game evaluation
    (["solve", HOLDEM, "--abstraction", "ehs2:99999999999999999999", "-n", "1"], "buckets must be from 1 to 1,000,000"),
    (["solve", HOLDEM, "--abstraction", "ehs2:100000,100000", "-n", "1"], "bucket sequences"),
    (["solve", HOLDEM, "--abstraction", "ehs2:-1", "-n", "1"], "buckets"),
    (["solve", HOLDEM, "--abstraction", "ehs2:2", "--algo", "pvt-cfr", "--workers", "0", "-n", "1"], ""),
    (["eval", "{d}/kuhn.npz", "--lbr", "10"], "hold'em"), (["eval", "{d}/kuhn.npz", "--versus", "call"], "hold'em"),
    (["eval", "{d}/kuhn.npz", "--real-exact"], "hold'em"), (["eval", "{d}/kuhn.npz", "--lbr", "nan"], ""),
    (["eval", "{d}/kuhn.npz", "--versus", ","], "--versus"),
    # symmetry-quotient strategy files, crafted
    *[([cmd, f"{{d}}/q_{name}.npz"], "") for cmd in ("eval", "show")
      for name in (*QUOTIENT_ENTRIES, "on_kuhn", "bad_key", "bad_actions", "dup_key")],
    (["play", "leduc", "--strategy", "{d}/q_wrong_fingerprint.npz"], "quotient"),
    (["arena", "leduc", "policy:{d}/q_bad_key.npz", "random"], "q_bad_key.npz"),
    (["eval", "{d}/big_bad_key.npz"], "big_bad_key.npz is corrupt"),
    (["eval", "{d}/big_bad_card.npz"], "big_bad_card.npz is corrupt"),
    # Online Outcome Sampling options
    *[(["play", "kuhn", "--opponent", "oos", "--seconds", v], "") for v in ("nan", "inf", "-1", "0", "x")],
    *[(["arena", "kuhn", f"oos:{v}", "random"], "oos:SECONDS") for v in ("nan", "0", "-1", "1e400", "", "x")],
    (["serve", "kuhn", "--opponent", "oos:inf"], "oos:SECONDS"), (["play", "kuhn", "--seconds", "1"], "--seconds"),
    (["solve", "kuhn", "--algo", "oos", "--predictive", "-n", "1"], ""),
    (["solve", "kuhn", "--algo", "oos", "--targeting", "nope", "-n", "1"], ""),
    (["solve", "koikoi", "--algo", "oos", "-n", "1", "--out", "{d}/oos.npz"], "--opponent oos"),
    *[(["solve", game, "--algo", algo, "-n", "1"], "cfrlab train koikoi")
      for game in ("koikoi", "koikoi(rounds=3)") for algo in ("external", "outcome", "cfr+", "nfsp")],
    # Koi-Koi blueprints as agents
    *[(["arena", "koikoi", f"blueprint:{{d}}/bp_{name}.npz", "greedy", "--rounds", "1"], f"bp_{name}.npz")
      for name in BLUEPRINT_EDITS],
    (["arena", "koikoi", "cfr:{d}/bp_nan.npz", "greedy", "--rounds", "1"], "is corrupt: a row of probabilities"),
    (["play", "koikoi", "--opponent", "blueprint:{d}/kuhn.npz"], "not a Koi-Koi blueprint"),
    (["play", "koikoi", "--opponent", "cfr:{d}/no/such"], "does not exist"),
    (["play", "koikoi", "--opponent", "cfr:0"], ""), (["play", "koikoi", "--opponent", "cfr:0ms"], ""),
    (["play", "koikoi", "--opponent", "blueprint:{d}/bp_actions_big.npz"], "that key's actions are"),
    (["play", "koikoi", "--opponent", "cfr:10:{d}/bp_actions_decide.npz"], "that key's actions are [48, 49]"),
    (["bot", "koikoi", "--agent", "cfr:{d}/bp_keys_bad.npz"], "'X1:0' is not one the abstraction"),
    (["bot", "koikoi", "--agent", "blueprint:{d}/bp_actions_negative.npz"], "bp_actions_negative.npz' is corrupt"),
    (["play", "kuhn", "--opponent", "blueprint"], ""), (["bot", "koikoi", "--agent", "blueprint:{d}/bp_zero.npz"], ""),
    (["bot", "kuhn"], "Koi-Koi"), (["bot", "koikoi", "--agent", "policy:{d}/kuhn.npz"], ""),
    # agent options that would be ignored or run for ever, negative seeds
    (["bot", "koikoi", "--agent", "greedy", "--rollouts", "5"], "would change no agent"),
    (["bot", "koikoi", "--agent", "random", "--objective", "match"], "would change no agent"),
    (["arena", "koikoi", "greedy", "search:3", "--rollouts", "5", "-n", "1"], "would change no agent"),
    (["play", "koikoi", "--opponent", "blueprint", "--rollouts", "5"], "--rollouts sets the playouts"),
    (["play", "koikoi", "--opponent", "greedy", "--objective", "match"], "would change no agent"),
    (["bot", "koikoi", "--rollouts", "99999999999999999999999"], "--rollouts"),
    (["bot", "koikoi", "--agent", "search:9999999999"], "at most 1,000,000"),
    (["arena", "koikoi", "cfr:9999999999", "greedy", "-n", "1"], "at most 1,000,000"),
    (["arena", "koikoi", "cfr:99999999999999999999999ms", "greedy", "-n", "1"], "3600000ms"),
    (["play", "koikoi", "--opponent", "cfr:0.5"], "T milliseconds such as 20ms"),
    *[(["arena", "koikoi", spec, "greedy", "-n", "1"], "search[:N|:Tms][:points|match]")
      for spec in ("search:0ms", "search:0.5", "search:20s", "search:20ms:5", "search:-20ms", "search:ms",
                   "search:99999999999999999999999ms")],
    (["bot", "koikoi", "--agent", "search:0ms"], "positive time per decision of at most 3600000ms"),
    (["arena", "kuhn", "oos:1e9", "random", "-n", "1"], "at most 3600"),
    *[(["arena", "kuhn", spec, "random", "-n", "1"], f"in that order; got {spec!r}")
      for spec in ("oos:0.1:pst:nope", "oos:0.1:match:pst", "oos:pst:0.1", "oos:0.1:ist:pst")],
    *[([cmd, *rest, "--seed", "-1"], "--seed") for cmd, *rest in (
        ["bot", "koikoi"], ["arena", "kuhn", "random", "random", "-n", "1"], ["play", "kuhn"],
        ["solve", "kuhn", "--algo", "external", "-n", "1"], ["eval", "{d}/kuhn.npz"],
        ["experiment", "fsp-kuhn", "--quick", "--out", "{d}/x"])],
    # counts that overflowed numpy's indices, options that set nothing, more local workers than CPUs
    (["arena", "kuhn", "random", "random", "-n", "99999999999999999999"], "--rounds"),
    (["eval", "{d}/kuhn.npz", "--lbr", "99999999999999999999"], "--lbr"),
    (["eval", "{d}/kuhn.npz", "--versus", "call", "--hands", "99999999999999999999"], "--hands"),
    (["eval", "{d}/kuhn.npz", "--hands", "5"], "--hands is an option of hold'em games, not of kuhn"),
    (["eval", "{d}/kuhn.npz", "--rollouts", "5"], "--rollouts is an option of hold'em games, not of kuhn"),
    (TRAIN[:2] + ["--out", "{d}/t", "-n", "1", "--eval-deals", "99999999999999999999"], "--eval-deals"),
    (TRAIN[:2] + ["--out", "{d}/t", "-n", "1", "--eval-deals", "-1"], "--eval-deals"),
    (TRAIN + ["--out", "", "-n", "1"], "--out needs a folder"),
    (["arena", "kuhn", "random", "random", "-n", "1", "--workers", "999"], "CPUs"),
    (["arena", "kuhn", "random", "random", "-n", "1", "--workers", "99999"], "--workers"),
    (["show", "{d}/kuhn.npz", "--limit", "-5"], "--limit"),
    (["plot", "{d}/kuhn.npz", "-o", "{d}/kuhn.png"], "is not a run log"),
    (["arena", "koikoi", "greedyXYZ", "random", "-n", "1"], "unknown agent"),
    (["arena", "koikoi", "greedy:5", "random", "-n", "1"], "unknown agent"),
    (["arena", "kuhn", "random", "random", "-n", "1", "--address", "127.0.0.1:1"], "no Ray cluster answers"),
    # cfrlab train koikoi
    *[(TRAIN + ["--out", "{d}/t", "--hours", v], "--hours") for v in ("inf", "nan", "-1", "0")],
    (TRAIN + ["--out", "{d}/no/such/t", "-n", "1"], "does not exist"),
    (TRAIN + ["--out", "{d}/t", "-n", "1", "--seed", "-1"], "--seed"),
    (TRAIN + ["--out", "{d}/t"], "budget"), (TRAIN + ["--out", "{d}/t", "-n", "0"], ""),
    (TRAIN + ["--out", "{d}/kuhn.npz", "-n", "1"], ""), (["train", "kuhn", "--out", "{d}/t", "-n", "1"], "Koi-Koi"),
    (["train", "koikoi(rounds=12)", "--out", "{d}/t", "-n", "1"], "single rounds"),
    (TRAIN + ["--out", "{d}/trained", "-n", "5"], "--resume"),
    (TRAIN + ["--out", "{d}/trained", "-n", "1", "--resume"], "more than"),
    (TRAIN + ["--out", "{d}/trained", "-n", "5", "--resume", "--seed", "3"], "seed"),
    (TRAIN + ["--out", "{d}/trained", "-n", "5", "--resume", "--plays", "features"], "sampling"),
    (TRAIN + ["--out", "{d}/cut", "-n", "5", "--resume"], "corrupt"),
]


@pytest.mark.parametrize("args,says", NEW_CLI_CASES, ids=lambda a: " ".join(a)[:70] if isinstance(a, list) else "")
def test_new_options_refuse_bad_input(args: list[str], says: str, files: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    refused(args, files, capsys, monkeypatch, says)


def test_shipped_blueprint_passes_the_checks() -> None:
    assert len(Blueprint.load(SHIPPED).table) > 100


def test_interrupted_training_says_how_to_resume(files: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("cfrlab.games.koikoi.learn.blueprint.train_blueprint", interrupted)
    code = main(["train", "koikoi", "--out", str(files / "trained"), "-n", "9", "--resume"])
    err = capsys.readouterr().err
    assert code == 130 and "Traceback" not in err and err.startswith("interrupted: ") and "--resume" in err
    assert len(err.strip().splitlines()) == 1


# -------------------------------------------------------------------------------------------- the bot's lines

GOOD_OBSERVATION = {"player": 0, "oya": 0, "round": 1, "totals": [0, 0], "hand": [8, 16, 23, 27, 35, 36, 44, 45],
                    "dealt_field": [1, 3, 6, 10, 19, 22, 28, 30], "history": []}
BAD_LINES = [
    "{", "null", "[]", "NaN", "[" * 100_000, '{"a":' * 50_000,
    *[json.dumps({**GOOD_OBSERVATION, **change}) for change in (
        {"history": [[["play"], 3]]}, {"history": [[{"a": 1}, 3]]}, {"history": [[None]]}, {"history": [3]},
        {"player": [0]}, {"player": {"a": 1}}, {"oya": 0.5}, {"totals": [float("nan"), 0]}, {"round": 10**30},
        {"hand": [10**30]}, {"hand": [[1]]}, {"piles": "ab"}, {"calls": [10**30, 0]}, {"player": 1},
        {"player": 0.0}, {"oya": 1.0}, {"totals": [10**30, 0]}, {"totals": [2**63, -2**63]}, {"totals": [0, -10**7]},
    )],
]


def test_bot_answers_every_bad_line_with_an_error_and_keeps_serving() -> None:
    from cfrlab.agents import make_agent
    from cfrlab.games.koikoi.ui.bot import serve_lines

    game = load_game("koikoi")
    lines = [*BAD_LINES, json.dumps(GOOD_OBSERVATION)]
    out = io.StringIO()
    assert serve_lines(game, make_agent("greedy", game), io.StringIO("\n".join(lines) + "\n"), out) == len(BAD_LINES)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == len(lines)
    for number, answer in enumerate(answers[:-1], start=1):
        assert set(answer) == {"error"} and answer["error"].startswith(f"line {number}: "), answer
    assert set(answers[-1]) == {"action", "name"}


def test_a_training_run_trains_one_slice_at_least(tmp_path: Path) -> None:
    """A time budget shorter than one slice still trains it (an empty blueprint was written before)."""
    from cfrlab.games.koikoi.learn.blueprint import train_blueprint

    solver = train_blueprint(tmp_path / "bp", seconds=1e-300, slice_iterations=3, eval_deals=0)
    assert solver.iterations == 3 and len(Blueprint.load(tmp_path / "bp" / "blueprint.npz").table) > 0


def test_a_local_ray_is_never_given_more_workers_than_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refused before Ray starts (99,999 local workers started as many processes and hung the machine)."""
    import os

    import ray

    from cfrlab.distributed import WorkerPool

    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as in a fresh process
    monkeypatch.setattr(ray, "init", lambda *a, **k: pytest.fail("Ray was started"))
    monkeypatch.setattr("cfrlab.distributed.running_cluster", lambda: None)
    with pytest.raises(ValueError, match="CPUs"):
        WorkerPool((os.cpu_count() or 1) + 1)
