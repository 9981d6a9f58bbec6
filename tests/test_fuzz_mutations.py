"""Property test: every format of ``tests.fuzz_driver`` (strategy files, checkpoints, run logs, game specs, and
the formats its ``FORMAT_MODULES`` bring, the families' among them), mutated by hypothesis from good ones, never
gives a traceback, a hang or a changed file; each command exits 0 (the input is still valid) or 2 with one
``error:`` line, and a command that answers lines (the bot) answers every line. ``python -m tests.fuzz_driver
--cases 400`` runs a larger seeded batch."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz_driver import FORMATS, make_case, make_seeds, run_case


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return make_seeds(tmp_path_factory.mktemp("fuzz_seeds"))


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz_cases")


@pytest.mark.parametrize("fmt", FORMATS)
def test_mutated_inputs_are_refused_in_one_line_or_work(fmt: str, seeds: dict[str, Any], cases: Path) -> None:
    counter = iter(range(10**6))

    @settings(max_examples=12, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(rnd=st.randoms(use_true_random=False))
    def check(rnd: random.Random) -> None:
        folder = cases / f"{fmt}{next(counter)}"
        folder.mkdir()
        args, stdin, own = make_case(fmt, seeds, folder, rnd)
        outcome = run_case(fmt, args, stdin, folder, own)
        assert outcome.passed, (outcome.args, outcome.code, outcome.error[-500:], outcome.hang, outcome.changed)

    check()
