"""mkdocs hooks: the reference pages are generated from the code at every build (the API from ``cfrlab.__all__``,
each public name documented from the module the facade takes it from; the command line, the games and the
algorithms from ``cfrlab.cli.reference``; the Koi-Koi bot's JSON Schema from the code that checks observations),
and the pages kept elsewhere in the repository (docs/architecture.md, docs/design/, docs/gallery.md, CHANGELOG.md,
the game families' READMEs) are added to the site as they are, their links to the site's pages kept and those to
source files shown as paths."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent

PUBLIC_API = "<!-- cfrlab-public-api -->"
BOT_SCHEMA = "<!-- koikoi-bot-schema -->"
CLI = "<!-- cfrlab-cli -->"
GAMES = "<!-- cfrlab-games -->"
ALGORITHMS = "<!-- cfrlab-algorithms -->"

INCLUDED = {
    "explanation/architecture.md": "docs/architecture.md",
    **{f"explanation/design/{p.name}": f"docs/design/{p.name}" for p in sorted((ROOT / "docs/design").glob("*.md"))},
    "gallery.md": "docs/gallery.md",
    **{f"gallery/{p.name}": f"docs/gallery/{p.name}" for p in sorted((ROOT / "docs/gallery").glob("*.png"))},
    "changelog.md": "CHANGELOG.md",
    "explanation/games/index.md": "cfrlab/games/README.md",
    "explanation/games/koikoi.md": "cfrlab/games/koikoi/README.md",
    "explanation/games/holdem.md": "cfrlab/games/holdem/README.md",
}
"""Site path -> repository path of each page or picture kept outside docs/site."""
SITE_OF = {source: page for page, source in INCLUDED.items()}
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def public_api_markdown() -> str:
    """One ``::: module.name`` block per public name of ``cfrlab``, in ``__all__``'s order."""
    import cfrlab

    blocks = []
    for name in cfrlab.__all__:
        module = cfrlab._EXPORTS[name]  # the facade's table: where each public name lives
        blocks.append(f"::: {module}.{name}\n    options:\n      heading_level: 2\n")
    return "\n".join(blocks)


def bot_schema_markdown() -> str:
    from cfrlab.games.koikoi.rules.observation import OBSERVATION_SCHEMA

    return "```json\n" + json.dumps(OBSERVATION_SCHEMA, indent=2) + "\n```"


def generated(marker: str) -> str:
    """The Markdown that replaces ``marker``."""
    from cfrlab.cli import reference

    makers = {PUBLIC_API: public_api_markdown, BOT_SCHEMA: bot_schema_markdown, CLI: reference.cli_markdown,
              GAMES: reference.games_markdown, ALGORITHMS: reference.algorithms_markdown}
    return makers[marker]()


def on_files(files: Files, config: Any, **_: Any) -> Files:
    """Add the pages and pictures kept elsewhere in the repository."""
    for page, source in INCLUDED.items():
        files.append(File.generated(config, page, abs_src_path=str(ROOT / source)))
    return files


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    for marker in (PUBLIC_API, BOT_SCHEMA, CLI, GAMES, ALGORITHMS):
        if marker in markdown:
            markdown = markdown.replace(marker, generated(marker))
    source = INCLUDED.get(page.file.src_uri)
    return relink(markdown, source, page.file.src_uri) if source and source.endswith(".md") else markdown


def relink(markdown: str, source: str, page: str) -> str:
    """``source``'s relative links as seen from ``page`` on the site: to the site's copy of a file it includes,
    or, for a file the site leaves out (a package README), its path in the repository as code."""
    def one(match: re.Match[str]) -> str:
        bang, label, target = match.groups()
        if re.match(r"[a-z]+:|#", target):
            return match.group(0)
        path, hash_, fragment = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        if repo_path in SITE_OF:
            relative = posixpath.relpath(SITE_OF[repo_path], posixpath.dirname(page) or ".")
            return f"{bang}[{label}]({relative}{hash_}{fragment})"
        return f"`{repo_path}`" if label.strip("`") == repo_path else f"{label} (`{repo_path}`)"

    return LINK.sub(one, markdown)
