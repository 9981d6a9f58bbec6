"""Checks every file a user names passes, and what each guards (the one place they are listed):

* ``regular_input``: an input is an existing regular file. A FIFO blocked forever, ``/dev/zero`` was read until
  memory ran out, a symbolic link loop raised ``RuntimeError``.
* ``output_target``: an output replaces nothing but a regular file, is no symbolic link, and is no input of the
  command (``note_input``, within ``command_files``). The atomic write's rename turned a device given as ``--out``
  into a regular file; ``--log`` written through a planted link overwrote the file it pointed to; ``solve g.efg
  --out g.efg`` replaced the game it was solving. Same file means same inode, so hard links count too.
* ``output_subfolder``: a folder a run makes inside its ``--out`` (Koi-Koi training's ``pool/``, expert
  iteration's ``shards/gGGG/cCCC``) is no symbolic link, nor below one: ``pool`` planted as a link to another
  folder had the run write its snapshots there and delete the retired ones.
* ``distinct_outputs``: two outputs of one command are not one file (one would overwrite the other).
* ``parse_json``: JSON is of bounded nesting; a thousand levels raised ``RecursionError`` wherever it was read.
* ``terminal_safe``: text a file names (labels of an ``.efg`` file, keys and metadata of a strategy file) is
  printed with its control characters shown as escapes: an ESC sequence cleared the screen and set the window
  title. The CLI's consoles apply it and rich markup in such text is escaped (``cfrlab.cli.common``); the web
  server applies it to every string it answers and writes ``<``, ``>``, ``&``, ``'`` as JSON escapes
  (``cfrlab.web.guards.SafeJSON``), so an action labelled ``</script><script>`` is shown, never run.
* Numeric options (``cfrlab.cli.common``: ``number_in`` and the ``MAX_*`` bounds, typer's ``min``/``max``, a
  family's ``CommandOption.low``/``high``): every number a command takes is finite and in a range that gives a run,
  refused before any work: ``nan`` or ``inf`` seconds would never stop a run, 1e308 of them overflow a deadline,
  counts of 10**30 (seeds, iterations, sessions) were taken as given, zero playouts or workers give no run.
  Solver options (``cfrlab.cli.options.check_number``): finite, >= 0 unless ``SIGNED``, > 0 where ``POSITIVE``,
  at most 1e9 (a learning rate of ``nan``, ``--workers 1e308`` and a memory of 10**30 rows were taken); layer
  widths (``WIDTHS``) at most ``MAX_WIDTH`` = 4096, and each value of a list option (``--hidden-sizes 64,64``)
  checked as one, at most ``MAX_ENTRIES`` = 16 of them (``--advantage-hidden 1000000,5`` spent 11 CPU-minutes and
  2.2 GB before a first iteration). Agent
  budgets (``cfrlab.agents.spec.NUMBERISH``): ``cfr:-1`` or ``cfr:nan`` is a budget refused, not a folder's name.
  ``tests/cli/test_numeric_options.py`` walks every command's options, every solver's and every agent kind's
  budget, so a new one without bounds fails there.
* Game parameters (``cfrlab.game.check_parameters``, run by ``Game.__init__`` before a game builds anything): each
  number, and each entry of a list, within the game's ``parameter_bounds`` (``cfrlab games`` shows them), any other
  within ``MAX_PARAMETER``, lists of at most ``MAX_PARAMETER_ENTRIES``; a game that draws its whole tree when built
  bounds its size too (``random_game``: ``branching ** depth``). ``random_game(depth=100000)`` grew to 4 GB in a
  minute, ``random_game(players=100000)`` overflowed the trees' 8-bit players, ``leduc(raise_sizes=[1e300,4])``
  and hold'em blinds of 1e20 were taken. ``tests/test_game_bounds.py`` fails a numeric parameter without a bound.

These checks sit in the mechanisms every command goes through (the atomic writer, the run log, ``load_meta``, the
CLI's consoles and error line), so no command needs its own. The checks of one format's content sit by its reader:
``.efg`` files (``cfrlab.efg.parse``: sizes, digits, depth, memory), resumed logs (``cfrlab.runlog.check_rows``:
rows bound to their index, values within bounds, duplicates, a sample recomputed), network weights
(``games.koikoi.neural.weights.check_weights``: outputs finite for every input).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in metadata, run logs and bot lines (ours nest 4 deep)."""


progress_hook: Callable[[str], None] | None = None
"""Told, now and then, how far the read of a large input has got (``efg.parse``); the CLI prints it, so a long
read is no silent minute."""
_inputs: dict[tuple[int, int], tuple[str, str]] | None = None
"""The files the running command reads: (device, inode) -> (how it names them, their path); None outside
``command_files``."""


@contextmanager
def command_files() -> Iterator[None]:
    """Within: inputs given to ``note_input`` are recorded and ``output_target`` refuses to write over them (the
    CLI runs each command inside; a library caller outside records nothing)."""
    global _inputs
    saved, _inputs = _inputs, {}
    try:
        yield
    finally:
        _inputs = saved


def note_input(path: str | os.PathLike[str], what: str = "input") -> None:
    """Record ``path`` as an input of the running command: no output of it may be that file."""
    if _inputs is None:
        return
    try:
        info = os.stat(path)
    except OSError:
        return
    _inputs.setdefault((info.st_dev, info.st_ino), (f"{what} {str(path)!r}", os.fspath(path)))


def _aliased_input(path: Path) -> str | None:
    """How the command names the input that ``path`` is (the same file), or None."""
    if not _inputs:
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    key = (info.st_dev, info.st_ino)
    if key not in _inputs:
        return None
    name, where = _inputs[key]
    try:  # an input deleted since (a pool snapshot a run retired) may have left its inode to a new file
        now = os.stat(where)
    except OSError:
        now = None
    if now is None or (now.st_dev, now.st_ino) != key:
        del _inputs[key]
        return None
    return name


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


def output_subfolder(out: str | os.PathLike[str], folder: str | os.PathLike[str]) -> Path:
    """``folder`` (inside the run's folder ``out``) made, with ``out`` and the folders between: each below ``out`` is
    a folder, none a symbolic link, so nothing the run writes or deletes there lands outside ``out``."""
    out, folder = Path(out), Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    step = out
    for part in folder.relative_to(out).parts:
        step = step / part
        if step.is_symlink():
            raise ValueError(f"{str(step)!r} in the run's folder is a symbolic link; refusing to write through it, "
                             "remove it")
        if step.exists() and not step.is_dir():
            raise ValueError(f"{str(step)!r} in the run's folder is not a folder; remove it")
        step.mkdir(exist_ok=True)
    return folder


def output_target(path: str | os.PathLike[str], what: str = "output") -> Path:
    """``path`` if writing it replaces nothing but a regular file: it is absent, or a regular file that is no
    symbolic link and no input of the running command."""
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise ValueError(f"cannot write {what} {str(path)!r} ({exc.strerror})") from None
    if stat.S_ISLNK(mode):
        raise ValueError(f"{what} {str(path)!r} is a symbolic link; refusing to write through it, give the file "
                         "itself or a new name")
    aliased = _aliased_input(path)
    if aliased is not None:
        raise ValueError(f"{what} {str(path)!r} is the {aliased} this command reads; writing it would destroy "
                         "it, give another name")
    if stat.S_ISDIR(mode):
        raise ValueError(f"{what} {str(path)!r} is a folder; give a file name inside it")
    if not stat.S_ISREG(mode):
        raise ValueError(f"{what} {str(path)!r} exists and is {_kind(mode)}; refusing to replace it, give a file name")
    return path


def distinct_outputs(outputs: Iterable[tuple[str, str | os.PathLike[str] | None]]) -> None:
    """Refuse two outputs of one command on the same path (one would delete or overwrite the other).

    ``outputs`` holds (option name, path or None) pairs; paths are compared after resolving links. Each is also
    checked by ``output_target``, so a command refuses an output that is one of its inputs before it works."""
    seen: dict[str, str] = {}
    for name, path in outputs:
        if path is None:
            continue
        output_target(path, name)
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


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters a terminal acts on rather than shows: C0 but tab and newline, DEL, C1, and the bidirectional
controls that reorder what is shown (Trojan Source, CVE-2021-42574)."""


def terminal_safe(text: str) -> str:
    """``text`` with every control character shown as a Python escape (``\\x1b``), so that printing it moves no
    cursor, clears no screen and sets no window title."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
