"""mkdocs hooks: the API reference is generated from ``cfrlab.__all__`` (each public name documented from the
module the facade takes it from, so moving a module moves nothing here), and the Koi-Koi bot's JSON Schema is
printed from the code that checks observations."""

from __future__ import annotations

import json
from typing import Any

PUBLIC_API = "<!-- cfrlab-public-api -->"
BOT_SCHEMA = "<!-- koikoi-bot-schema -->"


def public_api_markdown() -> str:
    """One ``::: module.name`` block per public name of ``cfrlab``, in ``__all__``'s order."""
    import cfrlab

    blocks = []
    for name in cfrlab.__all__:
        module = cfrlab._EXPORTS[name]  # the facade's table: where each public name lives
        blocks.append(f"## `{name}`\n\n::: {module}.{name}\n    options:\n      show_root_heading: false\n")
    return "\n".join(blocks)


def on_page_markdown(markdown: str, **_: Any) -> str:
    if PUBLIC_API in markdown:
        markdown = markdown.replace(PUBLIC_API, public_api_markdown())
    if BOT_SCHEMA in markdown:
        from cfrlab.games.koikoi.rules.observation import OBSERVATION_SCHEMA

        markdown = markdown.replace(BOT_SCHEMA, "```json\n" + json.dumps(OBSERVATION_SCHEMA, indent=2) + "\n```")
    return markdown
