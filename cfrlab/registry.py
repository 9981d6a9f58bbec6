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
    "holdem": "cfrlab.games.holdem.game:LimitHoldem",
    "holdem_ehs2": "cfrlab.games.holdem.abstract_game:AbstractHoldem",
}
PREFIXES: dict[str, str] = {
    "openspiel": "cfrlab.games.openspiel:OpenSpielGame",  # called as OpenSpielGame(NAME, **params)
}


def register_game(name: str, factory: Factory) -> None:
    """Register ``factory`` (a callable or a lazy ``"module:attr"``) under ``name``."""
    _REGISTRY[name] = factory


def list_games() -> list[str]:
    """Names of all registered games."""
    return sorted(_REGISTRY)


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
    if name not in _REGISTRY:
        raise GameDefinitionError(
            f"unknown game {name!r}; known games: {', '.join(list_games())} (or openspiel:NAME)"
        )
    return _resolve(_REGISTRY[name])(**parsed)
