""""Did you mean": the known name nearest a mistyped one, for the one-line errors of the CLI."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The known name ``name`` most likely meant, or None when none is close (``difflib``'s ratio below 0.6).

    Case and ``-``/``_`` are ignored first (``CFR+`` -> ``cfr+``, ``max_raises`` -> ``max-raises``); otherwise
    the highest ratio wins (``cfr++`` -> ``cfr+``, ``iteration`` -> ``iterations``)."""
    choices = list(known)
    keys = {_key(choice): choice for choice in choices}
    if _key(name) in keys:
        return keys[_key(name)]
    close = difflib.get_close_matches(_key(name), list(keys), n=1)
    return keys[close[0]] if close else None


def _key(name: str) -> str:
    return name.lower().replace("_", "-")
