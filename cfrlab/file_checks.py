"""Checks every file a user names passes: inputs are regular files, outputs replace nothing but regular files and
are distinct, and JSON is of bounded nesting.

A FIFO given as an input blocked forever, ``/dev/zero`` was read until memory ran out, and the atomic write's
rename turned a device node given as ``--out`` into a regular file. JSON nested a thousand deep raised
``RecursionError`` wherever it was read. These checks sit in the mechanisms every command goes through (the
atomic writer, the run log, ``load_meta``), so no command needs its own.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in metadata, run logs and bot lines (ours nest 4 deep)."""


class JSONInputError(ValueError):
    """Text that is not JSON, or JSON nested deeper than ``MAX_JSON_DEPTH``."""


class JSONTooDeepError(JSONInputError):
    """JSON nested deeper than ``MAX_JSON_DEPTH``."""


def regular_input(path: str | os.PathLike[str], what: str = "file") -> Path:
    """``path`` if it is an existing regular file (symbolic links followed); a clear error for anything else."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} {str(path)!r} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read {what} {str(path)!r} ({exc.strerror})") from None
    if stat.S_ISDIR(mode):
        raise ValueError(f"{what} {str(path)!r} is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise ValueError(f"{what} {str(path)!r} is {_kind(mode)}, not a regular file; give a file")
    return path


def output_folder(out: Path, names: tuple[str, ...]) -> None:
    """A run's ``--out`` folder ``out`` can take the files ``names``: its parent exists, it is not a file, and none
    of the names is anything but a regular file (``output_target``)."""
    if not out.parent.is_dir():
        raise FileNotFoundError(f"cannot write to {str(out)!r}: the folder {str(out.parent)!r} does not exist")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file; give a folder")
    for name in names:
        output_target(out / name, f"--out {out}'s")


def output_target(path: str | os.PathLike[str], what: str = "output") -> Path:
    """``path`` if writing it replaces nothing but a regular file: it is absent, or a regular file."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise ValueError(f"cannot write {what} {str(path)!r} ({exc.strerror})") from None
    if stat.S_ISDIR(mode):
        raise ValueError(f"{what} {str(path)!r} is a folder; give a file name inside it")
    if not stat.S_ISREG(mode):
        raise ValueError(f"{what} {str(path)!r} exists and is {_kind(mode)}; refusing to replace it, give a file name")
    return path


def distinct_outputs(outputs: Iterable[tuple[str, str | os.PathLike[str] | None]]) -> None:
    """Refuse two outputs of one command on the same path (one would delete or overwrite the other).

    ``outputs`` holds (option name, path or None) pairs; paths are compared after resolving links."""
    seen: dict[str, str] = {}
    for name, path in outputs:
        if path is None:
            continue
        key = os.path.realpath(path)
        if key in seen:
            raise ValueError(f"{seen[key]} and {name} name the same file {str(path)!r}; give each its own file")
        seen[key] = name


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def parse_json(text: str | bytes, what: str = "JSON") -> Any:
    """``json.loads(text)``, refusing malformed text, numbers too long to read and nesting deeper than
    ``MAX_JSON_DEPTH`` with ``JSONInputError`` (a ``ValueError``) instead of ``RecursionError``."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeepError(f"{what} is nested too deeply (more than {MAX_JSON_DEPTH} levels)") from None
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError, and int() of a 5,000-digit number
        raise JSONInputError(f"{what} is not valid JSON ({str(exc).split(';')[0][:120]})") from None
    if json_depth(value) > MAX_JSON_DEPTH:
        raise JSONTooDeepError(f"{what} is nested too deeply (more than {MAX_JSON_DEPTH} levels)")
    return value


def json_depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            break
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest
