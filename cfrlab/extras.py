"""Optional dependencies: which ``pip install 'cfrlab[EXTRA]'`` brings a package that is missing.

``make run`` and ``pip install cfrlab`` install only what solving and evaluating need (numpy, numba, matplotlib,
rich, typer); torch, Ray, OpenSpiel, the web server, eval7 and the test tools come with the extras of
``pyproject.toml``. Code that needs one simply imports it; ``missing_extra`` turns the ``ModuleNotFoundError`` that
follows into the one line the CLI prints (exit code 2), so every command says the same thing the same way.
"""

from __future__ import annotations

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
    "pytest": "test",
    "hypothesis": "test",
    "playwright": "test",
}
"""Top-level module name -> the extra of ``pyproject.toml`` that installs it (``tests/test_extras.py`` checks
each against pyproject)."""


def install_hint(module: str) -> str | None:
    """``"pip install 'cfrlab[torch]'"`` for a missing optional module (a dotted name is fine), else None."""
    extra = EXTRAS.get(module.split(".")[0])
    return None if extra is None else f"pip install 'cfrlab[{extra}]'"


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
