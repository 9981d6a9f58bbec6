"""A hostile user's inputs: malformed CLI arguments, strategy files with corrupted bytes, edited metadata and
masks, checkpoints cut at every tenth of their length, and bad web request bodies. Each must give a clear
error (exit code 2 or HTTP 4xx), no traceback, and leave every file as it was."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cfrlab.checkpoint import load_arrays
from cfrlab.cli.main import main
from cfrlab.registry import load_game
from cfrlab.solvers.cfr import CFRPlus
from tests.forged_files import edited, member_data_offsets, with_declared_shape, write_npz

# ------------------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a good Kuhn strategy file, a Leduc one, a run log, checkpoints and every damaged copy."""
    root = tmp_path_factory.mktemp("fuzz")
    kuhn, leduc = load_game("kuhn"), load_game("leduc")
    good = root / "kuhn.npz"
    CFRPlus(kuhn).iterate(30).average_policy().save(good, kuhn, solver="cfr+", iterations=30)
    CFRPlus(leduc).iterate(2).average_policy().save(root / "leduc.npz", leduc, solver="cfr+", iterations=2)
    (root / "run.jsonl").write_text('{"meta": {}}\n{"iteration": 1, "seconds": 0.1, "exploitability": 0.5}\n')
    (root / "garbage.jsonl").write_text("not json at all\n\x00\x01")
    for name, make in FILE_CASES.items():
        make(good, root / f"{name}.npz")
    for algo in CHECKPOINT_ALGOS:
        ckpt = root / f"{algo}.ckpt.npz"
        assert main(["solve", "kuhn", "--algo", algo, "-n", "20", "--checkpoint", str(ckpt), "--no-eval", "-q"]) == 0
        data = ckpt.read_bytes()
        for tenth in range(10):
            (root / f"{algo}.cut{tenth}.npz").write_bytes(data[: len(data) * tenth // 10])
    return root


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``folder`` (hidden ones too) with its content hash and mode."""
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mode)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def run_cli(args: list[str], folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)  # anything written relative to the working folder would show in the snapshot
    before = snapshot(folder)
    code = main([a.format(d=folder) for a in args])
    out, err = capsys.readouterr()
    assert code == 2, (args, code, out[-500:], err[-500:])
    assert "Traceback" not in out + err and err.startswith("error: "), (args, err)
    assert len([line for line in err.splitlines() if line.strip()]) == 1, (args, err)
    assert snapshot(folder) == before, args


# ------------------------------------------------------------------------------------------- CLI arguments

CLI_CASES: list[list[str]] = [
    ["nope"], ["--nope"], ["solve"], ["eval"], ["show"], ["plot"], ["serve"], ["play"], ["arena"],
    ["experiment"], ["games", "--nope"], ["algorithms", "extra"],
    *[["solve", "kuhn", "-n", v] for v in ("abc", "-5", "0", "1.5", "", "1e3", "--", "nan")],
    *[["solve", "kuhn", "--time-limit", v] for v in ("nan", "inf", "-inf", "-1", "0", "abc", "")],
    *[["solve", "kuhn", "--target-exploitability", v] for v in ("nan", "-1", "abc", "inf")],
    *[["solve", "kuhn", "--checkpoint-every", v] for v in ("-1", "nan", "inf", "x")],
    *[["solve", "kuhn", "--eval-every", v] for v in ("0", "-3", "x", "2.5")],
    *[["solve", "kuhn", "--seed", v] for v in ("x", "1.5", "")],
    *[["solve", "kuhn", "--algo", v] for v in ("nope", "", "CFR PLUS")],
    *[["solve", g, "-n", "1"] for g in ("chess", "kuhn(players=1)", "kuhn(players=x)", "kuhn(", "kuhn)", "",
                                         "leduc(ranks=0)", "leduc(ranks=100000000)", "kuhn(players=3,foo=1)",
                                         "leduc(max_raises=-1)", "leduc(raise_sizes=[1])", "kuhn(players=2.5)",
                                         "leduc(suits=true)", "(kuhn)", "kuhn(players=)")],
    ["solve", "kuhn", "--nope", "3", "-n", "1"], ["solve", "kuhn", "--delay", "x", "-n", "1"],
    ["solve", "kuhn", "stray", "-n", "1"], ["solve", "leduc", "--ranks", "0", "-n", "1"],
    ["solve", "kuhn", "--algo", "external", "--batch", "0", "-n", "1"],
    ["solve", "kuhn", "--algo", "external", "--sampling", "nope", "-n", "1"],
    ["solve", "kuhn", "-n", "1", "--out", "{d}/no/such/x.npz"], ["solve", "kuhn", "-n", "1", "--out", "{d}"],
    ["solve", "kuhn", "-n", "1", "--log", "{d}/no/such/x.jsonl"],
    ["solve", "kuhn", "-n", "1", "--plot", "{d}/no/x.png"],
    ["solve", "kuhn", "-n", "1", "--checkpoint", "{d}/no/c.npz"],
    ["solve", "kuhn", "-n", "1", "--checkpoint", "{d}/kuhn.npz", "--resume"],
    ["solve", "leduc", "-n", "30", "--checkpoint", "{d}/cfr+.ckpt.npz", "--resume"],
    ["solve", "kuhn", "--algo", "dcfr", "-n", "30", "--checkpoint", "{d}/cfr+.ckpt.npz", "--resume"],
    ["solve", "kuhn", "-n", "10", "--checkpoint", "{d}/cfr+.ckpt.npz", "--resume"],
    ["solve", "kuhn", "--list-options", "--algo", "nope"],
    ["solve", "kuhn", "--target-exploitability", "0.1", "--algo", "external", "-n", "1",
     "--path", "nope"],
    ["eval", "{d}/no/such.npz"], ["eval", "{d}"], ["eval", "{d}/run.jsonl"],
    ["eval", "{d}/kuhn.npz", "--game", "chess"],
    ["eval", "{d}/kuhn.npz", "--game", "leduc"], ["eval", "{d}/leduc.npz", "--game", "kuhn"],
    ["eval", "{d}/kuhn.npz", "--game", "kuhn(players=3)"], ["eval", "{d}/cfr+.ckpt.npz"],
    ["show", "{d}/no/such.npz"], ["show", "{d}/kuhn.npz", "--limit", "x"], ["show", "{d}/garbage.jsonl"],
    ["plot", "{d}/no/such.jsonl"], ["plot", "{d}/run.jsonl", "-o", "{d}/no/such/x.png"],
    ["plot", "{d}/garbage.jsonl", "-o", "{d}/x.png"],
    ["serve", "kuhn", "--port", "70000"], ["serve", "kuhn", "--port", "-1"], ["serve", "chess"],
    ["serve", "kuhn", "--strategy", "{d}/no/such.npz"], ["serve", "kuhn", "--opponent", "nope"],
    ["serve", "kuhn", "--max-sessions", "0"], ["serve", "kuhn", "--session-ttl", "nan"],
    ["serve", "kuhn", "--strategy", "{d}/leduc.npz"], ["serve", "kuhn", "--opponent", "policy"],
    ["serve", "kuhn", "--opponent", "greedy"], ["serve", "kuhn", "--strategy", "{d}/edit_mask_wide.npz"],
    ["experiment", "nope"], ["experiment", "fsp-kuhn", "--seed", "x"],
    ["play", "chess"], ["arena", "kuhn", "nope", "random"], ["arena", "kuhn", "random", "random", "--rounds", "x"],
    ["arena", "kuhn", "random", "random", "--rounds", "-5"], ["arena", "kuhn", "random", "random", "--workers", "0"],
]


@pytest.mark.parametrize("args", CLI_CASES, ids=lambda a: " ".join(a)[:60])
def test_bad_cli_arguments(args: list[str], files: Path, capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    run_cli(args, files, capsys, monkeypatch)


# ------------------------------------------------------------------------------------------ strategy files


def _flip(member: int, delta: int):
    def make(good: Path, target: Path) -> None:
        raw = bytearray(good.read_bytes())
        raw[member_data_offsets(good)[member] + delta] ^= 0xFF
        target.write_bytes(bytes(raw))
    return make


def _cut(tenth: int):
    def make(good: Path, target: Path) -> None:
        raw = good.read_bytes()
        target.write_bytes(raw[: len(raw) * tenth // 10])
    return make


def _meta(meta: Any):
    def make(good: Path, target: Path) -> None:
        write_npz(target, load_arrays(good)[0], meta)
    return make


def _meta_edit(**changes: Any):
    def make(good: Path, target: Path) -> None:
        edited(good, target, changes)
    return make


def _arrays(fn):
    """An edit of the arrays: ``fn(keys, probs, mask)`` returns the new dict of arrays."""
    def make(good: Path, target: Path) -> None:
        arrays, meta = load_arrays(good)
        write_npz(target, fn(arrays["keys"], arrays["probs"], arrays["legal_mask"]), meta)
    return make


def _declared(name: str, shape: tuple[int, ...]):
    def make(good: Path, target: Path) -> None:
        with_declared_shape(good, target, name, shape)
    return make


def _wide(keys, probs, mask):
    extra = np.full((len(keys), 1), 0.5)
    return {"keys": keys, "probs": np.hstack([probs * 0.5, extra]), "legal_mask": np.hstack([mask, extra > 0])}


def _mask_off(keys, probs, mask):
    mask, probs = mask.copy(), probs.copy()
    mask[0, 1], probs[0] = False, [1.0, 0.0]
    return {"keys": keys, "probs": probs, "legal_mask": mask}


def _set(array: str, value: Any):
    def fn(keys, probs, mask):
        out = {"keys": keys, "probs": probs.copy(), "legal_mask": mask}
        out[array] = value(out[array]) if callable(value) else value
        return out
    return fn


def _poke(row: int, col: int, value: float):
    def change(probs):
        probs[row, col] = value
        return probs
    return change


FILE_CASES: dict[str, Any] = {
    **{f"flip_m{m}_{d}": _flip(m, d) for m in range(4) for d in (0, 5, 40)},
    **{f"cut_{t}": _cut(t) for t in range(10)},
    "meta_null": _meta(None), "meta_list": _meta([1, 2]), "meta_int": _meta(12345), "meta_str": _meta("kuhn"),
    "meta_empty": _meta({}), "meta_kind_only": _meta({"kind": "policy"}),
    "meta_version": _meta_edit(format_version=2), "meta_version_str": _meta_edit(format_version="1"),
    "meta_kind": _meta_edit(kind="checkpoint"), "meta_kind_null": _meta_edit(kind=None),
    "meta_game_int": _meta_edit(game=12345), "meta_game_empty": _meta_edit(game=""),
    "meta_game_chess": _meta_edit(game="chess"), "meta_game_bad": _meta_edit(game="kuhn(players=1)"),
    "meta_game_huge": _meta_edit(game="leduc(ranks=100000000)"), "meta_game_long": _meta_edit(game="k" * 5000),
    "meta_game_list": _meta_edit(game=["kuhn"]), "meta_fp_int": _meta_edit(fingerprint=123),
    "meta_fp_wrong": _meta_edit(fingerprint="0123456789abcdef"), "meta_fp_null": _meta_edit(fingerprint=None),
    "meta_solver": _meta_edit(solver=5), "meta_iterations": _meta_edit(iterations="many"),
    "meta_config": _meta_edit(config="x"), "meta_expl": _meta_edit(exploitability="low"),
    "meta_identity": _meta_edit(game_identity=[1]),
    "edit_mask_wide": _arrays(_wide), "edit_mask_off": _arrays(_mask_off),
    "edit_mask_none": _arrays(_set("legal_mask", lambda m: np.zeros_like(m))),
    "edit_mask_int": _arrays(_set("legal_mask", lambda m: m.astype(np.int64))),
    "edit_probs_nan": _arrays(_set("probs", _poke(0, 0, np.nan))),
    "edit_probs_inf": _arrays(_set("probs", _poke(1, 1, np.inf))),
    "edit_probs_negative": _arrays(_set("probs", _poke(2, 0, -0.5))),
    "edit_probs_sum": _arrays(_set("probs", _poke(3, 0, 0.9999))),
    "edit_probs_int": _arrays(_set("probs", lambda p: (p > 0.5).astype(np.int64))),
    "edit_probs_text": _arrays(_set("probs", lambda p: p.astype(str))),
    "edit_probs_1d": _arrays(_set("probs", lambda p: p[:, 0])),
    "edit_probs_rows": _arrays(_set("probs", lambda p: p[:-1])),
    "edit_keys_int": _arrays(_set("keys", lambda k: np.arange(len(k)))),
    "edit_keys_dup": _arrays(_set("keys", lambda k: np.array([k[0]] * len(k)))),
    "edit_keys_unknown": _arrays(_set("keys", lambda k: np.array([f"x{key}" for key in k]))),
    "edit_keys_2d": _arrays(_set("keys", lambda k: k.reshape(-1, 1))),
    "edit_no_keys": _arrays(lambda keys, probs, mask: {"probs": probs, "legal_mask": mask}),
    "edit_no_probs": _arrays(lambda keys, probs, mask: {"keys": keys, "legal_mask": mask}),
    "edit_no_mask": _arrays(lambda keys, probs, mask: {"keys": keys, "probs": probs}),
    "edit_object": _arrays(_set("probs", lambda p: p.astype(object))),
    "declared_probs": _declared("probs", (10**11, 2)), "declared_keys": _declared("keys", (10**9,)),
    "declared_meta": _declared("__meta_json__", (10**10,)), "declared_mask": _declared("legal_mask", (10**6, 10**6)),
}


@pytest.mark.parametrize("name", sorted(FILE_CASES))
def test_damaged_strategy_files(name: str, files: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    command = "show" if sorted(FILE_CASES).index(name) % 2 else "eval"
    run_cli([command, f"{{d}}/{name}.npz"], files, capsys, monkeypatch)


@pytest.mark.parametrize("name", ["edit_mask_wide", "edit_mask_off", "edit_mask_none", "edit_keys_unknown",
                                  "meta_fp_wrong", "edit_probs_nan"])
def test_damaged_strategy_files_as_arena_agents(name: str, files: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``policy:FILE`` agents are checked as ``eval`` checks the file: infosets and legal actions included."""
    run_cli(["arena", "kuhn", f"policy:{{d}}/{name}.npz", "random", "-n", "2"], files, capsys, monkeypatch)


# -------------------------------------------------------------------------------------------- checkpoints

CHECKPOINT_ALGOS = ("cfr+", "external")


@pytest.mark.parametrize("algo", CHECKPOINT_ALGOS)
@pytest.mark.parametrize("tenth", range(10))
def test_checkpoints_cut_at_every_tenth(algo: str, tenth: int, files: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    run_cli(["solve", "kuhn", "--algo", algo, "-n", "40", "--checkpoint", f"{{d}}/{algo}.cut{tenth}.npz", "--resume",
             "--out", "{d}/resumed.npz"], files, capsys, monkeypatch)


# ------------------------------------------------------------------------------------------- web requests

RAW = ["", "{", "null", "[]", "1", '"x"', "{}{}", '{"a":', "\x00", "\ufeff[", "[" * 5000 + "]" * 5000,
       '{"x": ' + "[" * 30000 + "]" * 30000 + "}"]
SESSION_BODIES = RAW[1:] + [
    '{"seat": -1}', '{"seat": 2}', '{"seat": 99999999999999999999}', '{"seat": true}', '{"seat": 1.0}',
    '{"seat": NaN}', '{"seat": Infinity}', '{"seat": "0"}', '{"seed": 1}', '{"seat": 0, "seed": 7}',
    '{"seat": 0, "x": 1}', '{"seat": null}', '{"seat": [0]}', '{"seat": {"a": 0}}',
]
ACTION_BODIES = RAW + [
    '{"action": NaN}', '{"action": -Infinity}', '{"action": true}', '{"action": false}', '{"action": 1.5}',
    '{"action": 1.0}', '{"action": "1"}', '{"action": 1e400}', '{"action": null}', '{"action": -1}',
    '{"action": 2}', '{"action": 99999999999999999999}', '{"action": 0, "extra": 1}', '{"actions": 0}',
]
HAND_BODIES = ['{"seat": 0}', "{}", '{"seat": 5}', '{"seat": true}', '{"seat": NaN}', '{"x": 1}', "[]", "{"]


@pytest.fixture(scope="module")
def web() -> Any:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from cfrlab.cli.serve import build_app

    client = TestClient(build_app("kuhn", None, None, host="127.0.0.1"), base_url="http://127.0.0.1:8000")
    snap = client.post("/api/sessions", json={"seat": 0}).json()
    return client, snap["session"]


def check_web(web: Any, method: str, path: str, body: str | bytes | None, **headers: str) -> None:
    client, sid = web
    store = client.app.state.store
    before = (len(store), json.dumps(client.get(f"/api/sessions/{sid}").json(), sort_keys=True))
    response = client.request(method, path.format(sid=sid), content=body,
                              headers={"content-type": "application/json", **headers})
    assert 400 <= response.status_code < 500, (path, body if body is None else body[:80], response.status_code,
                                               response.text[:300])
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "Traceback" not in detail
    after = (len(store), json.dumps(client.get(f"/api/sessions/{sid}").json(), sort_keys=True))
    assert after == before


@pytest.mark.parametrize("body", SESSION_BODIES, ids=lambda b: b[:30])
def test_bad_new_session_bodies(body: str, web: Any) -> None:
    check_web(web, "POST", "/api/sessions", body)


@pytest.mark.parametrize("body", ACTION_BODIES, ids=lambda b: b[:30])
def test_bad_action_bodies(body: str, web: Any) -> None:
    check_web(web, "POST", "/api/sessions/{sid}/actions", body)


@pytest.mark.parametrize("body", HAND_BODIES, ids=lambda b: b[:30])
def test_bad_new_hand_bodies(body: str, web: Any) -> None:
    check_web(web, "POST", "/api/sessions/{sid}/hands", body)  # the hand is in play: 409 at best


@pytest.mark.parametrize("method,path,body,headers", [
    ("GET", "/api/sessions/nope", None, {}), ("GET", "/api/sessions/{sid}x", None, {}),
    ("DELETE", "/api/sessions/nope", None, {}), ("POST", "/api/sessions/nope/actions", '{"action": 0}', {}),
    ("PUT", "/api/sessions", "{}", {}), ("POST", "/api/info", "{}", {}), ("GET", "/api/nope", None, {}),
    ("POST", "/api/sessions", b'{"seat": 0, "pad": "' + b"x" * 100_000 + b'"}', {}),
    ("POST", "/api/sessions", '{"seat": 0}', {"host": "evil.example"}),
    ("POST", "/api/sessions", '{"seat": 0}', {"host": "127.0.0.1.evil.example:8000"}),
    ("POST", "/api/sessions", '{"seat": 0}', {"content-length": "999999999"}),
    ("POST", "/api/sessions", '{"seat": 0}', {"content-length": "-1"}),
])
def test_bad_requests(method: str, path: str, body: Any, headers: dict[str, str], web: Any) -> None:
    check_web(web, method, path, body, **headers)


def test_there_are_at_least_200_malformed_inputs() -> None:
    web_cases = len(SESSION_BODIES) + len(ACTION_BODIES) + len(HAND_BODIES) + 12
    assert len(CLI_CASES) + len(FILE_CASES) + 10 * len(CHECKPOINT_ALGOS) + web_cases >= 200
