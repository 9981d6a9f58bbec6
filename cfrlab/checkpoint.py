"""Atomic checkpoints: arrays in ``.npz``, metadata as JSON inside the same file.

Writes go to a temporary file in the target directory, are fsynced, then
renamed over the target, so a killed run leaves either the old or the new
checkpoint, never a torn one. No pickle anywhere (``allow_pickle=False``).
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np

_META_KEY = "__meta_json__"


class CheckpointError(ValueError):
    """A checkpoint that is missing, corrupt, or made for another run."""


def atomic_write_bytes(path: str | os.PathLike[str], write: Any) -> None:
    """Call ``write(fileobj)`` on a temp file beside ``path``, fsync, then rename over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_arrays(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """Atomically write ``arrays`` and JSON ``meta`` to one ``.npz`` file."""
    payload = {k: np.asarray(v) for k, v in arrays.items()}
    if _META_KEY in payload:
        raise ValueError(f"array name {_META_KEY!r} is reserved")
    payload[_META_KEY] = np.frombuffer(json.dumps(meta, sort_keys=True, default=json_default).encode(), dtype=np.uint8)
    atomic_write_bytes(path, lambda handle: np.savez(handle, **payload))


def load_arrays(path: str | os.PathLike[str], what: str = "file") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read a file written by ``save_arrays``; clear errors for missing or corrupt files."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{what} {str(path)!r} does not exist")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as exc:
        raise CheckpointError(f"{what} {str(path)!r} is corrupt or truncated ({exc})") from exc
    if _META_KEY not in arrays:
        raise CheckpointError(f"{what} {str(path)!r} is not a cfrlab file (no metadata)")
    try:
        meta = json.loads(arrays.pop(_META_KEY).tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{what} {str(path)!r} has corrupt metadata ({exc})") from exc
    return arrays, meta


def save_checkpoint(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """Atomically save a solver checkpoint (state arrays + metadata such as config and fingerprint)."""
    save_arrays(path, arrays, {**meta, "kind": "checkpoint"})


def load_checkpoint(
    path: str | os.PathLike[str], expect: Mapping[str, Any] | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Load a checkpoint; ``expect`` entries (e.g. game fingerprint, config) must match exactly."""
    arrays, meta = load_arrays(path, "checkpoint")
    check_identity(path, meta, expect or {})
    return arrays, meta


def check_identity(path: str | os.PathLike[str], meta: Mapping[str, Any], expect: Mapping[str, Any]) -> None:
    """Raise ``CheckpointError`` unless ``meta`` is a checkpoint whose ``expect`` entries match exactly."""
    if meta.get("kind") != "checkpoint":
        raise CheckpointError(f"{str(path)!r} is not a checkpoint (kind={meta.get('kind')!r})")
    for key, value in expect.items():
        found = meta.get(key)
        if json.loads(json.dumps(value, default=json_default)) != found:
            raise CheckpointError(
                f"checkpoint {str(path)!r} was made with {key}={found!r}, but this run has {key}={value!r}; "
                "start a fresh run or use the original settings"
            )


def json_default(obj: Any) -> Any:
    """JSON encoding of numpy scalars and arrays, tuples, sets and dataclasses (for metadata)."""
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    if hasattr(obj, "__dataclass_fields__"):
        import dataclasses

        return dataclasses.asdict(obj)
    return str(obj)
