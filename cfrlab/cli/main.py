"""Entry point: import the command modules (each registers on ``app``) and run."""

from __future__ import annotations

import importlib
import sys

from cfrlab.cli.app import app
from cfrlab.file_checks import command_files, terminal_safe

# Each module adds its commands to ``app`` at import time; heavy imports stay inside the commands.
COMMAND_MODULES: tuple[str, ...] = (  # the order `cfrlab -h` lists them in: solving, evaluating, playing
    "cfrlab.cli.solve",
    "cfrlab.cli.catalog",
    "cfrlab.cli.evaluate",
    "cfrlab.cli.play",
    "cfrlab.cli.serve",
    "cfrlab.cli.arena",
    "cfrlab.cli.export",
)
LAST_MODULES: tuple[str, ...] = ("cfrlab.cli.experiment",)
"""Listed after the commands game families add (``GameFamily.commands``: Koi-Koi's ``bot`` and ``train``)."""


def command_modules() -> list[str]:
    """Every command module in listing order: the generic ones, each registered family's, then ``LAST_MODULES``."""
    from cfrlab.registry import families

    return [*COMMAND_MODULES, *(m for family in families() for m in family.commands), *LAST_MODULES]


def load_commands() -> None:
    """Import every command module (each registers its commands on ``app``), listed in ``command_modules`` order."""
    modules = command_modules()
    for name in modules:
        importlib.import_module(name)
    _list_in_module_order(modules)


def main(argv: list[str] | None = None) -> int:
    _report_long_reads()
    load_commands()
    try:
        with command_files():  # no output of the command may be one of its inputs (file_checks.output_target)
            code = app(args=argv, prog_name="cfrlab", standalone_mode=False)
    except SystemExit as exc:  # typer raises on --help; a SIGTERM during Ray work (cfrlab.distributed)
        from cfrlab.distributed import signal_exit_code

        return signal_exit_code() or int(exc.code or 0)
    except Exception as exc:  # one clear line, never a traceback, for user errors
        if type(exc).__name__ == "NoArgsIsHelpError":  # `cfrlab` alone: the help, as `cfrlab -h` shows it
            print(exc.format_message(), file=sys.stderr)  # type: ignore[attr-defined]
            return 2
        line = usage_error_line(exc)
        if line is None:
            raise
        print(terminal_safe(line), file=sys.stderr)  # the line may quote a file's text
        return 2
    if code == INTERRUPTED:  # typer's answer to a Ctrl-C no command handled: it returned 130 and said nothing
        print("interrupted (Ctrl-C): stopped at once; what was already written is kept", file=sys.stderr)
        return INTERRUPTED
    return 0


def _report_long_reads() -> None:
    """Say how far the read of a large ``.efg`` file has got (seconds of silence would look like a hang)."""
    from cfrlab import file_checks
    from cfrlab.cli.common import console

    file_checks.progress_hook = lambda line: console.print(line, highlight=False, soft_wrap=True)


INTERRUPTED = 130
"""The exit code of a command stopped by Ctrl-C (128 + SIGINT), as a shell reports it."""


def _list_in_module_order(modules: list[str]) -> None:
    """Sort the registered commands by ``modules``, whatever imported a command module first."""
    rank = {name: i for i, name in enumerate(modules)}
    app.registered_commands.sort(key=lambda info: rank.get(getattr(info.callback, "__module__", ""), len(rank)))


def usage_error_line(exc: BaseException) -> str | None:
    """The one line shown for a user's mistake (``None``: a bug, let its traceback show).

    Typer raises its bundled copy of click's exceptions (``typer.TyperException``), older typer and other
    code plain click's; click is no dependency of cfrlab's, so neither is imported here.
    """
    from cfrlab.extras import missing_extra

    missing = missing_extra(exc)
    if missing is not None:
        return missing
    if _is_usage_error(exc):
        text = exc.format_message().rstrip(".")  # type: ignore[attr-defined]
        given = _rejected_input(exc)
        if given is not None and repr(given) not in text:
            text += f" (got {given!r})"
        ctx = getattr(exc, "ctx", None)
        if ctx is not None:
            text += f"; see '{ctx.command_path} --help'"
        return f"error: {text}"
    lost = _lost_ray_worker(exc)
    if lost is not None:
        return lost
    if isinstance(exc, (ValueError, FileNotFoundError, KeyError, OSError, MemoryError)):
        said = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        return f"error: {said or type(exc).__name__}".replace("\n", " ")
    return None


USAGE_ERRORS = {"typer": "TyperException", "click": "ClickException"}
"""Package -> the base class of its exceptions for a command line mistake (click's, or typer's copy of it)."""


def _is_usage_error(exc: BaseException) -> bool:
    return any(USAGE_ERRORS.get(cls.__module__.partition(".")[0]) == cls.__name__ for cls in type(exc).__mro__)


RAY_WORKER_LOSSES = ("OutOfMemoryError", "WorkerCrashedError", "RayActorError", "NodeDiedError", "ObjectLostError")
"""Ray's errors for a worker, actor or node that died (killed for memory, most often): the machine's limits, not a
bug, so one line instead of Ray's traceback. An exception raised inside a task (``RayTaskError``) is not one."""


def _lost_ray_worker(exc: BaseException) -> str | None:
    """The one line for a Ray worker that died, or None for any other exception."""
    kinds = [cls for cls in type(exc).__mro__ if cls.__module__.startswith("ray.")]
    if not any(cls.__name__ in RAY_WORKER_LOSSES for cls in kinds):
        return None
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    return (f"error: a Ray worker died ({type(exc).__name__}: {first[:300]}); use fewer --workers or a machine with "
            "more memory (a run with a checkpoint continues with --resume)")


def _rejected_input(exc: BaseException) -> object | None:
    """The value a user typed, when typer's pydantic coercion rejected it (its message leaves it out)."""
    cause = exc.__cause__
    errors = getattr(cause, "errors", None)
    if callable(errors):
        try:
            return errors()[0].get("input")
        except (IndexError, TypeError, AttributeError):
            return None
    return None


if __name__ == "__main__":
    sys.exit(main())
