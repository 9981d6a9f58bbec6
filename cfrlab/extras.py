"""Optional dependencies: which ``pip install 'cfrlab[EXTRA]'`` brings a package that is missing.

``make run`` and ``pip install cfrlab`` install only what solving and evaluating need (numpy, numba, matplotlib,
rich, typer); torch, Ray, OpenSpiel, the web server, eval7 and the test tools come with the extras of
``pyproject.toml``. Code that needs one simply imports it; ``missing_extra`` turns the ``ModuleNotFoundError`` that
follows into the one line the CLI prints (exit code 2), so every command says the same thing the same way.
The line gives a command that works where cfrlab runs: this Python's pip (``.venv/bin/pip`` after ``make run``),
and the source folder cfrlab was installed from (``-e '.[web]'`` for ``make run``'s editable install).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from importlib import metadata
from pathlib import Path

EXTRAS: dict[str, str] = {
    "torch": "torch",
    "ray": "ray",
    "fastapi": "web",
    "uvicorn": "web",
    "httpx2": "web",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "tree": "openspiel",
    "eval7": "holdem",
    "pettingzoo": "envs",
    "gymnasium": "envs",
    "pytest": "test",
    "hypothesis": "test",
    "playwright": "test",
}
"""Top-level module name -> the extra of ``pyproject.toml`` that installs it (``tests/test_extras.py`` checks
each against pyproject)."""


def install_hint(module: str) -> str | None:
    """The command that installs a missing optional module here (a dotted name is fine), else None:
    ``.venv/bin/pip install -e '.[torch]'`` in ``make run``'s venv, ``pip install 'cfrlab[torch]'`` in general."""
    extra = EXTRAS.get(module.split(".")[0])
    if extra is None:
        return None
    source = installed_from()
    if source is None:
        return f"{pip_command()} install {shlex.quote(f'cfrlab[{extra}]')}"
    folder, editable = source
    return f"{pip_command()} install {'-e ' if editable else ''}{shlex.quote(f'{_shown(folder)}[{extra}]')}"


def pip_command() -> str:
    """pip for the Python running cfrlab: the ``pip`` beside ``sys.executable`` in a virtual environment (what
    ``make run`` makes), else ``PYTHON -m pip``; relative to the working folder when inside it."""
    here = Path(sys.executable)
    pip = here.parent / ("pip.exe" if os.name == "nt" else "pip")
    if sys.prefix != sys.base_prefix and pip.is_file():
        return shlex.quote(_shown(pip))
    return f"{shlex.quote(_shown(here))} -m pip"


def installed_from() -> tuple[Path, bool] | None:
    """(source folder, editable) when the installed cfrlab came from a folder that is still there (PEP 610's
    ``direct_url.json``), else None (from a package index, or not installed)."""
    # the first record that has one: a source checkout's cfrlab.egg-info on sys.path has none
    texts = (dist.read_text("direct_url.json") for dist in metadata.distributions(name="cfrlab"))
    try:
        record = json.loads(next((text for text in texts if text), "null"))
    except ValueError:
        return None
    url = record.get("url", "") if isinstance(record, dict) else ""
    if not url.startswith("file://") or not isinstance(record.get("dir_info"), dict):
        return None
    folder = Path(url.removeprefix("file://"))
    if not (folder / "pyproject.toml").is_file():
        return None
    return folder, bool(record["dir_info"].get("editable"))


def _shown(path: Path) -> str:
    """``path`` relative to the working folder when inside it (``.venv/bin/pip``, ``.``), else absolute."""
    try:
        relative = path.absolute().relative_to(Path.cwd())
    except ValueError:
        return str(path)
    text = str(relative)
    return text if os.sep in text or text == "." else f".{os.sep}{text}"


def missing_extra(exc: BaseException) -> str | None:
    """One line for an import that failed because an optional package is not installed, else None.

    Looks through the chain of causes, so a module that re-raises the import error with its own words is
    covered too."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ModuleNotFoundError) and seen.name:
            hint = install_hint(seen.name)
            if hint is not None:
                top = seen.name.split(".")[0]
                return f"error: this needs the optional package {top!r}, not installed here: {hint}"
        seen = seen.__cause__ or seen.__context__
    return None
