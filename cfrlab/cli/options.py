"""Turn free ``--name value`` flags into solver-config fields and game parameters.

Solver flags are generated from the solver's ``Config`` dataclass: ``--k 3``
sets field ``k``, ``--regret-matching-plus`` (or ``--no-regret-matching-plus``)
a boolean. Flags that are not config fields are game parameters
(``cfrlab solve leduc --ranks 4``); one the game refuses too is reported as a
mistyped solver option (``unknown_flags_error``), with the closest field named.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from typing import Any

from cfrlab.game_spec import parse_value


def parse_extra_flags(args: list[str]) -> dict[str, Any]:
    """``["--k", "3", "--plus", "--ranks=4"]`` -> ``{"k": 3, "plus": True, "ranks": 4}``."""
    out: dict[str, Any] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            raise ValueError(f"unexpected argument {arg!r}; options look like --name value")
        name = arg[2:]
        if name.split("=", 1)[0].removeprefix("no-").replace("-", "_") in out:
            raise ValueError(f"option {arg.split('=', 1)[0]} is given twice; give it once")
        if "=" in name:
            name, value = name.split("=", 1)
            out[name.replace("-", "_")] = parse_value(value)
            i += 1
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            out[name.replace("-", "_")] = parse_value(args[i + 1])
            i += 2
        elif name.startswith("no-"):
            out[name[3:].replace("-", "_")] = False
            i += 1
        else:
            out[name.replace("-", "_")] = True
            i += 1
    return out


def split_config_flags(config_cls: type, flags: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split flags into (config fields, game parameters), casting config values to the field types."""
    fields = {f.name: f for f in dataclasses.fields(config_cls)}
    hints = typing.get_type_hints(config_cls)
    config: dict[str, Any] = {}
    game: dict[str, Any] = {}
    for name, value in flags.items():
        if name in fields:
            config[name] = _cast(name, value, hints.get(name))
        else:
            game[name] = value
    return config, game


def unknown_flags_error(config_cls: type, algorithm: str, flags: dict[str, Any], game_error: Exception) -> ValueError:
    """The one-line error for flags that are neither ``algorithm``'s options nor parameters of the game, each with
    the nearest of the algorithm's options and the command's own (``--iteration``: ``--iterations``)."""
    from cfrlab.suggest import nearest

    names = [f.name for f in dataclasses.fields(config_cls)] + _command_options()
    parts = []
    for name in flags:
        close = nearest(name, names)
        hint = f" (did you mean --{close.replace('_', '-')}?)" if close else ""
        parts.append(f"--{name.replace('_', '-')}{hint}")
    return ValueError(
        f"{', '.join(parts)}: not an option of {algorithm} (cfrlab solve GAME --algo {algorithm} --list-options) "
        f"nor a game parameter ({game_error})"
    )


def _command_options() -> list[str]:
    """The long options of the command being run (``iterations`` for ``--iterations``), none outside a command."""
    try:
        from typer._click.globals import get_current_context  # typer 0.2x bundles its own click
    except ImportError:  # older typer runs on click itself
        from click import get_current_context  # type: ignore[no-redef]
    ctx = get_current_context(silent=True)
    params = ctx.command.params if ctx is not None else []
    return [opt[2:] for param in params for opt in param.opts if opt.startswith("--")]


CONFIG_LIMIT = 1e9
"""Largest value of a solver option (a count, a size, a rate, a coefficient): 1e308 rows of memory or 1e30
traversals are no run."""
SIGNED = frozenset({"dcfr_beta"})
"""Solver options that may be negative (DCFR's beta discounts negative regrets; its own check bounds it); every
other numeric option is >= 0."""
WIDTHS = frozenset({"hidden_size", "embedding_size", "hidden_sizes", "hidden", "advantage_hidden",
                    "strategy_hidden"})
"""Solver options that are widths of a network's layers (each entry of a list of them), at most ``MAX_WIDTH``."""
MAX_ENTRIES = 16
"""Most entries of a list option (``--hidden-sizes 64,64``: layers)."""
POSITIVE = frozenset({"learning_rate", "rl_lr", "sl_lr", "max_grad_norm", "initial_alpha", "temperature",
                      "advantage_steps", "strategy_steps"}) | WIDTHS
"""Solver options where 0 gives no run: no learning step, no network, a zero-width softmax or gradient clip."""
FRACTIONS = frozenset({"epsilon_start", "epsilon_end", "target_entropy_ratio"})
"""Solver options that are probabilities or ratios, in [0, 1]."""


def check_number(name: str, value: float, entry: bool = False) -> None:
    """``ValueError`` in one line unless ``value`` of solver option ``name`` is finite and in its range
    (``SIGNED``, ``POSITIVE``, ``FRACTIONS``, ``WIDTHS``, ``CONFIG_LIMIT``; seeds in 32 bits)."""
    from cfrlab.cli.common import MAX_SEED, MAX_WIDTH

    high = (MAX_SEED if name == "seed" else 1.0 if name in FRACTIONS else MAX_WIDTH if name in WIDTHS
            else CONFIG_LIMIT)
    low = -CONFIG_LIMIT if name in SIGNED else 0.0
    fine = math.isfinite(value) and low <= value <= high and (value > 0 or name not in POSITIVE)
    if not fine:
        sign = ">" if name in POSITIVE else ">="
        what = f"each value of option --{name.replace('_', '-')}" if entry else f"option --{name.replace('_', '-')}"
        raise ValueError(f"{what} must be a finite number {sign} {low:g} and <= {high:g}, got {value}")


def _cast(name: str, value: Any, hint: Any) -> Any:
    if hint is None:
        return value
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (tuple, list):
        return _cast_sequence(name, value, hint, args)
    if type(None) in args and (value is None or value == "none"):
        return None
    targets = [a for a in args if a is not type(None)] or [hint]
    for target in targets:
        if target is bool:
            if isinstance(value, bool):
                return value
            continue
        if target in (int, float, str):
            try:
                cast = target(value)
            except (TypeError, ValueError, OverflowError):
                continue
            if target is not str:
                check_number(name, math.inf if isinstance(cast, int) and abs(cast) > 1e300 else float(cast))
            return cast
        return value
    raise ValueError(f"option --{name.replace('_', '-')}: cannot use {value!r} as {hint}")


def _cast_sequence(name: str, value: Any, hint: Any, args: tuple[Any, ...]) -> Any:
    """``32,32``, ``32``, ``[32, 32]`` or ``(32, 32)`` -> ``(32, 32)`` for a ``tuple[int, ...]`` field."""
    items = value if isinstance(value, (list, tuple)) else str(value).strip("[]() ").split(",")
    item_type = args[0] if args and args[0] in (int, float, str) else str
    try:
        cast = tuple(item_type(x.strip() if isinstance(x, str) else x) for x in items if str(x).strip())
    except (TypeError, ValueError):
        raise ValueError(f"option --{name.replace('_', '-')}: cannot read {value!r}; give comma-separated "
                         f"{item_type.__name__} values such as 32,32") from None
    if not cast:
        raise ValueError(f"option --{name.replace('_', '-')}: give at least one value, such as 32,32")
    if len(cast) > MAX_ENTRIES:
        raise ValueError(f"option --{name.replace('_', '-')} takes at most {MAX_ENTRIES} values, got {len(cast)}")
    for entry in cast if item_type is not str else ():
        number = typing.cast(float, entry)
        check_number(name, number if abs(number) <= 1e300 else math.inf, entry=True)
    return cast if typing.get_origin(hint) is tuple else list(cast)


def show_default(value: Any) -> str:
    """A default as it is typed on the command line: ``(64, 64)`` -> ``64,64``."""
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return repr(value)


def describe_config(config_cls: type) -> list[tuple[str, str, str]]:
    """(flag, default, doc) of every field, docs read from the attribute docstrings in the source."""
    import ast
    import inspect
    import textwrap

    docs: dict[str, str] = {}
    for klass in reversed(config_cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body  # type: ignore[attr-defined]
        for node, nxt in zip(body, body[1:]):
            if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
                docs[node.target.id] = str(nxt.value.value).strip()  # type: ignore[union-attr]
    return [
        (f"--{f.name.replace('_', '-')}", show_default(f.default), docs.get(f.name, ""))
        for f in dataclasses.fields(config_cls)
    ]


def option_rows(cls: Any) -> list[tuple[str, str, str, str]]:
    """(flag, default, where the default comes from, meaning) of each option of the solver class ``cls``, as
    ``--list-options`` and the documentation's algorithm reference show them."""
    defaults = cls.defaults
    rows = []
    for flag, default, doc in describe_config(cls.Config):
        name = flag[2:].replace("-", "_")
        rows.append((flag, show_default(defaults[name]) if name in defaults else default,
                     cite(cls.default_source(name)), cite(doc)))
    return rows


def preset_lines(cls: Any) -> list[str]:
    """``--preset NAME (source): --option value ...`` for each preset of the solver class ``cls``."""
    lines = []
    for name, options in cls.presets.items():
        source = cite(cls.preset_sources.get(name, ""))
        values = " ".join(f"--{k.replace('_', '-')} {show_default(v)}" for k, v in options.items())
        lines.append(f"--preset {name}" + (f" ({source})" if source else "") + f": {values}")
    return lines


def summary(doc: str, width: int = 76, lines: int = 3) -> str:
    """A docstring's first paragraph on one line, as many of its sentences as fill ``lines`` lines of ``width``
    characters (the first sentence cut at a word, with an ellipsis, when it alone is longer): an option's meaning
    in a table cell or a help line."""
    import re
    import textwrap

    def fits(text: str) -> bool:
        return len(textwrap.wrap(text, width)) <= lines

    text = " ".join(doc.strip().split("\n\n", 1)[0].split())
    if fits(text):
        return text
    kept = ""
    for sentence in re.split(r"(?<=[.;:])\s+(?=[A-Z(])", text):
        if not fits(f"{kept} {sentence}".strip()):
            break
        kept = f"{kept} {sentence}".strip()
    if kept:
        return kept
    words = text.split()
    while words and not fits(" ".join(words) + "\u2026"):
        words.pop()
    return " ".join(words).rstrip(",;:") + "\u2026"


SOURCES = {
    "seed 000": "Takizawa 2020",
    "seed 001": "the poker algorithm notes (2022)",
    "seed 002": "the Kuhn poker CFR post",
    "seed 003": "Zinkevich et al. 2008",
    "seed 004": "Kawamura, Mizukami & Tsuruoka 2017",
}
"""The project's source documents (``docs``' references) by the names people cite them with: authors, year."""


def cite(text: str) -> str:
    """Help text with the source documents named by author and year (``seed 004`` -> ``Kawamura ... 2017``)."""
    for key, name in SOURCES.items():
        text = text.replace(f"{key}'s", f"{name}'s").replace(key, name)
    return text
