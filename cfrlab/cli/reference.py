"""The reference pages of the documentation site as Markdown, read from the code when the site is built: the
command line (each command's usage, help and options, exactly as ``-h`` gives them, the game families' options
included), the games with their parameters (``cfrlab games``) and the algorithms with their papers, options and
presets (``cfrlab algorithms``, ``--list-options``). Nothing here is written by hand, so the site cannot drift
from the commands."""

from __future__ import annotations

import html
import inspect
import re
from typing import Any

MARKDOWN_SPECIALS = re.compile(r"([\\*_\[\]#|])")


def text(value: str) -> str:
    """Plain text as Markdown shows it: HTML and Markdown's special characters escaped, except inside
    ``backquoted`` spans, which stay code (help texts quote commands that way)."""
    parts = re.split(r"(`[^`\n]+`)", value)
    return "".join(part if i % 2 else MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(part, quote=False))
                   for i, part in enumerate(parts))


def command_group() -> Any:
    """The ``cfrlab`` command group as the command line builds it: every command module's commands, in the
    listing order, with the options the registered game families add."""
    import typer.main

    from cfrlab.cli.app import app
    from cfrlab.cli.family_options import install_on
    from cfrlab.cli.main import load_commands

    load_commands()
    group = typer.main.get_command(app)
    install_on(group)
    return group


def command_contexts() -> list[tuple[str, Any, Any]]:
    """(``cfrlab NAME``, command, its context) for ``cfrlab`` itself and then each command, in listing order."""
    group = command_group()
    root = group.make_context("cfrlab", [], resilient_parsing=True)  # context_settings applied: -h beside --help
    out = [("cfrlab", group, root)]
    for name, command in group.commands.items():
        if not command.hidden:
            out.append((f"cfrlab {name}", command, command.make_context(name, [], parent=root,
                                                                          resilient_parsing=True)))
    return out


def help_rows(command: Any, ctx: Any) -> list[tuple[str, str]]:
    """(flags with their metavar, help) of each argument and option, as the command's ``-h`` lists them."""
    rows = []
    for param in command.get_params(ctx):
        record = None if getattr(param, "hidden", False) else param.get_help_record(ctx)
        if record is not None:
            rows.append((record[0], " ".join(record[1].split())))
    return rows


def help_markdown(help_text: str) -> str:
    """A command's help as Markdown: its paragraphs as text, those marked ``\\b`` (printed unwrapped by ``-h``)
    as preformatted blocks."""
    out = []
    for paragraph in inspect.cleandoc(help_text).split("\n\n"):
        if paragraph.startswith("\b\n"):
            out.append("```text\n" + paragraph[2:] + "\n```")
        else:
            out.append(text(" ".join(paragraph.split())))
    return "\n\n".join(out)


def command_markdown(title: str, command: Any, ctx: Any) -> str:
    """One command's section: its usage line, its help and a list of its arguments and options."""
    usage = command.get_usage(ctx).strip()
    lines = [f"## {title} {{ #{title.replace(' ', '-')} }}", "", "```text", usage, "```", "",
             help_markdown(command.help or ""), ""]
    if isinstance(getattr(command, "commands", None), dict):
        lines += ["Commands: " + ", ".join(f"[`{name}`](#cfrlab-{name})" for name in command.commands), ""]
    for flags, about_option in help_rows(command, ctx):
        lines.append(f"- `{flags}`: {text(about_option)}")
    return "\n".join(lines) + "\n"


def cli_markdown() -> str:
    """Every command's section, ``cfrlab`` itself first."""
    return "\n".join(command_markdown(title, command, ctx) for title, command, ctx in command_contexts())


def games_markdown() -> str:
    """A table of the registered games (name, what it is, its parameters with their defaults), then one section
    per game listing each parameter's meaning and bounds: ``cfrlab games`` as a page."""
    from cfrlab.cli.options import cite
    from cfrlab.registry import describe_games

    rows = describe_games()
    lines = ["| game | what it is | parameters (default) |", "| --- | --- | --- |"]
    for row in rows:
        params = ", ".join(f"`{p['name']}`" + ("" if p["default"] is None else f" ({text(str(p['default']))})")
                           for p in row["parameters"]) or "none"
        lines.append(f"| [`{row['name']}`](#game-{row['name']}) | {text(cite(row['description']))} | {params} |")
    for row in rows:
        lines += ["", f"### {row['name']} {{ #game-{row['name']} }}", "", text(cite(row["description"])), ""]
        for p in row["parameters"]:
            default = "" if p["default"] is None else f" (default `{p['default']}`)"
            bounds = "" if p["bounds"] is None else " (from {} to {})".format(*p["bounds"])
            lines.append(f"- `{p['name']}`{default}: {text(p['help'])}{bounds}")
    return "\n".join(lines) + "\n"


def algorithms_markdown() -> str:
    """A table of the algorithms ``solve`` knows with their papers, then each algorithm's options (flag,
    default, where the default comes from, meaning), default budget and presets: ``--list-options`` as a page."""
    from cfrlab.extras import install_hint
    from cfrlab.solvers import catalog

    rows = sorted(catalog(), key=lambda row: str(row["name"]))
    lines = ["| `--algo` | algorithm and paper |", "| --- | --- |"]
    for row in rows:
        lines.append(f"| [`{row['name']}`](#{anchor(str(row['name']))}) | {text(str(row['description']))} |")
    for row in rows:
        name = str(row["name"])
        lines += ["", f"### {name} {{ #{anchor(name)} }}", "", text(str(row["description"])), ""]
        if row["missing"]:
            lines.append(f"Needs {row['missing']}: `{install_hint(str(row['missing']))}`.")
            continue
        lines += algorithm_options(name)
    return "\n".join(lines) + "\n"


def anchor(name: str) -> str:
    """The anchor of an algorithm's section: ``cfr+`` -> ``algo-cfr-plus`` (a plain slug would give ``cfr`` and
    ``cfr+`` the same one)."""
    return "algo-" + re.sub(r"[^a-z0-9-]", "-", name.lower().replace("+", "-plus"))


def algorithm_options(name: str) -> list[str]:
    """The options of ``--algo name`` as a list, its default budget and its presets."""
    from cfrlab.cli.options import option_rows, preset_lines
    from cfrlab.solvers import solver_class

    cls = solver_class(name)
    lines = [f"`cfrlab solve GAME --algo {name}` takes these options (`-n` default: {cls.default_iterations} "
             "iterations):", ""]
    for flag, default, source, meaning in option_rows(cls):
        lines.append(f"- `{flag}` (default `{default}`, {text(source)}): {text(' '.join(meaning.split()))}")
    presets = preset_lines(cls)
    if presets:
        lines += ["", "Presets:", ""] + [f"- `{line}`" for line in presets]
    return lines
