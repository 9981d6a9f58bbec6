"""One mechanism for optional packages: a command that needs a missing extra says which pip install brings it."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cfrlab.extras import EXTRAS, install_hint, installed_from, missing_extra

ROOT = Path(__file__).resolve().parents[1]
HINT = "error: this needs the optional package {!r}, not installed here: {}"


def test_every_mapped_package_is_in_its_extra() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    requirements = {name: {re.split(r"[<>=\[ ]", req)[0].replace("-", "_") for req in reqs}
                    for name, reqs in extras.items()}
    distribution = {"pyspiel": "open_spiel", "tree": "dm_tree"}
    for module, extra in EXTRAS.items():
        assert distribution.get(module, module) in requirements[extra], (module, extra)
    assert install_hint("torch.nn") == install_hint("torch") and install_hint("numpy") is None


def test_the_hint_is_a_command_that_works_here(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """make run's venv: its pip, on the source folder (editable); a system Python: ``python -m pip``."""
    venv, source = tmp_path / ".venv", tmp_path / "src"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "pip").write_text("")
    source.mkdir()
    (source / "pyproject.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "executable", str(venv / "bin" / "python"))
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr("cfrlab.extras.installed_from", lambda: (source, True))
    assert install_hint("fastapi") == ".venv/bin/pip install -e './src[web]'"  # a path to pip, not a package name
    monkeypatch.chdir(source)
    assert install_hint("fastapi") == f"{venv}/bin/pip install -e '.[web]'"
    monkeypatch.setattr("cfrlab.extras.installed_from", lambda: (source, False))
    assert install_hint("ray") == f"{venv}/bin/pip install '.[ray]'"
    monkeypatch.setattr("cfrlab.extras.installed_from", lambda: None)
    monkeypatch.setattr(sys, "prefix", sys.base_prefix)  # not a virtual environment
    monkeypatch.setattr(sys, "executable", "/usr/bin/python3")
    assert install_hint("torch") == "/usr/bin/python3 -m pip install 'cfrlab[torch]'"


def test_the_folder_installed_from_is_read_from_the_install_record() -> None:
    """PEP 610: this checkout's venv installed cfrlab from a folder with its pyproject.toml (or from elsewhere)."""
    source = installed_from()
    assert source is None or (source[0] / "pyproject.toml").is_file()


def test_the_line_is_found_through_a_re_raise() -> None:
    try:
        try:
            import no_such_module_here  # noqa: F401
        except ModuleNotFoundError:
            raise ImportError("worded by the caller")  # noqa: B904 - __context__ keeps the cause
    except ImportError as outer:
        assert missing_extra(outer) is None  # not an optional package
    error = ModuleNotFoundError("No module named 'ray'", name="ray")
    wrapped = ValueError("cannot start workers")
    wrapped.__cause__ = error
    assert missing_extra(wrapped) == HINT.format("ray", install_hint("ray"))


@pytest.mark.parametrize("blocked, extra, argv", [
    ("pyspiel", "openspiel", ["solve", "openspiel:kuhn_poker", "-n", "2"]),
    ("fastapi", "web", ["serve", "kuhn"]),
    ("torch", "torch", ["solve", "kuhn", "--algo", "deep-cfr", "-n", "2"]),
])
def test_cli_says_which_extra_to_install(blocked: str, extra: str, argv: list[str]) -> None:
    code = (f"import sys\nsys.modules[{blocked!r}] = None\nfrom cfrlab.cli.main import main\n"
            f"sys.exit(main({argv!r}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == HINT.format(blocked, install_hint(blocked))
    assert f"[{extra}]'" in proc.stderr
