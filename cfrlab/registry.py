"""Games by name: ``load_game("kuhn(players=3)")`` or ``load_game("leduc", ranks=4)``.

Built-in games sit in a static table of lazy ``"module:attr"`` strings, so
listing games imports nothing heavy and no game module imports this one.
``openspiel:NAME(...)`` wraps any pyspiel game through the same table
(``PREFIXES``). ``register_game`` adds a game at run time.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from cfrlab.game import Game, GameDefinitionError, parse_spec

Factory = str | Callable[..., Game]

_REGISTRY: dict[str, Factory] = {
    "kuhn": "cfrlab.games.kuhn:KuhnPoker",
    "leduc": "cfrlab.games.leduc:LeducHoldem",
    "leduc_suitless": "cfrlab.games.leduc:SuitlessLeduc",
    "random_game": "cfrlab.games.random_game:RandomGame",
    "koikoi": "cfrlab.games.koikoi.game:KoiKoiGame",
    "koikoi_mini": "cfrlab.games.koikoi.game:KoiKoiMini",
    "koikoi_mini_tsukifuda": "cfrlab.games.koikoi.game:KoiKoiMiniTsukifuda",
    "holdem": "cfrlab.games.holdem.game:LimitHoldem",
    "holdem_suitiso": "cfrlab.games.holdem.game:SuitQuotientHoldem",
    "holdem_ehs2": "cfrlab.games.holdem.abstract_game:AbstractHoldem",
}
PREFIXES: dict[str, str] = {
    "openspiel": "cfrlab.games.openspiel:OpenSpielGame",  # called as OpenSpielGame(NAME, **params)
}


def register_game(name: str, factory: Factory) -> None:
    """Register ``factory`` (a callable or a lazy ``"module:attr"``) under ``name``."""
    _REGISTRY[name] = factory


ENTRY_POINT_GROUP = "cfrlab.games"
"""Packages register games under this entry-point group: ``rps = "my_games:RockPaperScissors"``."""
_entry_points_loaded = False


def list_games() -> list[str]:
    """Names of all registered games: the built-ins, entry points of installed packages, imported modules'."""
    global _entry_points_loaded
    if not _entry_points_loaded:
        _entry_points_loaded = True
        from importlib.metadata import entry_points

        for ep in entry_points(group=ENTRY_POINT_GROUP):
            _REGISTRY.setdefault(ep.name, ep.value)
    return sorted(_REGISTRY)


def import_game_module(name: str) -> None:
    """Import a module that registers games: a dotted name (looked up from the current folder too) or a .py path."""
    import importlib.util
    import os
    import sys
    from pathlib import Path

    path = Path(name)
    try:
        if name.endswith(".py"):
            if not path.is_file():
                raise GameDefinitionError(f"game module file {name!r} does not exist")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
            return
        if os.getcwd() not in sys.path:
            sys.path.append(os.getcwd())
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise GameDefinitionError(f"cannot import game module {name!r}: {exc}") from None
    except (SystemExit, KeyboardInterrupt) as exc:  # else the command ended with exit 0 and no word
        raise GameDefinitionError(f"game module {name!r} stopped while it was imported ({type(exc).__name__}"
                                  f"{f': {exc}' if str(exc) else ''}); a game module must only define and register "
                                  "games") from None


def game_class(name: str) -> Callable[..., Game]:
    """The factory registered as ``name`` (imported on first use); ``GameDefinitionError`` if unknown."""
    if name not in list_games():
        raise GameDefinitionError(
            f"unknown game {name!r}; known games: {', '.join(list_games())} (or openspiel:NAME); "
            "a game of your own: --game-module MODULE (see README, 'Your own game')"
        )
    return _resolve(_REGISTRY[name])


def describe_games() -> list[dict[str, Any]]:
    """Every registered game: name, first docstring paragraph, and its parameters with defaults and help."""
    rows = []
    for name in list_games():
        factory = game_class(name)
        defaults = dict(getattr(factory, "default_params", {}) or {})
        helps = dict(getattr(factory, "parameter_help", {}) or {})
        params = [{"name": key, "default": _format_default(defaults.get(key)), "help": helps.get(key, "")}
                  for key in list(defaults) + [k for k in helps if k not in defaults]]
        doc = (factory.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ").replace("``", "")
        rows.append({"name": name, "description": doc, "parameters": params})
    return rows


def _format_default(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(str(v) for v in value) + "]"
    return value


def _resolve(factory: Factory) -> Callable[..., Game]:
    if isinstance(factory, str):
        module, attr = factory.split(":")
        return getattr(importlib.import_module(module), attr)
    return factory


def load_game(spec: str, **params: Any) -> Game:
    """Build a game from its spec string, with ``params`` overriding those in the string."""
    name, parsed = parse_spec(spec)
    parsed.update(params)
    prefix, _, rest = name.partition(":")
    if rest and prefix in PREFIXES:
        return _resolve(PREFIXES[prefix])(rest, **parsed)
    return game_class(name)(**parsed)
