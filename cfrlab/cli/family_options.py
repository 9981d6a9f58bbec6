"""The options game families add to the generic commands (``cfrlab.registry.CommandOption``).

``install`` runs in the application's callback, after ``--game-module`` imports and before the command reads its
arguments: each registered family's options become options of the commands they name, so ``-h`` lists them.
Their values are kept apart from the command's own (``ctx.meta``); ``given`` hands a command those that were
given, each checked against the family of the game in play: an option of another family's games is one line,
exit 2. ``agent_fields``, ``load_with_options`` and ``family_keywords`` route them where they go (``sets``).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cfrlab.registry import CommandOption, families, family_of, resolve

if TYPE_CHECKING:
    from cfrlab.game import Game

META = "cfrlab.family_options"
"""Where the values of the family options are kept in the command's context."""
TYPES: dict[str, Any] = {"text": str | None, "int": int | None, "float": float | None, "path": Path | None,
                         "switch": bool}
Given = dict[str, tuple[CommandOption, Any]]
"""The family options given to a command: name -> (option, value)."""


def declared(command: str) -> dict[str, list[tuple[str, CommandOption]]]:
    """The options of ``command`` that registered families declare: name -> [(family title, option)]."""
    out: dict[str, list[tuple[str, CommandOption]]] = {}
    for family in families():
        for option in family.options:
            if command in option.commands:
                out.setdefault(option.key, []).append((family.title or family.name, option))
    return out


def install(ctx: typer.Context) -> None:
    """Add the families' options to each command of ``ctx``'s group that does not have them yet."""
    install_on(ctx.command)


def install_on(group: Any) -> None:
    """Add the families' options to each command of ``group`` (a click group) that does not have them yet."""
    for name, command in getattr(group, "commands", {}).items():
        have = {param.name for param in command.params}
        wanted = {key: owners for key, owners in declared(name).items() if key not in have}
        command.params.extend(_click_params(wanted))


def _click_params(wanted: dict[str, list[tuple[str, CommandOption]]]) -> list[Any]:
    """Typer's own options for ``wanted`` (built from a signature, as typer builds a command's), their values kept
    in ``ctx.meta`` rather than passed to the command."""
    from typer.main import get_command_from_info
    from typer.models import CommandInfo

    parameters = []
    for key, owners in wanted.items():
        option = owners[0][1]
        text = option.help if len(owners) == 1 else " ".join(f"{title}: {o.help}" for title, o in owners)
        default = typer.Option(False if option.type == "switch" else None, option.flag, help=text,
                               min=option.low, max=option.high)
        parameters.append(inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=default,
                                            annotation=TYPES[option.type]))

    def holder(**values: Any) -> None:
        """Carries the options' signature."""

    holder.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    params = get_command_from_info(CommandInfo(callback=holder), pretty_exceptions_short=False,
                                   rich_markup_mode=None).params
    for param in params:
        param.expose_value = False
        param.callback = _keep
    return params


def _keep(ctx: Any, param: Any, value: Any) -> Any:
    ctx.meta.setdefault(META, {})[param.name] = value
    return value


def given(ctx: typer.Context | None, command: str, game: Any) -> Given:
    """The family options given to ``command``, each one that ``game``'s family (a game, a name or a spec)
    declares; ``ValueError`` in one line for an option of other families' games."""
    values = {k: v for k, v in (ctx.meta.get(META, {}) if ctx is not None else {}).items()
              if v is not None and v is not False}
    family = family_of(game) if game is not None else None
    own = {o.key: o for o in (family.options if family is not None else ()) if command in o.commands}
    for key in values:
        if key not in own:
            owners = declared(command).get(key, [])
            flag = owners[0][1].flag if owners else f"--{key}"
            titles = " and ".join(title for title, _ in owners)
            raise ValueError(f"{flag} is an option of {titles} games, not of {getattr(game, 'spec', lambda: game)()}")
    return {key: (own[key], value) for key, value in values.items()}


def given_flags(ctx: typer.Context | None, command: str) -> list[str]:
    """The flags of the family options given to ``command``, whatever the game (for a refusal that names them)."""
    values = ctx.meta.get(META, {}) if ctx is not None else {}
    flags = {key: owners[0][1].flag for key, owners in declared(command).items()}
    return [flags.get(k, f"--{k}") for k, v in values.items() if v is not None and v is not False]


def agent_fields(options: Given) -> dict[str, tuple[str, Any]]:
    """The options that set agent spec fields: field -> (flag, value), for ``cfrlab.agents.names.fill_agents``."""
    return {o.sets.removeprefix("agent."): (o.flag, v) for o, v in options.values() if o.sets.startswith("agent.")}


def family_keywords(options: Given) -> dict[str, Any]:
    """The options for the family's own code for the command (``sets`` empty), by name."""
    return {key: v for key, (o, v) in options.items() if not o.sets}


def load_with_options(spec: str, options: Given, **params: Any) -> Game:
    """The game of ``spec`` with ``params`` and the options that set its parameters or replace it (``game.PARAM``,
    ``params``, ``game``)."""
    from cfrlab.game_spec import parse_spec
    from cfrlab.registry import load_game

    name, parsed = parse_spec(spec)
    parsed.update(params)
    for option, value in options.values():
        if option.sets.startswith("game."):
            parsed[option.sets.removeprefix("game.")] = value
        elif option.sets == "params":
            parsed = resolve(option.apply)(name, parsed, value)
    game = load_game(name, **parsed)
    for option, value in options.values():
        if option.sets == "game":
            game = resolve(option.apply)(game, value)
    return game
