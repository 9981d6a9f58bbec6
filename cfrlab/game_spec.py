"""Game specs as users write them: ``kuhn(players=3)``, ``leduc(ranks=4)``, ``game.efg``, ``efg:PATH``.

``parse_spec`` splits a spec into the game's name and its parameters; ``parse_value`` reads one parameter value
(an int, float, bool, bracketed list or bare string), also for ``--name value`` flags. Every malformed spec is a
``GameDefinitionError`` with one line saying what is wrong.
"""

from __future__ import annotations

import re
from typing import Any

from cfrlab.game import GameDefinitionError

_SPEC = re.compile(r"^\s*([A-Za-z_][\w\-]*(?::[\w\-]+)?)\s*(?:\((.*)\))?\s*$")


MAX_SPEC_DEPTH = 8
"""Deepest nesting of brackets in a game spec or parameter value (ours nest 2 deep; 5,000 gave a RecursionError)."""


def parse_value(text: str) -> Any:
    """Parse a parameter value: int, float, bool, [list] or bare string.

    Digits with underscores (``2_0``, which ``int`` reads as 20) stay text, so the game refuses them."""
    text = text.strip()
    if _bracket_depth(text) > MAX_SPEC_DEPTH:
        raise GameDefinitionError(f"parameter value {text[:40]!r}... nests brackets more than {MAX_SPEC_DEPTH} deep")
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [parse_value(t) for t in _split_top(inner)] if inner else []
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float) if "_" not in text else ():
        try:
            return cast(text)
        except ValueError:
            pass
    return text.strip("'\"")


def _bracket_depth(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        depth += (ch in "[(") - (ch in "])")
        deepest = max(deepest, depth)
    return deepest


def _split_top(text: str) -> list[str]:
    """Split on commas not inside brackets or parentheses."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
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


FILE_PREFIXES: tuple[str, ...] = ("efg",)
"""Spec prefixes followed by a file path, taken whole (a path may hold any character): ``efg:games/my game.efg``."""


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"kuhn(players=3)"`` -> ``("kuhn", {"players": 3})``; ``"g.efg"`` -> ``("efg:g.efg", {})``."""
    text = spec.strip()
    if text.partition(":")[0] in FILE_PREFIXES:
        return text, {}
    if text.lower().endswith(".efg"):
        return f"efg:{text}", {}
    match = _SPEC.match(spec)
    if not match:
        raise GameDefinitionError(f"cannot parse game spec {spec!r}; expected NAME or NAME(key=value,...)")
    name, args = match.group(1), match.group(2)
    params: dict[str, Any] = {}
    for part in _split_top(args or ""):
        if "=" not in part:
            raise GameDefinitionError(f"game parameter {part.strip()!r} in {spec!r} must be key=value")
        key, value = part.split("=", 1)
        if key.strip() in params:
            raise GameDefinitionError(f"game parameter {key.strip()!r} is given twice in {spec!r}; give it once")
        params[key.strip()] = parse_value(value)
    return name, params
