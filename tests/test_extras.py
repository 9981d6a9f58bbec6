"""One mechanism for optional packages: a command that needs a missing extra says which pip install brings it."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cfrlab.extras import EXTRAS, install_hint, missing_extra

ROOT = Path(__file__).resolve().parents[1]
HINT = "error: this needs the optional package {!r}, not installed here: pip install 'cfrlab[{}]'"


def test_every_mapped_package_is_in_its_extra() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    requirements = {name: {re.split(r"[<>=\[ ]", req)[0].replace("-", "_") for req in reqs}
                    for name, reqs in extras.items()}
    distribution = {"pyspiel": "open_spiel", "tree": "dm_tree"}
    for module, extra in EXTRAS.items():
        assert distribution.get(module, module) in requirements[extra], (module, extra)
    assert install_hint("torch.nn") == "pip install 'cfrlab[torch]'" and install_hint("numpy") is None


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
    assert missing_extra(wrapped) == HINT.format("ray", "ray")


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
    assert proc.stderr.strip() == HINT.format(blocked, extra)
