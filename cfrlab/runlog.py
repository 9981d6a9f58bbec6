"""Run logs: one JSON object per line (iteration, seconds, exploitability, ...)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.file_checks import JSONInputError, JSONTooDeepError, output_target, parse_json, regular_input


class RunLog:
    """Append metrics to a JSONL file; the first line holds the run's metadata."""

    def __init__(self, path: str | os.PathLike[str] | None, meta: dict[str, Any] | None = None, append: bool = False):
        self.path = output_target(path, "run log") if path else None
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not append or not self.path.exists():
            with self.path.open("w") as handle:
                handle.write(json.dumps({"meta": meta or {}}, default=str) + "\n")

    def log(self, **metrics: Any) -> None:
        """Write one record (flushed at once so a killed run keeps its log)."""
        if self.path is None:
            return
        with self.path.open("a") as handle:
            handle.write(json.dumps(metrics, default=float) + "\n")


def resumed_records(path: str | os.PathLike[str], meta: dict[str, Any], what: str, advice: str,
                    not_kind: str | None = None) -> list[dict[str, Any]]:
    """The records of a log that a run which stopped left at ``path`` (none when there is no file), before the
    run continues it: a log whose first line is not ``meta`` (another run's) is refused, ``what`` naming what it
    holds and ``advice`` what to give instead; a last line a kill left unfinished is cut. ``not_kind``: the
    refusal of a log whose first line lacks ``meta``'s first item (its kind and version), another kind of file."""
    output_target(path, "log")  # it is appended to: no symbolic link, no input of the command
    if not Path(path).exists():
        return []
    found, records = read_runlog(path)
    kind = next(iter(meta), None)
    if not_kind is not None and kind is not None and found.get(kind) != meta[kind]:
        raise ValueError(f"{str(path)!r} {not_kind}")
    if found != meta:
        differ = sorted(k for k in set(found) | set(meta) if found.get(k) != meta.get(k))
        raise ValueError(f"{str(path)!r} holds the {what} of another run (its {', '.join(differ)} differ): {advice}")
    with Path(path).open("rb+") as handle:
        text = handle.read()
        if text and not text.endswith(b"\n"):
            handle.truncate(text.rfind(b"\n") + 1)
    return records


def strategy_digest(probs: np.ndarray) -> str:
    """A digest of a strategy's probability table (what a log's deals depend on, whatever the file's name)."""
    return hashlib.blake2b(np.ascontiguousarray(probs).view(np.uint8).data, digest_size=12).hexdigest()


RECOMPUTED = 2
"""Resumed entries of a log (LBR deals, agent table rows) recomputed and compared, at least, before a run takes the
rest: an entry depends only on its run's seed and its index, so an edited one differs (deals edited to 1,000 chips
reported +100,000 mb/h; rows moved to another policy changed the exploitability from 0.458 to 1.0)."""
RECOMPUTE_SECONDS = 1.0
"""CPU seconds of recomputing beyond the first ``RECOMPUTED`` entries: a log of cheap entries is checked whole (a
single edited row is found), one of costly entries (``oos:1``'s rows, a CPU-second each) by its sample."""


def unique_index(path: str | os.PathLike[str], index: Any, limit: int, seen: Collection[int], what: str) -> int:
    """``index`` of a resumed log's record if it is an integer in [0, ``limit``) not ``seen`` before (a duplicated
    deal changed the result); else the log is refused in one line."""
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < limit:
        raise ValueError(f"{str(path)!r} holds a {what} numbered {index!r:.40}, not one of 0..{limit - 1}: not a log "
                         "this run wrote")
    if index in seen:
        raise ValueError(f"{str(path)!r} holds {what} {index} twice: an edited log; give a new file")
    return index


def recompute_sample(path: str | os.PathLike[str], done: Mapping[int, Any], recompute: Callable[[int], Any],
                     agree: Callable[[Any, Any], bool], what: str) -> None:
    """Recompute entries of ``done`` in an order the operating system's generator draws (unforeseeable, so an edit
    cannot dodge the check): ``RECOMPUTED`` of them, then more while ``RECOMPUTE_SECONDS`` allow; refuse the log in
    one line if one differs from what it holds."""
    started = time.process_time()
    for count, index in enumerate(random.SystemRandom().sample(sorted(done), len(done))):
        if count >= RECOMPUTED and time.process_time() - started > RECOMPUTE_SECONDS:
            return
        again = recompute(index)
        if not agree(done[index], again):
            raise ValueError(f"{str(path)!r} holds {what} {index} as {_short(done[index])}, recomputed now as "
                             f"{_short(again)}: the log was edited or made by another version; give a new file")


def _short(value: Any) -> str:
    text = str([float(x) for x in value] if hasattr(value, "__len__") else value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_runlog(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Return (metadata, records) of a run log; records skip lines that are not JSON (a torn last line).

    A line that is JSON but not an object, or metadata that is not an object, is refused: it is no run log."""
    meta: dict[str, Any] = {}
    records: list[dict[str, Any]] = []
    for number, line in enumerate(_lines(path), 1):
        try:
            obj = parse_json(line, f"line {number} of {str(path)!r}")
        except JSONTooDeepError:
            raise
        except JSONInputError:
            continue
        if not isinstance(obj, dict):
            raise ValueError(f"line {number} of {str(path)!r} is a JSON {type(obj).__name__}, not an object: "
                             "not a run log (the .jsonl file `cfrlab solve --log` writes)")
        if "meta" in obj and len(obj) == 1:
            if not isinstance(obj["meta"], dict):
                raise ValueError(f"line {number} of {str(path)!r} holds metadata that is not a JSON object")
            meta = obj["meta"]
        else:
            records.append(obj)
    return meta, records


def truncate_after(path: str | os.PathLike[str], iteration: int) -> None:
    """Drop records past ``iteration`` (used when a run resumes from an older checkpoint); the log is replaced
    atomically, and one whose records have no numeric iteration is refused before anything is written."""
    from cfrlab.checkpoint import atomic_write_bytes

    meta, records = read_runlog(path)
    for record in records:
        done = record.get("iteration", 0)
        if isinstance(done, bool) or not isinstance(done, (int, float)):
            raise ValueError(f"run log {str(path)!r} has a record whose iteration is {done!r:.40}, not a number; "
                             "give --log a new file or the log this run wrote")
    lines = [json.dumps({"meta": meta}, default=str)]
    lines += [json.dumps(record, default=float) for record in records if record.get("iteration", 0) <= iteration]
    text = "".join(line + "\n" for line in lines)
    atomic_write_bytes(path, lambda handle: handle.write(text.encode()))


def _lines(path: str | os.PathLike[str]) -> Iterator[str]:
    with regular_input(path, "run log").open() as handle:
        try:
            for line in handle:
                if line.strip():
                    yield line
        except UnicodeDecodeError:
            raise ValueError(f"{str(path)!r} is not a run log (the .jsonl text file `cfrlab solve --log` writes)") \
                from None
