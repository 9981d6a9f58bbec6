"""Agent names, one grammar: ``KIND[:OPTION]...`` read once into an ``AgentSpec`` that the agent kinds consume.

A kind declares its options in order (``cfrlab.registry.AgentKind.takes``), each named as its usage writes it:
``N`` a count (playouts, samples), ``Tms`` a time in milliseconds, ``N|Tms`` either, ``SECONDS`` a time in
seconds, ``cpu|wall`` the clock a time is counted on, ``ist|pst`` the targeting, ``points|match`` the objective,
``PATH`` a file or folder (the rest of the name, colons and all), and any other ``a|b`` a word of that set. Each
option may be left out and is given at most once, in that order: ``oos:0.5:wall:pst:match``, ``search:400``,
``cfr:20ms:match:bp/``, ``neural:oos:0.1:run/``, ``policy:leduc.npz``. A budget beyond ``cfrlab.agents.limits``
is refused. A command's flags set fields of the spec (``AgentSpec.filled``); the name an agent shows is the
spec written back (``AgentSpec.name``).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cfrlab.agents.limits import MAX_PLAYOUTS, MAX_SECONDS_PER_MOVE

if TYPE_CHECKING:
    from cfrlab.registry import AgentKind

TOKENS = {"N": r"\d+", "Tms": r"\d+(\.\d*)?ms", "N|Tms": r"\d+(\.\d*)?ms|\d+",
          "SECONDS": r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?"}
"""The budget options and the tokens each reads."""
NUMBERISH = re.compile(r"[-+]?(\d+\.?\d*|\.\d+|nan|inf|infinity)([eE][-+]?\d+)?(ms)?", re.IGNORECASE)
"""A first token that is meant as a budget but none the kind reads (``cfr:-1``, ``cfr:nan``, ``cfr:1e308``): refused
as a budget, never taken for a path."""
WORDS = {"cpu|wall": "clock", "ist|pst": "targeting", "points|match": "objective"}
"""The word options with a field of their own; any other ``a|b`` option is one of the spec's ``words``."""
SAYS = {"N": "N (a positive number of playouts)", "Tms": "Tms (a positive time in milliseconds such as 20ms)",
        "N|Tms": "N or Tms (a positive number of playouts, or of milliseconds such as 20ms)",
        "SECONDS": "SECONDS (a positive number of seconds per move)", "PATH": "PATH (a file or folder)",
        "cpu|wall": "cpu or wall (the clock a time is counted on; default cpu)",
        "ist|pst": "ist or pst (targeting the information set or the public state; default ist)",
        "points|match": "points or match (what it maximises: the points or the match-win probability)"}
"""How a refusal describes an option."""
ORDER = {"N": "a positive number of playouts", "Tms": "a positive time such as 20ms",
         "N|Tms": "a positive number of playouts or a time such as 20ms", "SECONDS": "the seconds"}
"""How the refusal of a name out of order calls a budget."""
WHAT = {"count": "playouts", "seconds": "seconds per move", "clock": "clock", "targeting": "targeting",
        "objective": "objective", "path": "file"}
"""How a refusal names a field."""


@dataclass(frozen=True)
class AgentSpec:
    """An agent's name, read: its kind and the options it gives (None: left to the kind's default).

    The budget is a ``count`` or a time (``seconds``, counted on ``clock``: cpu or wall); ``objective`` (points
    or match), ``targeting`` (ist or pst), ``path`` (a file or folder) and ``words`` (a kind's own words)."""

    kind: str
    count: int | None = None
    seconds: float | None = None
    clock: str | None = None
    targeting: str | None = None
    objective: str | None = None
    path: str | None = None
    words: tuple[str, ...] = ()
    takes: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """The kind's options in order (how the spec is written back)."""
    fills: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """The fields a command's options may fill (the kind's ``AgentKind.fills``)."""

    @property
    def name(self) -> str:
        """The spec written as a name: ``search:400:match``."""
        words = iter(self.words)
        tokens = [_token(self, option, words) for option in self.takes]
        return ":".join([self.kind, *(t for t in tokens if t is not None)])

    def __str__(self) -> str:
        return self.name

    @property
    def usage(self) -> str:
        """How the kind is written: ``search[:N|:Tms][:points|match]``."""
        return usage(self.kind, self.takes)

    def filled(self, **values: Any) -> AgentSpec:
        """The spec with ``values`` (field -> value) set where the name leaves the field out, checked as a name is;
        a count or time fills the budget only where the name gives neither."""
        given = {}
        for key, value in values.items():
            if value is None or getattr(self, key) is not None:
                continue
            if key in ("count", "seconds") and (self.count is not None or self.seconds is not None):
                continue
            given[key] = value
        return check(dataclasses.replace(self, **given)) if given else self


def usage(kind: str, takes: tuple[str, ...], required: tuple[str, ...] = ()) -> str:
    """``kind`` with its options: ``oos[:SECONDS][:cpu|wall]``, ``policy:PATH`` (a required one unbracketed)."""
    return kind + "".join(f":{o}" if o in required else f"[:{o.replace('|Tms', '|:Tms')}]" for o in takes)


def _token(spec: AgentSpec, option: str, words: Any) -> str | None:
    if option in TOKENS:
        if spec.count is not None:
            return str(spec.count)
        if spec.seconds is None:
            return None
        return f"{spec.seconds:.15g}" if option == "SECONDS" else f"{spec.seconds * 1000:.15g}ms"
    if option in WORDS:
        return getattr(spec, WORDS[option])
    if option == "PATH":
        return spec.path
    return next(words, None)


def read(name: str, kind: str, entry: AgentKind) -> AgentSpec:
    """``name`` (of ``kind``, declared by ``entry``) as a spec; ``ValueError`` in one line for a name that gives
    an option twice, out of order, out of bounds, or one the kind does not take."""
    takes, required = entry.takes, entry.required
    tokens = name.split(":")[len(kind.split(":")):]
    left = list(takes)
    values: dict[str, Any] = {"words": ()}
    for at, token in enumerate(tokens):
        match = next((i for i, option in enumerate(left) if _reads(option, token)), None)
        if match is None:
            if at == 0 and any(o in TOKENS for o in left) and NUMBERISH.fullmatch(token):
                raise ValueError(_budget_refusal(name, kind, takes))  # a budget out of bounds, not a folder "-1"
            if "PATH" in left and token:
                values["path"] = ":".join(tokens[at:])
                left = []
                break
            if "PATH" in left:
                raise ValueError(f"{usage(kind, takes)} needs a path after {':'.join([kind, *tokens[:at]]) + ':'!r}, "
                                 f"got {name!r}")
            raise ValueError(_refusal(name, kind, takes, budget_open=at == 0 and any(o in TOKENS for o in left)))
        _set(values, left[match], token)
        del left[:match + 1]
    missing = [o for o in required if o in left or (o == "PATH" and "path" not in values)]
    if missing:
        raise ValueError(f"unknown agent {name!r}; {usage(kind, takes, required)} names a "
                         f"{'strategy file' if missing == ['PATH'] else ' and '.join(missing)}")
    return check(AgentSpec(kind, takes=takes, fills=entry.fills, **values))


def _reads(option: str, token: str) -> bool:
    if option in TOKENS:
        return re.fullmatch(TOKENS[option], token) is not None
    return option != "PATH" and token in option.split("|")


def _set(values: dict[str, Any], option: str, token: str) -> None:
    if option in TOKENS:
        if token.endswith("ms"):
            values["seconds"] = float(token[:-2]) / 1000.0
        elif option == "SECONDS":
            values["seconds"] = float(token)
        else:
            values["count"] = int(token)
    elif option in WORDS:
        values[WORDS[option]] = token
    else:
        values["words"] = (*values["words"], token)


def check(spec: AgentSpec) -> AgentSpec:
    """``spec`` when its budget and words are within what its kind takes; ``ValueError`` in one line if not."""
    budget = next((o for o in spec.takes if o in TOKENS), None)
    count_ok = spec.count is None or (budget in ("N", "N|Tms") and 1 <= spec.count <= MAX_PLAYOUTS)
    time_ok = spec.seconds is None or (budget in ("Tms", "N|Tms", "SECONDS") and math.isfinite(spec.seconds)
                                       and 0.0 < spec.seconds <= MAX_SECONDS_PER_MOVE)
    if not (count_ok and time_ok):
        raise ValueError(_budget_refusal(spec.name, spec.kind, spec.takes))
    for option, key in WORDS.items():
        value = getattr(spec, key)
        if value is not None and value not in option.split("|"):
            raise ValueError(f"{spec.usage}: the {WHAT[key]} is {' or '.join(option.split('|'))}, got {value!r}")
    return spec


def _budget_refusal(name: str, kind: str, takes: tuple[str, ...]) -> str:
    form = usage(kind, takes)
    if "SECONDS" in takes:
        return (f"{form} needs a positive number of seconds per move ({kind}:SECONDS), at most "
                f"{MAX_SECONDS_PER_MOVE:g}, got {name!r}")
    count = f"a positive number of playouts per action (at most {MAX_PLAYOUTS:,})"
    if "N" in takes:
        return f"{form} needs {count}, got {name!r}"
    if "Tms" in takes:
        return f"{form} needs a positive time per decision of at most {MAX_SECONDS_PER_MOVE * 1000:.0f}ms, got {name!r}"
    return (f"{form} needs a positive count or time per decision: a positive number of playouts per action (at "
            f"most {MAX_PLAYOUTS:,}) or T milliseconds such as 20ms (a positive time per decision of at most "
            f"{MAX_SECONDS_PER_MOVE * 1000:.0f}ms), got {name!r}")


def _refusal(name: str, kind: str, takes: tuple[str, ...], budget_open: bool) -> str:
    if not takes:
        return f"unknown agent {name!r}; {kind} takes no options"
    if budget_open:
        return _budget_refusal(name, kind, takes)
    said = [f"{ORDER[o]} ({kind}:{o})" if o in ORDER else "a PATH" if o == "PATH" else " or ".join(o.split("|"))
            for o in takes]
    return (f"{usage(kind, takes)} takes {', then '.join(said)} (each may be left out), each at most once and in "
            f"that order; got {name!r}")
