"""Console, JSON output and small helpers shared by the commands."""

from __future__ import annotations

import json
import sys
from typing import Any

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
