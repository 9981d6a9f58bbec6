"""Console, JSON output and small helpers shared by the commands."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from cfrlab.file_checks import terminal_safe


class SafeConsole(Console):
    """A rich console that shows control characters as escapes (``file_checks.terminal_safe``) in every string it
    renders, table cells included, and prints text whose markup does not parse as it is (a label ``[/]`` from a
    file raised ``MarkupError``). Text from a file is still escaped where it is interpolated (``markup``)."""

    def render_str(self, text: str, **kwargs: Any) -> Any:
        from rich.errors import MarkupError
        from rich.markup import escape

        text = terminal_safe(text)
        try:
            return super().render_str(text, **kwargs)
        except MarkupError:
            return super().render_str(escape(text), **kwargs)


def markup(text: object) -> str:
    """``text`` (a name from a file: a label, key, spec or metadata) made safe to put in rich markup: control
    characters escaped and brackets that rich would read as tags escaped."""
    from rich.markup import escape

    return escape(terminal_safe(str(text)))


def terminal_print(text: str) -> None:
    """``print`` for text that may name what a file holds (``file_checks.terminal_safe``)."""
    print(terminal_safe(text))


console = SafeConsole(stderr=True)
"""Human output (progress, tables) goes to stderr so ``--json`` stdout stays machine-readable."""
stdout = SafeConsole()


MAX_DEALS = 10**9
"""Deals, hands or rounds a command may be asked to play: far beyond any run's time, and below what numpy's
index arithmetic holds (a larger count failed with an OverflowError)."""

MAX_SEED = 2**32 - 1
"""Largest seed (numpy's legacy generators and the compiled kernels' seeds hold 32 bits)."""

MAX_PLAYERS = 64
"""Most seats a game may have (``cfrlab play --seat`` is below it and below the game's own count)."""

MAX_SESSIONS = 100_000
"""Most web sessions a server may keep (each holds a game's state)."""

MAX_WORKERS = 4096
"""Most Ray workers or self-play processes a command may start."""

MAX_WIDTH = 4096
"""Widest layer a solver's network may have: ``--advantage-hidden 1000000,5`` spent 11 CPU-minutes and 2.2 GB
building Kuhn's networks before any iteration (a 4096-wide layer of 4096 inputs is 64 MB of float32)."""

MAX_SECONDS = 366 * 86400.0
"""Longest time an option may name (a budget, a period, a wait): a year; 1e308 overflowed the deadlines."""

MAX_TARGET = 1e200
"""Largest target exploitability: the payoffs a game may hold are below it (``cfrlab.efg.parse``)."""

PLAIN_PROGRESS_SECONDS = 5.0
"""Seconds between plain progress lines when stderr is not a terminal (a log file, a pipe)."""


def emit_json(data: Any) -> None:
    """``data`` as strict JSON on stdout: NaN and infinities become null (JSON has no such numbers)."""
    sys.stdout.write(json.dumps(_finite(data), indent=2, default=float, allow_nan=False) + "\n")


def _finite(data: Any) -> Any:
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_finite(v) for v in data]
    if hasattr(data, "item") and callable(data.item):  # numpy scalars
        return _finite(data.item())
    return data


def file_heading(path: Path, result: dict[str, Any]) -> str:
    """The first line of a strategy file's evaluation: its name, solver, game and iterations."""
    return (f"{markup(path.name)}: {markup(result.get('solver'))} on {markup(result.get('game'))}, "
            f"{markup(result.get('iterations'))} iterations")


def fmt(value: float | None, digits: int = 6) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}g}"


def number_in(low: float, high: float, low_included: bool) -> Callable[[float | None], float | None]:
    """An option callback that takes a finite number in (``low``, ``high``], or [``low``, ``high``] when
    ``low_included``: ``nan`` and ``inf`` would never stop a run, 1e308 overflowed the deadlines."""
    sign = ">=" if low_included else ">"

    def check(value: float | None) -> float | None:
        if value is None:
            return value
        above = value >= low if low_included else value > low
        if not (math.isfinite(value) and above and value <= high):
            raise typer.BadParameter(f"must be a finite number {sign} {low:g} and <= {high:g}, got {value}")
        return value

    return check


positive_seconds = number_in(0.0, MAX_SECONDS, low_included=False)
"""Option callback for a time budget or period in seconds: > 0, at most a year."""
non_negative_seconds = number_in(0.0, MAX_SECONDS, low_included=True)
"""Option callback for a period in seconds where 0 means at every step."""
target_value = number_in(0.0, MAX_TARGET, low_included=True)
"""Option callback for a target exploitability."""


def prepare_game(game: Any) -> None:
    """Build what ``game`` precomputes before a command's work (its family's ``prepare``: hold'em's card
    abstraction), announced when it takes long; a game whose family has no ``prepare`` has nothing to build."""
    from cfrlab.registry import family_of, resolve

    family = family_of(game)
    if family is not None and family.prepare is not None:
        resolve(family.prepare)(game, console)


def prepare_agents(*agents: Any) -> None:
    """``prepare_game`` for each agent that plays a strategy of an abstract game (its ``abstract``), before
    play: a first build of its tables is announced and shown, not taken out of the first move."""
    for agent in agents:
        abstract = getattr(agent, "abstract", None)
        if abstract is not None:
            prepare_game(abstract)


def existing_folder(value: Path | None) -> Path | None:
    """Option callback for files a command writes: their folder must exist (a typo never creates folders), and
    the path must not be a folder, a device or a FIFO (``file_checks.output_target``)."""
    from cfrlab.file_checks import output_target

    if value is None:
        return value
    if value.is_dir():
        raise typer.BadParameter(f"{str(value)!r} is a folder; give a file name inside it")
    try:
        output_target(value, "the file")
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    folder = value.parent
    if not folder.is_dir():
        raise typer.BadParameter(f"folder {str(folder)!r} does not exist; create it first (mkdir -p {folder})")
    return value
