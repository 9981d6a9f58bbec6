"""Console, JSON output and small helpers shared by the commands."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import typer

from rich.console import Console

console = Console(stderr=True)
"""Human output (progress, tables) goes to stderr so ``--json`` stdout stays machine-readable."""
stdout = Console()


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=float) + "\n")


def fmt(value: float | None, digits: int = 6) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}g}"


def positive_number(value: float | None) -> float | None:
    """Option callback: a finite number > 0 (``nan`` and ``inf`` would never stop a run)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"must be a finite number > 0, got {value}")
    return value


def non_negative_number(value: float | None) -> float | None:
    """Option callback: a finite number >= 0."""
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise typer.BadParameter(f"must be a finite number >= 0, got {value}")
    return value


def existing_folder(value: Path | None) -> Path | None:
    """Option callback for files a command writes: their folder must exist (a typo never creates folders)."""
    if value is None:
        return value
    if value.is_dir():
        raise typer.BadParameter(f"{str(value)!r} is a folder; give a file name inside it")
    folder = value.parent
    if not folder.is_dir():
        raise typer.BadParameter(f"folder {str(folder)!r} does not exist; create it first (mkdir -p {folder})")
    return value
