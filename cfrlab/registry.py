"""Games by name: ``load_game("kuhn(players=3)")`` or ``load_game("leduc", ranks=4)``.

Factories are registered as lazy ``"module:attr"`` strings, so listing games
imports nothing heavy. ``openspiel:NAME(...)`` wraps any pyspiel game.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Callable

from cfrlab.game import Game, GameDefinitionError

_REGISTRY: dict[str, str | Callable[..., Game]] = {}
_SPEC = re.compile(r"^\s*([A-Za-z_][\w\-]*(?::[\w\-]+)?)\s*(?:\((.*)\))?\s*$")


def register_game(name: str, factory: str | Callable[..., Game]) -> None:
    """Register ``factory`` (a callable or a lazy ``"module:attr"``) under ``name``."""
    _REGISTRY[name] = factory


def list_games() -> list[str]:
    """Names of all registered games."""
    import cfrlab.games  # noqa: F401  (registers the built-ins)

    return sorted(_REGISTRY)


def parse_value(text: str) -> Any:
    """Parse a parameter value: int, float, bool, [list] or bare string."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [parse_value(t) for t in _split_top(inner)] if inner else []
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text.strip("'\"")


def _split_top(text: str) -> list[str]:
    """Split on commas not inside brackets or parentheses."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"kuhn(players=3)"`` -> ``("kuhn", {"players": 3})``."""
    match = _SPEC.match(spec)
    if not match:
        raise GameDefinitionError(f"cannot parse game spec {spec!r}; expected NAME or NAME(key=value,...)")
    name, args = match.group(1), match.group(2)
    params: dict[str, Any] = {}
    for part in _split_top(args or ""):
        if "=" not in part:
            raise GameDefinitionError(f"game parameter {part.strip()!r} in {spec!r} must be key=value")
        key, value = part.split("=", 1)
        params[key.strip()] = parse_value(value)
    return name, params


def load_game(spec: str, **params: Any) -> Game:
    """Build a game from its spec string, with ``params`` overriding those in the string."""
    name, parsed = parse_spec(spec)
    parsed.update(params)
    if name.startswith("openspiel:"):
        from cfrlab.games.openspiel import OpenSpielGame

        return OpenSpielGame(name.split(":", 1)[1], **parsed)
    list_games()
    if name not in _REGISTRY:
        raise GameDefinitionError(
            f"unknown game {name!r}; known games: {', '.join(list_games())} (or openspiel:NAME)"
        )
    factory = _REGISTRY[name]
    if isinstance(factory, str):
        module, attr = factory.split(":")
        factory = getattr(importlib.import_module(module), attr)
    return factory(**parsed)
