"""The algorithm catalogue read from source agrees with the imported classes, and listing imports nothing heavy."""

from __future__ import annotations

import subprocess
import sys

from cfrlab.extras import install_hint
from cfrlab.solvers import algorithms, builtin, catalog, describe_algorithm, solver_class
from cfrlab.solvers.catalog import read_catalog


def test_catalogue_matches_the_imported_classes() -> None:
    imported = algorithms()
    rows = catalog()
    assert len(rows) == len(builtin())
    for row in rows:
        if row["missing"]:
            continue
        cls = imported[str(row["name"])]
        assert cls.__name__ == row["class"]
        what, source = cls.citation or (None, None)
        assert row["description"] == (f"{what} ({source})" if what else (cls.__doc__ or "").split("\n\n")[0].strip())
        assert describe_algorithm(cls.algorithm) == row["description"]
        assert solver_class(cls.algorithm) is cls


def test_a_family_outside_cfrlab_has_its_solvers_read_from_their_source() -> None:
    assert read_catalog(["tests.testing.test_check_solver:PlainCFR"]) == [{
        "name": "plain-cfr", "class": "PlainCFR", "missing": None,
        "description": "vanilla CFR over the game protocol, written outside cfrlab's solvers (Zinkevich et al. 2007)"}]


def test_listing_algorithms_imports_no_solver_numba_or_torch() -> None:
    code = ("import sys\nfrom cfrlab.cli.main import main\nassert main(['algorithms']) == 0\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'torch', 'numpy')"
            " or m.startswith('cfrlab.solvers.') and m != 'cfrlab.solvers.catalog'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout
    assert "external-sampling Monte Carlo CFR" in proc.stdout


def test_a_missing_optional_package_is_named_with_its_install_line() -> None:
    code = ("import sys\nsys.modules['torch'] = None\nfrom cfrlab.cli.main import main\n"
            "main(['algorithms'])\nsys.exit(main(['solve', 'kuhn', '--algo', 'nfsp', '-n', '2']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    nfsp = next(line for line in proc.stdout.splitlines() if line.startswith("nfsp "))
    assert f"(needs torch: {install_hint('torch')})" in nfsp
    assert "(needs" not in next(line for line in proc.stdout.splitlines() if line.startswith("cfr+ "))
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("error: this needs the optional package 'torch', not installed here: "
                                   f"{install_hint('torch')}"), proc.stderr
