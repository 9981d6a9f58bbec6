"""The Typer application that every command module adds its commands to, and the options before the command."""

from __future__ import annotations

import logging
import sys

import typer

app = typer.Typer(
    name="cfrlab",
    help="Solve, evaluate and play imperfect-information games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,  # plain help: typer's rich help imports a Markdown parser (0.3 s before any output)
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("cfrlab")
        except PackageNotFoundError:  # running from a source tree that is not installed
            from cfrlab import __version__ as text
        typer.echo(f"cfrlab {text}")
        raise typer.Exit()


@app.callback()
def options(
    ctx: typer.Context,
    game_module: list[str] | None = typer.Option(
        None, "--game-module", "-g", envvar="CFRLAB_GAME_MODULES", metavar="MODULE",
        help="Import this module (a name, or a path to a .py file) before the command, so the games it registers "
             "with cfrlab.register_game can be used: cfrlab -g my_games solve rps. Repeatable."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print cfrlab's version and exit."),
) -> None:
    """Solve, evaluate and play imperfect-information games."""
    _show_notes()
    if game_module:
        from cfrlab.registry import import_game_module

        for name in game_module:
            import_game_module(name)
    from cfrlab.cli.family_options import install

    install(ctx)  # the game families' options of the generic commands, before the command reads its arguments


class _StderrNotes(logging.Handler):
    """Prints ``note: MESSAGE`` to the current ``sys.stderr`` (which tests replace), not the one at creation."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"note: {record.getMessage()}", file=sys.stderr, flush=True)


def _show_notes() -> None:
    """Show what the library announces on its loggers (a large tree being built) as notes on stderr, once."""
    logger = logging.getLogger("cfrlab.tree")
    if not any(isinstance(h, _StderrNotes) for h in logger.handlers):
        logger.addHandler(_StderrNotes(logging.INFO))
        logger.setLevel(logging.INFO)
