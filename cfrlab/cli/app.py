"""The Typer application that every command module adds its commands to."""

import typer

app = typer.Typer(
    name="cfrlab",
    help="Solve, evaluate and play imperfect-information games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
