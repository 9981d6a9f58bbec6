"""The documentation site builds with warnings as errors (a broken reference or link fails); its references cover
every public name (with its signature's parameters) and every command and option (as each command's ``-h``
gives them); it reads offline, search included, from ``file://``; it has the four kinds of pages and the
changelog. ``tests/test_tutorial.py`` runs the tutorial."""

from __future__ import annotations

import html
import importlib.util
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import cfrlab
from cfrlab.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("mkdocstrings")
pytest.importorskip("material")
CHROMIUM = "/usr/bin/chromium"


def build(tmp_path: Path, config: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` (never ``-q``: it hides the warnings that strict mode counts)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("docs")
    done = build(tmp, ROOT / "mkdocs.yml")
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp / "site"


def squeeze(text: str) -> str:
    """``text`` without tags, backquotes and white space: what a reader sees, compared whatever the markup."""
    return re.sub(r"[\s`]+", "", html.unescape(re.sub(r"<[^>]+>", "", text)))


def section(page: str, anchor: str) -> str:
    """The squeezed text of ``page`` (HTML) from the heading with id ``anchor`` to the next heading of the same
    or a higher level."""
    found = re.search(rf'<h([1-6]) id="{re.escape(anchor)}"', page)
    assert found, f"no heading #{anchor}"
    rest = page[found.start():]
    end = re.search(rf"<h[1-{found.group(1)}][ >]", rest[3:])
    return squeeze(rest[:end.start() + 3] if end else rest)


def documented_names() -> list[tuple[str, str, object]]:
    """(anchor on the API page, shown name, value) of every public name: the facade's (``cfrlab.__all__``), the
    result of a run and the solver contract, and the ``__all__`` of ``cfrlab.efg`` and ``cfrlab.testing``."""
    from cfrlab import efg, testing
    from cfrlab.driver import RunResult
    from cfrlab.solvers.base import Solver

    names = [(f"{cfrlab._EXPORTS[name]}.{name}", name, getattr(cfrlab, name)) for name in cfrlab.__all__]
    names += [("cfrlab.driver.RunResult", "RunResult", RunResult), ("cfrlab.solvers.base.Solver", "Solver", Solver)]
    for module in (efg, testing):
        names += [(f"{module.__name__}.{name}", name, getattr(module, name)) for name in module.__all__]
    return names


def test_every_public_name_is_documented_with_its_signature(site: Path) -> None:
    page = (site / "reference" / "api.html").read_text()
    for anchor, name, value in documented_names():
        text = section(page, anchor)
        if not callable(value):
            assert re.search(rf"{name}(:\w+)?={re.escape(repr(value))}", text), f"{anchor}: no value"
            continue
        assert inspect.getdoc(value), f"{anchor} has no docstring"
        if isinstance(value, type) and not inspect.isfunction(value.__init__):
            continue  # an exception's (a builtin's) constructor: no signature of cfrlab's to show
        assert f"{name}(" in text, f"{anchor}'s signature is missing from the API reference"
        for p in inspect.signature(value).parameters.values():
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                assert re.search(rf"\b{p.name}[:=,)]", text), f"{anchor}: parameter {p.name} is missing"


def help_of(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main([*args, "-h"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def listed_commands(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The commands ``cfrlab -h`` lists."""
    commands = help_of(capsys).split("Commands:", 1)[1]
    return re.findall(r"^  (\S+)", commands, flags=re.M)


def listed_parameters(help_text: str) -> list[str]:
    """The arguments' names and every flag that a command's ``-h`` shows below its description."""
    body = re.split(r"^(?:Arguments|Options):$", help_text, maxsplit=1, flags=re.M)[1].split("\nCommands:")[0]
    arguments = re.findall(r"^  (\w+) <", body.split("Options:")[0], flags=re.M)
    return arguments + re.findall(r"(?<![\w-])--?[a-z][\w-]*", body)


def test_every_command_and_option_is_in_the_cli_reference(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = (site / "reference" / "cli.html").read_text()
    commands = listed_commands(capsys)
    assert len(commands) >= 13 and {"solve", "eval", "play", "serve"} <= set(commands)
    for name in [None, *commands]:
        text = section(page, "cfrlab" if name is None else f"cfrlab-{name}")
        help_text = help_of(capsys, *([name] if name else []))
        for flag in listed_parameters(help_text):
            assert flag in text, f"cfrlab {name or ''} {flag} is missing from the CLI reference"
        assert squeeze(help_text.split("\n", 1)[0]) in text, f"the usage line of cfrlab {name or ''} is missing"


def test_every_option_help_is_in_the_cli_reference(site: Path) -> None:
    """Each option's help text (read from the application) appears in its command's section."""
    from cfrlab.cli.reference import command_contexts

    page = (site / "reference" / "cli.html").read_text()
    for title, command, ctx in command_contexts():
        text = section(page, title.replace(" ", "-"))
        for param in command.get_params(ctx):
            about = squeeze(getattr(param, "help", None) or "")
            assert about[:60] in text, f"{title} {param.opts}: help missing from the CLI reference"


def test_games_and_algorithms_pages_list_the_registry(site: Path) -> None:
    from cfrlab.cli.reference import anchor
    from cfrlab.solvers import catalog

    games = (site / "reference" / "games.html").read_text()
    fresh = subprocess.run([sys.executable, "-c", "import json; from cfrlab.registry import describe_games; "
                            "print(json.dumps(describe_games()))"], capture_output=True, text=True, check=True)
    for row in json.loads(fresh.stdout):  # the registry of a new process, as the site's build sees it (a test
        # of this process may have registered a game of its own, e.g. with --game-module)
        text = section(games, f"game-{row['name']}")
        assert all(squeeze(p["help"])[:40] in text for p in row["parameters"]), row["name"]
    algorithms = (site / "reference" / "algorithms.html").read_text()
    for row in catalog():
        assert squeeze(str(row["description"]))[:40] in section(algorithms, anchor(str(row["name"])))


def test_the_site_reads_offline(site: Path) -> None:
    """No page loads a script, a style sheet or a picture from elsewhere (highlighting is done at build time)."""
    for path in site.rglob("*.html"):
        for tag in re.findall(r"<(?:script|img|link)\b[^>]*>", path.read_text()):
            address = re.search(r"\b(?:src|href)=\"([^\"]*)\"", tag)
            assert not (address and re.match(r"(https?:)?//", address.group(1))), f"{path.name} loads {tag}"
    assert "highlight" in (site / "tutorial" / "first-steps.html").read_text()


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium)")
def test_search_works_from_a_file(site: Path) -> None:
    """Opened as a file with every network request refused, the site's search finds a word of a guide."""
    pytest.importorskip("playwright")
    from playwright.sync_api import sync_playwright

    outside: list[str] = []
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.route(re.compile(r"^(https?|wss?):"), lambda route: (outside.append(route.request.url),
                                                                      route.abort()))
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto((site / "guides" / "solve.html").as_uri())
            box = page.locator("input.md-search__input")
            found = 0
            for _ in range(20):  # the index loads in the background: type again until it answers
                box.fill("")
                box.press_sequentially("exploitability", delay=10)
                page.wait_for_timeout(500)
                found = page.locator(".md-search-result__item").count()
                if found:
                    break
            titles = page.locator(".md-search-result__item").all_inner_texts()
        finally:
            browser.close()
    assert found > 0, "search found nothing from file://"
    assert any("Concepts" in t or "Solve and evaluate" in t for t in titles), titles
    assert not outside and not errors, (outside, errors)


def test_the_install_page_names_every_extra() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    page = (ROOT / "docs/site/guides/install.md").read_text()
    assert [name for name in extras if f"| `{name}` |" not in page] == []


def test_the_changelog_is_on_the_site(site: Path) -> None:
    """``CHANGELOG.md`` keeps Keep a Changelog's sections, and the site's changelog page shows every heading and
    entry of it, reached from the home page."""
    source = (ROOT / "CHANGELOG.md").read_text()
    assert source.startswith("# Changelog\n") and "\n## [Unreleased]\n" in source
    kinds = set(re.findall(r"^### (.+)$", source, flags=re.M))
    assert kinds and kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    page = squeeze((site / "changelog.html").read_text()).replace("[", "").replace("]", "")
    for line in source.splitlines():
        if line.startswith(("## ", "### ", "#### ", "- ")):
            shown = re.sub(r"^[#\s-]+|[`\[\]]|\(http[^)]*\)", "", line)  # the text, without its Markdown
            assert squeeze(shown)[:30] in page, line
    assert 'href="changelog.html"' in (site / "index.html").read_text()


def test_the_site_has_the_four_kinds_of_pages(site: Path) -> None:
    """The nav offers a tutorial, how-to guides, reference and explanation (diataxis.fr), each reaching built
    pages; the explanation pages are the repository's own (``docs/``, the game families' READMEs), their links
    between each other kept."""
    import yaml

    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    assert [next(iter(entry)) for entry in nav] == ["Home", "Tutorial", "How-to guides", "Reference", "Explanation"]
    for entry in nav[1:]:
        assert len(next(iter(entry.values()))) >= 1
    text = (site / "explanation" / "architecture.html").read_text()
    assert "Data flows one way" in text and 'href="design/games.html"' in text
    families = (site / "explanation" / "games" / "index.html").read_text()
    assert 'href="koikoi.html"' in families and 'href="holdem.html"' in families
    assert "Koi-Koi" in (site / "explanation" / "games" / "koikoi.html").read_text()
    assert 'href="tutorial/first-steps.html"' in (site / "index.html").read_text()


def test_plugins_page_names_the_entry_point_groups(site: Path) -> None:
    from cfrlab import registry, solvers

    page = (site / "reference" / "plugins.html").read_text()
    groups = {"cfrlab.registry.ENTRY_POINT_GROUP": registry.ENTRY_POINT_GROUP,
              "cfrlab.registry.FAMILY_ENTRY_POINT_GROUP": registry.FAMILY_ENTRY_POINT_GROUP,
              "cfrlab.solvers.ENTRY_POINT_GROUP": solvers.ENTRY_POINT_GROUP}
    for anchor, group in groups.items():
        assert f'project.entry-points."{group}"' in squeeze(page) and group in section(page, anchor)


def test_doctests_are_shown_as_code() -> None:
    spec = importlib.util.spec_from_file_location("griffe_doctests", ROOT / "docs" / "griffe_doctests.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.fence_doctests("Run it.\n\n    >>> f(1)\n    2\n\nDone.") == \
        "Run it.\n\n```pycon\n>>> f(1)\n2\n```\n\nDone."


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    docs = tmp_path / "site_src"
    shutil.copytree(ROOT / "docs" / "site", docs)
    (docs / "index.md").write_text((docs / "index.md").read_text() + "\n[gone](guides/no-such-page.md)\n")
    config = tmp_path / "mkdocs.yml"
    text = (ROOT / "mkdocs.yml").read_text().replace("docs_dir: docs/site", f"docs_dir: {docs}")
    text = re.sub(r"^(  - )((?:docs|cfrlab|CHANGELOG)\S*)$", rf"\g<1>{ROOT}/\2", text, flags=re.M)  # hooks, watch
    config.write_text(text.replace("paths: [.]", f"paths: [{ROOT}]"))
    done = build(tmp_path, config)
    assert done.returncode != 0 and "no-such-page.md" in done.stdout + done.stderr
