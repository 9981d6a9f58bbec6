"""Entry point: import the command modules (each registers on ``app``) and run."""

from __future__ import annotations

import importlib
import sys

from cfrlab.cli.app import app

# Each module adds its commands to ``app`` at import time; heavy imports stay inside the commands.
COMMAND_MODULES: tuple[str, ...] = (
    "play",
    "arena",
    "solve",
    "evaluate",
    "serve",
    "experiment",
)


def main(argv: list[str] | None = None) -> int:
    for name in COMMAND_MODULES:
        importlib.import_module(f"cfrlab.cli.{name}")
    try:
        app(args=argv, prog_name="cfrlab", standalone_mode=False)
    except SystemExit as exc:  # typer raises on --help
        return int(exc.code or 0)
    except Exception as exc:  # noqa: BLE001  - one clear line, never a traceback, for user errors
        from click.exceptions import ClickException

        if isinstance(exc, ClickException):
            exc.show()
            return exc.exit_code
        if isinstance(exc, (ValueError, FileNotFoundError, KeyError, OSError)):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
