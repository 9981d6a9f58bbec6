"""The documentation site builds with warnings as errors (a broken reference or link fails), and documents every
public name of ``cfrlab``."""

from __future__ import annotations

import html
import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cfrlab

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("mkdocstrings")


def build(tmp_path: Path, config: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` (never ``-q``: it hides the warnings that strict mode counts)."""
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("docs")
    done = build(tmp, ROOT / "mkdocs.yml")
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp / "site"


def test_every_public_name_is_documented(site: Path) -> None:
    text = html.unescape(re.sub(r"<[^>]+>", " ", (site / "reference.html").read_text()))
    text = re.sub(r"\s+", " ", text)
    for name in cfrlab.__all__:
        value = getattr(cfrlab, name)
        if callable(value):
            assert inspect.getdoc(value), f"cfrlab.{name} has no docstring"
        match = re.search(rf"{re.escape(name)} ¶ (\S+ \S+ \S+)", text)
        assert match, f"cfrlab.{name} is missing from the API reference"


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    docs = tmp_path / "site_src"
    shutil.copytree(ROOT / "docs" / "site", docs)
    (docs / "index.md").write_text((docs / "index.md").read_text() + "\n[gone](guides/no-such-page.md)\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text((ROOT / "mkdocs.yml").read_text().replace("docs_dir: docs/site", f"docs_dir: {docs}")
                      .replace("  - docs/site_hooks.py", f"  - {ROOT / 'docs' / 'site_hooks.py'}"))
    done = build(tmp_path, config)
    assert done.returncode != 0 and "no-such-page.md" in done.stdout + done.stderr
