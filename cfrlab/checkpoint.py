"""Atomic checkpoints: arrays in ``.npz``, metadata as JSON inside the same file.

Writes go to a temporary file in the target directory, are fsynced, then
renamed over the target, so a killed run leaves either the old or the new
checkpoint, never a torn one. No pickle anywhere (``allow_pickle=False``).
"""

from __future__ import annotations

import glob
import json
import math
import os
import re
import tempfile
import zipfile
import zlib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.file_checks import output_target, parse_json, regular_input

_META_KEY = "__meta_json__"


class CheckpointError(ValueError):
    """A checkpoint that is missing, corrupt, or made for another run."""


def atomic_write_bytes(path: str | os.PathLike[str], write: Any) -> None:
    """Call ``write(fileobj)`` on a temp file beside ``path``, fsync, then rename over ``path``.

    Temp files an earlier, killed write of ``path`` left behind are removed first. A ``path`` that exists and is
    not a regular file (a device, a FIFO, a folder) is refused: the rename would replace it."""
    path = output_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_orphaned_temps(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; the file gets the mode any new file would
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def remove_orphaned_temps(path: str | os.PathLike[str]) -> list[Path]:
    """Delete the temporary files a write of ``path`` left behind when killed (``.NAME.*.tmp`` beside it)."""
    path = Path(path)
    removed = []
    if path.parent.is_dir():
        for orphan in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
            if _TEMP_NAME.fullmatch(orphan.name[len(path.name) + 2:]) and orphan.is_file() \
                    and not orphan.is_symlink():  # ours: mkstemp's 8 random characters, a plain file
                orphan.unlink(missing_ok=True)
                removed.append(orphan)
    return removed


_TEMP_NAME = re.compile(r"[a-z0-9_]{8}\.tmp")
"""What ``tempfile.mkstemp`` puts between the prefix and ``.tmp``: a user's file of another shape is never removed."""


def save_arrays(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """Atomically write ``arrays`` and JSON ``meta`` to one ``.npz`` file."""
    payload: dict[str, Any] = {k: np.asarray(v) for k, v in arrays.items()}  # np.savez's **kwds
    if _META_KEY in payload:
        raise ValueError(f"array name {_META_KEY!r} is reserved")
    payload[_META_KEY] = np.frombuffer(json.dumps(meta, sort_keys=True, default=json_default).encode(), dtype=np.uint8)
    atomic_write_bytes(path, lambda handle: np.savez(handle, **payload))


MAX_FILE_BYTES = 4 * 2**30
"""Largest total array size a file may declare (4 GiB): a forged header never allocates more."""

MAX_COMPRESSED_BYTES = 64 * 2**20
"""Largest total size compressed members may declare (64 MiB). cfrlab writes its arrays uncompressed, so a stored
member's size is bytes the file really holds; a deflated one can declare a thousand times its size (a 2 MB
"zip bomb" decompressed 2 GiB for a minute before the shape check refused it)."""


def load_arrays(path: str | os.PathLike[str], what: str = "file",
                names: Collection[str] | None = None,
                skip: Collection[str] = ()) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read a file written by ``save_arrays``: its arrays in ``names`` (None: all) but those in ``skip`` (the rest
    stay on disk); clear errors for missing, corrupt or oversized files.

    Every array's declared shape is checked against the bytes the file holds before anything is allocated.
    """
    path = Path(path)
    meta = load_meta(path, what)
    try:
        with np.load(path, allow_pickle=False) as data:
            _check_declared_sizes(data.zip, path, what)
            wanted = [k for k in data.files if k != _META_KEY and k not in skip and (names is None or k in names)]
            arrays = {k: data[k] for k in wanted}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError, RuntimeError, zlib.error) as exc:
        raise CheckpointError(f"{what} {str(path)!r} is corrupt or truncated ({exc})") from exc
    return arrays, meta


def load_meta(path: str | os.PathLike[str], what: str = "file") -> dict[str, Any]:
    """Only the JSON metadata of a file written by ``save_arrays`` (no array is read)."""
    try:
        path = regular_input(path, what)
    except FileNotFoundError:
        raise
    except ValueError as exc:
        raise CheckpointError(str(exc)) from None
    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo(_META_KEY + ".npy")
            if info.file_size > 2**24:
                raise CheckpointError(f"{what} {str(path)!r} declares {info.file_size} bytes of metadata")
            with archive.open(info) as handle:
                raw = np.lib.format.read_array(handle, allow_pickle=False)
    except KeyError:
        raise CheckpointError(f"{what} {str(path)!r} is not a cfrlab file (no metadata)") from None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, RuntimeError, zlib.error) as exc:
        raise CheckpointError(f"{what} {str(path)!r} is corrupt or truncated ({exc})") from exc
    try:
        meta = parse_json(raw.tobytes(), "its metadata")
    except ValueError as exc:
        raise CheckpointError(f"{what} {str(path)!r} has corrupt metadata ({exc})") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{what} {str(path)!r} has corrupt metadata (a JSON {type(meta).__name__}, "
                              "not an object)")
    return meta


def _check_declared_sizes(archive: zipfile.ZipFile, path: Path, what: str) -> None:
    """Refuse members whose ``.npy`` header declares more data than the member holds, or too much in all."""
    total = 0
    inflated = sum(info.file_size for info in archive.infolist() if info.compress_type != zipfile.ZIP_STORED)
    if inflated > MAX_COMPRESSED_BYTES:
        raise CheckpointError(f"{what} {str(path)!r} holds compressed arrays that inflate to {inflated:,} bytes "
                              f"(more than {MAX_COMPRESSED_BYTES:,}); refused")
    for info in archive.infolist():
        with archive.open(info) as handle:
            version = np.lib.format.read_magic(handle)
            fmt = np.lib.format
            read_header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            shape, _, dtype = read_header(handle)
            header = handle.tell()
        if dtype.hasobject:
            raise CheckpointError(f"{what} {str(path)!r} holds Python objects ({info.filename}); refused")
        declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
        total += declared
        if declared > info.file_size - header or total > MAX_FILE_BYTES:
            raise CheckpointError(
                f"{what} {str(path)!r} is corrupt: {info.filename} declares shape {shape} ({declared} bytes) "
                f"but holds {info.file_size - header} bytes"
            )


def save_checkpoint(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """Atomically save a solver checkpoint (state arrays + metadata such as config and fingerprint)."""
    save_arrays(path, arrays, {**meta, "kind": "checkpoint"})


def load_checkpoint(
    path: str | os.PathLike[str], expect: Mapping[str, Any] | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Load a checkpoint; ``expect`` entries (e.g. game fingerprint, config) must match exactly."""
    arrays, meta = load_arrays(path, "checkpoint")
    check_checkpoint_meta(path, meta)
    check_identity(path, meta, expect or {})
    return arrays, meta


CHECKPOINT_COUNTS = ("iterations", "seconds", "eval_seconds", "wall_seconds", "cpu_seconds", "peak_rss_mb")
"""Metadata a resumed run continues from: each absent, or a finite number >= 0 (``iterations`` an integer)."""


def check_checkpoint_meta(path: str | os.PathLike[str], meta: Mapping[str, Any]) -> None:
    """Raise ``CheckpointError`` unless the counts a run resumes from are what a run writes (the checks a strategy
    file's metadata passes; -5 or "50" iterations were resumed, a list of seconds traced back)."""
    for name in CHECKPOINT_COUNTS:
        value = meta.get(name, 0)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value) or value < 0 or (name == "iterations" and type(value) is not int):
            kind = "an integer" if name == "iterations" else "a finite number"
            raise CheckpointError(f"checkpoint {str(path)!r} is corrupt: {name} is {value!r:.40}, not {kind} >= 0")
    if not isinstance(meta.get("extra", {}), dict):
        raise CheckpointError(f"checkpoint {str(path)!r} is corrupt: extra is {meta.get('extra')!r:.40}, not an "
                              "object")


def check_identity(path: str | os.PathLike[str], meta: Mapping[str, Any], expect: Mapping[str, Any]) -> None:
    """Raise ``CheckpointError`` unless ``meta`` is a checkpoint whose ``expect`` entries match exactly.

    The error names each differing field (``config.delay: 0 in the checkpoint, 3 in this run``).
    """
    if meta.get("kind") != "checkpoint":
        raise CheckpointError(f"{str(path)!r} is not a checkpoint (kind={meta.get('kind')!r})")
    wanted = json.loads(json.dumps(dict(expect), default=json_default))
    found = {key: meta.get(key) for key in wanted}
    differences = field_differences(found, wanted)
    if differences:
        shown = "; ".join(f"{name}: {old!r} in the checkpoint, {new!r} in this run" for name, old, new in differences)
        raise CheckpointError(
            f"checkpoint {str(path)!r} was made for another run ({shown}); "
            "use the original settings or start a fresh run without --resume"
        )


def field_differences(old: Any, new: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """``(dotted name, old value, new value)`` for every leaf where two JSON-like values differ."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        out: list[tuple[str, Any, Any]] = []
        for key in sorted(set(old) | set(new), key=str):
            out += field_differences(old.get(key), new.get(key), f"{prefix}{key}.")
        return out
    return [] if old == new else [(prefix.rstrip("."), old, new)]


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
