"""Defaults that learn: every learned method, run from the CLI with no option but the budget, learns on 2-player Kuhn
(that its default budget reaches the threshold of its issue: benchmarks/bench_cli_defaults.py); ``--preset paper``
and ``--list-options`` say where settings come from."""

from __future__ import annotations

import json

import pytest

from cfrlab.cli.main import main

# algorithm, its default budget (iterations: episodes for the FSP loops), the budget run here and the exploitability
# it reaches on 2-player Kuhn. That each default budget reaches the threshold of the method's issue (NFSP and its
# variants below 0.1, table-lookup and softmax FSP and the neural CFRs 0.05, MCCFR+ 5e-3) is checked by
# benchmarks/bench_cli_defaults.py (about 100 CPU-seconds); here the learned methods run a tenth of their budget
# and must get well below uniform play's 0.458 (measured 0.07-0.26 over seeds 0 and 1), MCCFR+ its whole budget.
LEARNS = 0.3
DEFAULTS = [
    ("nfsp", 20_000, 2_000, LEARNS),
    ("nfsp-ppo", 15_000, 1_500, LEARNS),
    ("nfsp-sac", 15_000, 1_500, LEARNS),
    ("fsp-softmax", 45_000, 4_500, LEARNS),
    ("fsp-table", 1_000, 100, LEARNS),
    ("deep-cfr", 20, 2, LEARNS),
    ("dncfr", 20, 2, LEARNS),
    ("mccfr+", 6_000, 6_000, 5e-3),  # below 5e-3 from 3,000 iterations for seeds 0, 1, 2
]


def cli_json(capsys, *args: str) -> dict:
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def solve_json(capsys, *args: str) -> dict:
    return cli_json(capsys, "solve", "kuhn", *args)


@pytest.mark.parametrize("algorithm,budget,run,threshold", DEFAULTS)
def test_cli_defaults_learn_on_kuhn(capsys, tmp_path, algorithm: str, budget: int, run: int,
                                    threshold: float) -> None:
    """Solve with the defaults (no evaluation on the way: it costs more than the run for the neural CFRs),
    then evaluate the strategy file exactly."""
    out = tmp_path / f"{algorithm}.npz"
    budget_flag = [] if run == budget else ["-n", str(run)]  # no -n: the default budget
    result = solve_json(capsys, "--algo", algorithm, *budget_flag, "--no-eval", "--out", str(out))
    assert result["iterations"] == run
    assert cli_json(capsys, "eval", str(out))["exploitability"] < threshold


def test_preset_paper_sets_the_papers_options(capsys) -> None:
    from cfrlab.registry import load_game
    from cfrlab.solvers import solver_class

    nfsp = solver_class("nfsp")
    paper = nfsp(load_game("kuhn"), preset="paper")
    assert paper.config.learn_every == 64 and paper.config.eta == 0.1 and paper.config.optimizer == "sgd"
    assert nfsp(load_game("kuhn"), preset="paper", eta=0.3).config.eta == 0.3  # flags win over the preset
    result = solve_json(capsys, "--algo", "fsp-softmax", "--preset", "paper", "-n", "50", "--no-eval")
    assert result["iterations"] == 50


def test_unknown_preset_is_one_line_and_exit_2(capsys) -> None:
    code = main(["solve", "kuhn", "--algo", "nfsp", "--preset", "fastest", "-n", "5"])
    _, err = capsys.readouterr()
    assert code == 2 and "no preset 'fastest'" in err and "paper" in err and "Traceback" not in err


def test_list_options_says_where_each_default_comes_from(capsys) -> None:
    code = main(["solve", "kuhn", "--algo", "nfsp", "--list-options"])
    out, _ = capsys.readouterr()
    assert code == 0 and "default from" in out and "--preset paper" in out and "Heinrich" in out
    from cfrlab.solvers import solver_class

    nfsp = solver_class("nfsp")
    assert nfsp.default_source("eta") == "measured (paper: 0.1)"
    assert nfsp.default_source("batch_size") == "paper"
    for algorithm, budget, _, _ in DEFAULTS:  # every option of every learned method names its source
        cls = solver_class(algorithm)
        assert all(cls.default_source(name) for name in cls.Config.__dataclass_fields__), algorithm
        assert cls.default_iterations == budget  # `solve` without -n runs the budget that converges
