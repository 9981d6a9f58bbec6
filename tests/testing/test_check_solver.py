"""Every registered solver passes ``cfrlab.testing.check_solver``: registering an algorithm is enough to test it.

Neural solvers run with tiny networks and buffers so each check costs seconds; algorithms made for one
family of games run on a small member of it. Both tables may only name registered algorithms.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from cfrlab import solvers
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers import algorithms, register_solver, unavailable
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
GAME: dict[str, str] = {"pvt-cfr": HOLDEM,
                        **{f"vector-{rule}": HOLDEM for rule in ("cfr+", "pcfr+", "dcfr+", "pdcfr+")}}


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

    def _load_state_arrays(self, arrays) -> None:
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
def test_check_solver_catches_a_broken_solver(cls: type[Solver], message: str) -> None:
    with pytest.raises(AssertionError, match=re.escape(f"{cls.algorithm}: {message}")):
        check_solver(cls, "kuhn")


def test_solvers_customise_hooks_not_iterate() -> None:
    """``Solver.iterate`` is the one verb; solvers change ``_run_iterations`` / ``_iteration_context`` instead."""
    overriding = {klass.__name__ for cls in algorithms().values() for klass in cls.__mro__
                  if klass is not Solver and "iterate" in vars(klass)}
    assert not overriding, overriding


class PlainCFR(Solver):
    """Vanilla CFR (Zinkevich et al. 2007) written against the game protocol alone, as a user of the library
    would write a solver of their own: recursive, in Python, simultaneous updates, uniform averaging."""

    algorithm = "plain-cfr"
    citation = ("vanilla CFR over the game protocol, written outside cfrlab's solvers", "Zinkevich et al. 2007")

    def __init__(self, game, config=None, **overrides) -> None:
        super().__init__(game, config, **overrides)
        self.index: dict[str, int] = {}
        self.legal: list[list[int]] = []
        self._enumerate(game.new_initial_state())
        shape = (len(self.index), game.max_actions)
        self.regret, self.strategy_sum = np.zeros(shape), np.zeros(shape)
        self.mask = np.zeros(shape, dtype=bool)
        for row, actions in enumerate(self.legal):
            self.mask[row, actions] = True

    def _enumerate(self, state) -> None:
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                self._enumerate(state.child(action))
            return
        key = state.information_state_key()
        if key not in self.index:
            self.index[key] = len(self.legal)
            self.legal.append(state.legal_actions())
        for action in state.legal_actions():
            self._enumerate(state.child(action))

    def _strategy(self, row: int) -> np.ndarray:
        positive = np.where(self.mask[row], np.maximum(self.regret[row], 0.0), 0.0)
        total = positive.sum()
        return positive / total if total > 0 else self.mask[row] / self.mask[row].sum()

    def _walk(self, state, reach: np.ndarray) -> np.ndarray:
        """Every player's expected value at ``state``; ``reach`` holds each player's (and chance's, last) reach."""
        if state.is_terminal():
            return np.asarray(state.returns(), dtype=np.float64)
        if state.is_chance_node():
            value = np.zeros(self.game.num_players)
            for action, p in state.chance_outcomes():
                child_reach = reach.copy()
                child_reach[-1] *= p
                value += p * self._walk(state.child(action), child_reach)
            return value
        player, row = state.current_player(), self.index[state.information_state_key()]
        sigma = self._strategy(row)
        values = {}
        for action in self.legal[row]:
            child_reach = reach.copy()
            child_reach[player] *= sigma[action]
            values[action] = self._walk(state.child(action), child_reach)
        value = sum(sigma[a] * v for a, v in values.items())
        others = np.prod(np.delete(reach, player))
        for action, v in values.items():
            self.regret[row, action] += others * (v[player] - value[player])
        self.strategy_sum[row] += reach[player] * sigma
        return value

    def _iterate_once(self) -> None:
        self._walk(self.game.new_initial_state(), np.ones(self.game.num_players + 1))

    def _policy(self, table: np.ndarray) -> TabularPolicy:
        rows = np.where(self.mask, table, 0.0)
        sums = rows.sum(axis=1, keepdims=True)
        uniform = self.mask / self.mask.sum(axis=1, keepdims=True)
        return TabularPolicy(list(self.index), np.where(sums > 0, rows / np.where(sums > 0, sums, 1), uniform),
                             self.mask)

    def current_policy(self) -> TabularPolicy:
        return self._policy(np.maximum(self.regret, 0.0))

    def average_policy(self) -> TabularPolicy:
        return self._policy(self.strategy_sum)

    def _state_arrays(self) -> dict[str, np.ndarray]:
        return {"regret": self.regret, "strategy_sum": self.strategy_sum}

    def _load_state_arrays(self, arrays) -> None:
        self.regret, self.strategy_sum = np.array(arrays["regret"]), np.array(arrays["strategy_sum"])


@pytest.fixture
def plain_cfr_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solvers, "_REGISTERED", {})
    register_solver("plain-cfr", PlainCFR)


def test_check_solver_takes_a_users_solver_class() -> None:
    """Registered or not, a class of one's own is checked like a built-in solver."""
    check_solver(PlainCFR, "kuhn")
    check_solver(PlainCFR, "kuhn(players=3)", improve_iterations=None)


def test_a_registered_solver_runs_through_the_cli_and_the_registry(
        plain_cfr_registered: None, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from cfrlab.cli.main import main
    from cfrlab.eval import exploitability

    assert algorithms()["plain-cfr"] is PlainCFR and solvers.solver_class("plain-cfr") is PlainCFR
    check_solver("plain-cfr", "kuhn")
    assert main(["solve", "kuhn", "--algo", "plain-cfr", "-n", "300", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["algorithm"] == "plain-cfr" and result["iterations"] == 300
    solver = PlainCFR(load_game("kuhn")).iterate(300)
    assert result["exploitability"] == pytest.approx(exploitability(load_game("kuhn"), solver.average_policy()))
    assert result["exploitability"] < 0.02
    assert main(["algorithms", "--json"]) == 0
    listed = {row["name"]: row["description"] for row in json.loads(capsys.readouterr().out)}
    assert listed["plain-cfr"].startswith("vanilla CFR over the game protocol") and "cfr+" in listed


def test_register_solver_refuses_a_name_the_class_does_not_carry(plain_cfr_registered: None) -> None:
    with pytest.raises(ValueError, match="set `algorithm = 'mine'` on the class"):
        register_solver("mine", PlainCFR)
    register_solver("mine", f"{__name__}:PlainCFR")  # a lazy reference is checked when it is loaded
    with pytest.raises(TypeError, match="whose `algorithm` is 'plain-cfr'"):
        solvers.solver_class("mine")


def test_solvers_of_installed_packages_come_from_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    point = EntryPoint("plain-cfr", f"{__name__}:PlainCFR", solvers.ENTRY_POINT_GROUP)
    monkeypatch.setattr("importlib.metadata.entry_points",
                        lambda group=None: [point] if group == solvers.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(solvers, "_REGISTERED", {})
    monkeypatch.setattr(solvers, "_entry_points_loaded", False)
    assert solvers.solver_class("plain-cfr") is PlainCFR


def test_the_default_workers_warning_reads_workers_and_batch(kuhn) -> None:
    from cfrlab.solvers.mccfr import ExternalSamplingMCCFR

    assert "--batch 64 gives each worker 32 traversals" in (
        ExternalSamplingMCCFR(kuhn, workers=2, batch=64).workers_warning() or "")
    assert ExternalSamplingMCCFR(kuhn, workers=2, batch=10**5).workers_warning() is None
    assert CFR(kuhn).workers_warning() is None  # no workers at all


ONE_CARD_POKER = Path(__file__).parent.parent / "data" / "one_card_poker.efg"


@pytest.mark.parametrize("algorithm", sorted(set(algorithms()) - set(GAME)))
def test_check_solver_on_a_gambit_file(algorithm: str) -> None:
    """Every solver keeps its contract on a game read from a Gambit .efg file (Myerson's one-card poker)."""
    iterations, improve = ITERATIONS.get(algorithm, ((2, 2), 50))
    check_solver(algorithm, f"efg:{ONE_CARD_POKER}", config=TINY.get(algorithm), iterations=iterations,
                 improve_iterations=improve)
