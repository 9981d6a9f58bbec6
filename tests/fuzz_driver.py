"""Generated bad inputs across the file formats: strategy files, checkpoints, run logs and game specs here, and
the formats the modules of ``FORMAT_MODULES`` bring (``.efg`` files, agent and arena logs; hold'em's LBR and
versus logs; Koi-Koi's blueprints, bot lines and network weights), each made by mutating a good one, each run
through the commands that read it.

A case passes when the command exits 0 (the mutation left a valid input) or 2 with one ``error:`` line, shows
no traceback, returns within ``HANG_SECONDS`` and changes no file but its own output. ``test_fuzz_mutations``
draws the mutations with hypothesis; ``python -m tests.fuzz_driver --cases 400`` runs a seeded batch and prints
the figures (refused, accepted, tracebacks, hangs, files changed)::

    PYTHONPATH=. python -m tests.fuzz_driver --cases 400 --seed 0
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import io
import json
import random
import signal
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

HANG_SECONDS = 60
"""A case still running after this long counts as a hang (the slowest good case takes a few seconds)."""

FORMAT_MODULES = ("tests.fuzz_formats", "tests.games.holdem.fuzz_formats", "tests.games.koikoi.fuzz_formats")
"""Modules that bring formats: each has ``FORMATS``, ``make_seeds(root)`` and ``make_case(fmt, seeds, folder,
rnd)``, and may have ``LINE_ANSWERS`` (formats whose command answers each input line in JSON) and ``SPECS`` (good
game specs for the spec mutations). A family's formats sit beside its tests."""
_MODULES = tuple(importlib.import_module(name) for name in FORMAT_MODULES)
FORMATS = ("strategy", "checkpoint", "runlog", "spec") + tuple(f for m in _MODULES for f in m.FORMATS)
"""Every format the CLI reads: this module's, then those of ``FORMAT_MODULES``."""
LINE_ANSWERS = tuple(f for m in _MODULES for f in getattr(m, "LINE_ANSWERS", ()))


# ------------------------------------------------------------------------------------------ good inputs

def make_seeds(root: Path) -> dict[str, Any]:
    """The good inputs every mutation starts from, written under ``root``."""
    from cfrlab.checkpoint import load_arrays
    from cfrlab.cli.main import main
    from cfrlab.registry import load_game
    from cfrlab.solvers.cfr import CFRPlus

    kuhn = load_game("kuhn")
    CFRPlus(kuhn).iterate(5).average_policy().save(root / "kuhn.npz", kuhn, solver="cfr+", iterations=5)
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert main(["solve", "kuhn", "-n", "3", "--checkpoint", str(root / "c.npz"), "--keep-checkpoint",
                     "--no-eval", "-q"]) == 0
    (root / "run.jsonl").write_text('{"meta": {"solver": "cfr+", "game": "kuhn"}}\n'
                                    + "".join(json.dumps({"iteration": i, "seconds": 0.01 * i,
                                                          "exploitability": 1.0 / i}) + "\n" for i in (1, 2, 4, 8)))
    specs = ["kuhn", "kuhn(players=3)", "leduc(ranks=3,suits=2,raise_sizes=[2,4],max_raises=2)",
             "random_game(seed=3,depth=3,branching=2)"]
    seeds: dict[str, Any] = {"strategy": load_arrays(root / "kuhn.npz"), "checkpoint": load_arrays(root / "c.npz"),
                             "runlog": (root / "run.jsonl").read_text()}
    for module in _MODULES:
        seeds.update(module.make_seeds(root))
        specs.extend(getattr(module, "SPECS", ()))
    return {**seeds, "spec": specs}


# ------------------------------------------------------------------------------------------ mutations

def json_value(rnd: random.Random, depth: int = 0) -> Any:
    """A hostile JSON value: wrong types, huge or negative numbers, long text, deep nesting."""
    kind = rnd.randrange(12 if depth < 3 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rnd.choice([True, False])
    if kind == 2:
        return rnd.choice([-5, 0, 1, 2**31, 2**63, -(2**40), 10**30])
    if kind == 3:
        return rnd.choice([-1e308, 1e308, 0.5, -0.0, 1e-300])
    if kind == 4:
        return rnd.choice(["", "x" * rnd.choice([1, 100, 5000]), "kuhn", "koikoi", "50", "nan", "\u0000", "[[["])
    if kind == 5:
        return "[" * rnd.choice([10, 70, 2000])  # text that looks nested
    if kind == 6:
        return json.loads("[" * 60 + "]" * 60)  # nested, but within the bound
    if kind == 7:
        return {"kind": rnd.choice(["policy", "checkpoint", "x"])}
    if kind in (8, 9):
        return [json_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    return {rnd.choice(["a", "kind", "game", "iterations", ""]): json_value(rnd, depth + 1) for _ in range(2)}


def mutate_meta(meta: dict[str, Any], rnd: random.Random) -> tuple[dict[str, Any] | None, str | None]:
    """(metadata, raw text or None): an entry replaced, removed or added, or the whole text made hostile."""
    meta = dict(meta)
    choice = rnd.randrange(6)
    if choice == 0 and meta:
        del meta[rnd.choice(sorted(meta))]
    elif choice in (1, 2, 3) and meta:
        meta[rnd.choice(sorted(meta))] = json_value(rnd)
    elif choice == 4:
        meta[rnd.choice(["extra", "quotient", "rows", "format_version", "kind"])] = json_value(rnd)
    else:
        return None, rnd.choice(["[" * 3000 + "]" * 3000, '{"kind": ' + "9" * 5001 + "}", "{", "", "null", "\xff",
                                 json.dumps(meta)[: rnd.randrange(1, 40)]])
    return meta, None


def mutate_array(value: np.ndarray, rnd: random.Random) -> np.ndarray | None:
    """An array made hostile: NaN, negative or huge values, another dtype or shape, or removed (None)."""
    choice = rnd.randrange(9)
    if choice == 0:
        return None
    if value.dtype.kind == "f" and choice in (1, 2, 3):
        out = value.copy()
        if out.size:
            with np.errstate(over="ignore"):  # 1e300 in a float32 array is infinity
                out.flat[rnd.randrange(out.size)] = rnd.choice([np.nan, np.inf, -1.0, 1e300, -0.0, 2.0])
        return out
    if choice == 4:
        try:
            return value.astype(rnd.choice([np.float32, np.int64, np.int8, np.bool_, np.str_]))
        except ValueError:  # text that is no number
            return value.astype(np.str_)
    if choice == 5:
        return value.reshape(-1) if value.ndim > 1 else value.reshape(1, -1)
    if choice == 6:
        return value[: rnd.randrange(max(1, len(value)))] if value.ndim else value
    if choice == 7 and value.size and value.dtype.kind in "iu":
        out = value.astype(np.int64)
        out.flat[rnd.randrange(out.size)] = rnd.choice([-1, 2**40, 127, 50, -(2**62)])
        return out
    return np.concatenate([value, value]) if value.ndim else value


def mutate_npz(arrays: dict[str, np.ndarray], meta: dict[str, Any], path: Path, rnd: random.Random) -> None:
    """Write a mutated copy of (arrays, meta) to ``path``: metadata, arrays, forged headers or bytes."""
    from tests.forged_files import META, with_declared_shape

    arrays = dict(arrays)
    for _ in range(rnd.randrange(1, 3)):
        if rnd.random() < 0.5:
            meta, raw = mutate_meta(meta, rnd)
            if raw is not None:
                np.savez(path, **arrays, **{META: np.frombuffer(raw.encode("utf-8", "surrogatepass"), np.uint8)})
                return
        else:
            name = rnd.choice(sorted(arrays))
            changed = mutate_array(arrays[name], rnd)
            if changed is None:
                del arrays[name]
            else:
                arrays[name] = changed
    np.savez(path, **arrays, **{META: np.frombuffer(json.dumps(meta).encode(), np.uint8)})
    tail = rnd.randrange(8)
    if tail == 0 and arrays:
        source = path.with_suffix(".src.npz")
        path.rename(source)
        shape = rnd.choice([(10**12,), (10**6, 10**6), (2**62, 2), (0,), (3, 0, 2**40)])
        with_declared_shape(source, path, rnd.choice(sorted(arrays)), shape)
        source.unlink()
    elif tail == 1:
        data = bytearray(path.read_bytes())
        for _ in range(rnd.randrange(1, 6)):
            data[rnd.randrange(len(data))] = rnd.randrange(256)
        path.write_bytes(bytes(data))
    elif tail == 2:
        data = path.read_bytes()
        path.write_bytes(data[: rnd.randrange(len(data))])
    elif tail == 3:
        with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("bomb.npy", _npy_header((8 * 2**20,)) + bytes(64 * 2**20))


def _npy_header(shape: tuple[int, ...]) -> bytes:
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": shape})
    return header.getvalue()


def mutate_text(text: str, rnd: random.Random) -> str:
    """A run log or bot line mutated: values replaced by hostile JSON, characters cut, lines added or nested."""
    lines = text.splitlines()
    for _ in range(rnd.randrange(1, 4)):
        i = rnd.randrange(len(lines))
        choice = rnd.randrange(6)
        if choice == 0:
            lines[i] = lines[i][: rnd.randrange(len(lines[i]) + 1)]
        elif choice == 1:
            lines.insert(i, json.dumps(json_value(rnd)))
        elif choice == 2:
            lines[i] = "[" * rnd.choice([100, 5000]) + lines[i]
        elif choice == 3:
            lines[i] = lines[i].replace("1", "9" * rnd.choice([2, 5001]), 1)
        else:
            try:
                obj = json.loads(lines[i])
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict) and obj:
                key = rnd.choice(sorted(obj))
                obj[key] = json_value(rnd) if rnd.random() < 0.7 else (
                    {k: json_value(rnd) for k in obj[key]} if isinstance(obj[key], dict) else json_value(rnd))
                lines[i] = json.dumps(obj)
    return "\n".join(lines) + "\n"


HUGE = [",players=100000)", ",depth=100000)", ",branching=1000000)", ",raise_sizes=[1e300,4])",
        ",rounds=1000000000)", ",max_raises=[100000])", ",gokou=1000000000)"]
"""Parameters valid in form but too large (``Game.parameter_bounds``): minutes of work or all memory before."""


def mutate_spec(spec: str, rnd: random.Random) -> str:
    """A game spec mutated character by character or parameter by parameter."""
    for _ in range(rnd.randrange(1, 4)):
        choice = rnd.randrange(5)
        i = rnd.randrange(len(spec) + 1)
        if choice == 0:
            spec = spec[:i] + rnd.choice("()[],=_ -x9'\"\\:") + spec[i:]
        elif choice == 1 and spec:
            spec = spec[:i] + spec[i + 1:]
        elif choice == 2:
            spec = spec.rstrip(")") + rnd.choice([",players=3)", ",players=2_0)", ",ranks=999999)", ",x=[" * 30 + ")",
                                                   ",suits=0)", ",players=2,players=3)", ",rules=nope)", *HUGE])
        elif choice == 3:
            spec = spec.replace("3", rnd.choice(["-1", "1e9", "3.5", "true", "[3]", "", "99999999999999999999"]), 1)
        else:
            spec = rnd.choice(["openspiel:", "koikoi(", "kuhn(players=" + "[" * 3000 + ")", "leduc" * 300, ""]) + spec
    return spec


# ------------------------------------------------------------------------------------------ one case

@dataclass
class Outcome:
    """What one generated input did."""

    fmt: str
    args: list[str]
    code: int | None
    error: str
    traceback: bool = False
    hang: bool = False
    changed: tuple[str, ...] = ()
    answers_ok: bool = True
    """For a format of ``LINE_ANSWERS`` (the bot): one JSON answer (an action or an error) per non-blank input
    line."""
    raw_escape: bool = False
    """An ESC character reached the output (a name from a file printed unescaped)."""

    @property
    def passed(self) -> bool:
        if self.fmt in LINE_ANSWERS:
            clear = self.code in (0, 2) and self.answers_ok
        else:
            clear = self.code == 0 or (self.code == 2 and self.error.startswith("error: ")
                                       and len(self.error.strip().splitlines()) == 1)
        return clear and not (self.traceback or self.hang or self.changed or self.raw_escape)


def make_case(fmt: str, seeds: dict[str, Any], folder: Path, rnd: random.Random) -> tuple[list[str], str, set[str]]:
    """(command line, stdin, files the command may write) for one mutated input of format ``fmt`` in ``folder``."""
    module = next((m for m in _MODULES if fmt in m.FORMATS), None)
    if module is not None:
        return module.make_case(fmt, seeds, folder, rnd)
    out = str(folder / "out")
    if fmt in ("strategy", "checkpoint"):
        arrays, meta = seeds[fmt]
        path = folder / f"{fmt}.npz"
        mutate_npz(arrays, meta, path, rnd)
        commands = {
            "strategy": [["eval", str(path)], ["show", str(path)],
                         ["arena", "kuhn", f"policy:{path}", "random", "-n", "2"],
                         ["play", "kuhn", "--strategy", str(path), "--hands", "1"]],
            "checkpoint": [["solve", "kuhn", "-n", "6", "--checkpoint", str(path), "--resume", "--no-eval", "-q"]],
        }[fmt]
        return rnd.choice(commands), "", {str(path)} if fmt == "checkpoint" else set()
    if fmt == "runlog":
        path = folder / "run.jsonl"
        path.write_text(mutate_text(seeds["runlog"], rnd), encoding="utf-8", errors="surrogatepass")
        return ["plot", str(path), "-o", f"{out}.png"], "", {f"{out}.png"}
    spec = mutate_spec(rnd.choice(seeds["spec"]), rnd)
    return ["solve", spec, "--algo", "external", "-n", "1", "--no-eval", "-q"], "", set()


def snapshot(folder: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


class Hang(BaseException):
    """Raised by the alarm when a case runs past ``HANG_SECONDS``."""


def run_case(fmt: str, args: list[str], stdin: str, folder: Path, own: set[str]) -> Outcome:
    """Run ``cfrlab ARGS`` in this process with ``stdin``; classify what it did."""
    from cfrlab.cli.main import main

    before = snapshot(folder)
    err, out = io.StringIO(), io.StringIO()

    def alarm(signum: int, frame: Any) -> None:
        raise Hang()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(HANG_SECONDS)
    code, traceback, hang = None, False, False
    saved_stdin = sys.stdin
    try:
        sys.stdin = io.StringIO(stdin)
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(args)
    except Hang:
        hang = True
    except BaseException as exc:  # anything main() lets out is a traceback for the user
        traceback = True
        err.write(f"Traceback: {type(exc).__name__}: {exc}"[:300])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdin = saved_stdin
    after = snapshot(folder)
    changed = tuple(sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p)
                           and not (code == 0 and p in own)))
    text = err.getvalue()
    said = text + out.getvalue()
    return Outcome(fmt, args, code, text, traceback or "Traceback" in said, hang, changed,
                   fmt not in LINE_ANSWERS or _answers_every_line(stdin, out.getvalue()), "\x1b" in said)


def _answers_every_line(stdin: str, stdout: str) -> bool:
    answers = stdout.splitlines()
    if len(answers) != len([line for line in stdin.splitlines() if line.strip()]):
        return False
    return all(set(json.loads(a)) in ({"action", "name"}, {"error"}) for a in answers)


def run_batch(cases: int, seed: int, root: Path, report: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """``cases`` generated inputs, the formats in turn, each in a fresh folder under ``root``."""
    seeds = make_seeds(root)
    rnd = random.Random(seed)
    outcomes = []
    for i in range(cases):
        fmt = FORMATS[i % len(FORMATS)]
        folder = root / f"case{i}"
        folder.mkdir()
        args, stdin, own = make_case(fmt, seeds, folder, rnd)
        outcome = run_case(fmt, args, stdin, folder, own)
        outcomes.append(outcome)
        if report is not None:
            report(outcome)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args(argv)

    def report(outcome: Outcome) -> None:
        if not outcome.passed:
            print(f"FAIL {outcome.fmt}: {' '.join(outcome.args)[:160]} -> code {outcome.code}, "
                  f"{outcome.error.strip()[:300]!r}, hang={outcome.hang}, changed={outcome.changed}", flush=True)

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cfrlab-fuzz-") as root:
        outcomes = run_batch(options.cases, options.seed, Path(root), report)
    print(f"{len(outcomes)} generated bad inputs in {time.perf_counter() - started:.0f} s (seed {options.seed})")
    for fmt in FORMATS:
        mine = [o for o in outcomes if o.fmt == fmt]
        print(f"  {fmt:10s} {len(mine):4d} cases: {sum(o.code == 2 for o in mine):4d} refused (exit 2), "
              f"{sum(o.code == 0 for o in mine):4d} still valid (exit 0)")
    failures = {"tracebacks": sum(o.traceback for o in outcomes), "hangs": sum(o.hang for o in outcomes),
                "files changed": sum(bool(o.changed) for o in outcomes),
                "other failures": sum(not o.passed and not (o.traceback or o.hang or o.changed) for o in outcomes)}
    print("  " + ", ".join(f"{n} {name}" for name, n in failures.items()))
    return 0 if not any(failures.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
