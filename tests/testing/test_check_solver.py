"""Every registered solver passes ``cfrlab.testing.check_solver``: registering an algorithm is enough to test it.

Neural solvers run with tiny networks and buffers so each check costs seconds; algorithms made for one
family of games run on a small member of it. Both tables may only name registered algorithms.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from cfrlab import solvers
from cfrlab.policy import TabularPolicy
from cfrlab.solvers import algorithms, unavailable
from cfrlab.solvers.base import Solver
from cfrlab.solvers.cfr import CFR
from cfrlab.testing import check_solver

# Small networks and buffers: the contract does not depend on their size.
TINY: dict[str, dict] = {
    "nfsp": {"learn_every": 4, "min_buffer": 32, "batch_size": 32, "rl_memory": 2_000, "sl_memory": 2_000,
             "target_update_every": 50, "hidden_sizes": (16,)},
    "nfsp-sac": {"learn_every": 4, "min_buffer": 32, "batch_size": 32, "rl_memory": 2_000, "sl_memory": 2_000,
                 "hidden_sizes": (16,)},
    "nfsp-ppo": {"learn_every": 4, "min_buffer": 32, "batch_size": 32, "rl_memory": 64, "rollout_steps": 16,
                 "minibatch_size": 8, "sl_memory": 2_000, "hidden_sizes": (16,), "eta": 0.5},
    "deep-cfr": {"traversals": 20, "advantage_hidden": (16,), "strategy_hidden": (16,), "advantage_steps": 10,
                 "strategy_steps": 20, "batch_size": 32, "strategy_batch_size": 32},
    "dncfr": {"batch": 4, "hidden_size": 8, "embedding_size": 4, "hidden": (8,), "rsn_steps": 3, "asn_steps": 3,
              "train_batch": 16},
    "fsp-softmax": {"min_buffer": 16, "learn_every": 8, "batch_size": 16},
}
# (N, M) of the resume check and the budget for exploitability to fall, where the defaults do not fit:
# one iteration of a self-play solver is one episode, so it needs more of them to move its average policy.
ITERATIONS: dict[str, tuple[tuple[int, int], int]] = {
    "nfsp": ((60, 60), 400),
    "nfsp-sac": ((60, 60), 600),
    "nfsp-ppo": ((60, 60), 400),
    "fsp-table": ((3, 3), 20),
    "fsp-softmax": ((30, 30), 300),
    "deep-cfr": ((2, 1), 6),
    "dncfr": ((2, 2), 20),
}
HOLDEM = "holdem_ehs2(ranks=4,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1],buckets=2)"
GAME: dict[str, str] = {"pvt-cfr": HOLDEM, "vector-cfr+": HOLDEM}


def test_the_tables_name_registered_algorithms() -> None:
    if unavailable():  # names live in the classes, so a module that cannot be imported hides its name
        pytest.skip(f"optional dependencies missing: {sorted(set(unavailable().values()))}")
    assert set(TINY) | set(ITERATIONS) | set(GAME) <= set(algorithms())


def test_every_algorithm_cites_its_paper() -> None:
    missing = [name for name, cls in algorithms().items() if "citation" not in vars(cls) or not cls.citation]
    assert not missing, f"set `citation = (what, 'Authors year')` on {missing}"


@pytest.mark.parametrize("algorithm", sorted(algorithms()))
def test_check_solver(algorithm: str) -> None:
    iterations, improve = ITERATIONS.get(algorithm, ((2, 2), 50))
    check_solver(algorithm, GAME.get(algorithm, "kuhn"), config=TINY.get(algorithm), iterations=iterations,
                 improve_iterations=improve)


@pytest.mark.parametrize("algorithm", sorted(set(algorithms()) - set(GAME)))
def test_check_solver_three_players(algorithm: str) -> None:
    """Same seed and resume on three-player Kuhn (N-player bookkeeping), without the convergence check."""
    iterations, _ = ITERATIONS.get(algorithm, ((2, 2), 50))
    check_solver(algorithm, "kuhn(players=3)", config=TINY.get(algorithm), iterations=iterations,
                 improve_iterations=None)


class ForgetfulCFR(CFR):
    """Resumes with fresh regrets: the resume check must catch it."""

    algorithm = "forgetful-cfr"

    def _load_state_arrays(self, arrays) -> None:  # type: ignore[no-untyped-def]
        pass


class LeakyCFR(CFR):
    """Scales its average policy after building it, so rows no longer sum to 1: the distribution check must
    catch it (``TabularPolicy`` checks rows when built, not later)."""

    algorithm = "leaky-cfr"

    def average_policy(self) -> TabularPolicy:
        policy = super().average_policy()
        policy.probs *= 1.01
        return policy


class NoisyCFR(CFR):
    """Draws from the global numpy generator, not its seeded one: the same-seed check must catch it."""

    algorithm = "noisy-cfr"

    def _iterate_once(self) -> None:
        super()._iterate_once()
        self.regret += np.random.default_rng().random(self.regret.shape) * 1e-3


@pytest.mark.parametrize("cls,message", [
    (ForgetfulCFR, "run 2, save, load, run 2 versus run 4: state array"),
    (LeakyCFR, "the average policy does not sum to 1"),
    (NoisyCFR, "same seed: state array"),
])
def test_check_solver_catches_a_broken_solver(monkeypatch, cls: type, message: str) -> None:
    monkeypatch.setattr(solvers, "SOLVERS", (*solvers.SOLVERS, f"{__name__}:{cls.__name__}"))
    with pytest.raises(AssertionError, match=re.escape(f"{cls.algorithm}: {message}")):
        check_solver(cls.algorithm, "kuhn")


def test_solvers_customise_hooks_not_iterate() -> None:
    """``Solver.iterate`` is the one verb; solvers change ``_run_iterations`` / ``_iteration_context`` instead."""
    overriding = {klass.__name__ for cls in algorithms().values() for klass in cls.__mro__
                  if klass is not Solver and "iterate" in vars(klass)}
    assert not overriding, overriding
