"""Run logs: one JSON object per line (iteration, seconds, exploitability, ...)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator


class RunLog:
    """Append metrics to a JSONL file; the first line holds the run's metadata."""

    def __init__(self, path: str | os.PathLike[str] | None, meta: dict[str, Any] | None = None, append: bool = False):
        self.path = Path(path) if path else None
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


def read_runlog(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Return (metadata, records) of a run log; records skip a torn last line."""
    meta: dict[str, Any] = {}
    records: list[dict[str, Any]] = []
    for line in _lines(path):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "meta" in obj and len(obj) == 1:
            meta = obj["meta"]
        else:
            records.append(obj)
    return meta, records


def truncate_after(path: str | os.PathLike[str], iteration: int) -> None:
    """Drop records past ``iteration`` (used when a run resumes from an older checkpoint)."""
    meta, records = read_runlog(path)
    kept = [r for r in records if r.get("iteration", 0) <= iteration]
    with Path(path).open("w") as handle:
        handle.write(json.dumps({"meta": meta}, default=str) + "\n")
        for record in kept:
            handle.write(json.dumps(record, default=float) + "\n")


def _lines(path: str | os.PathLike[str]) -> Iterator[str]:
    with Path(path).open() as handle:
        try:
            for line in handle:
                if line.strip():
                    yield line
        except UnicodeDecodeError:
            raise ValueError(f"{str(path)!r} is not a run log (the .jsonl text file `cfrlab solve --log` writes)") \
                from None
