"""``check_solver(algorithm_or_class, game)``: the contract every solver keeps.

Modelled on scikit-learn's ``check_estimator``: one public check, run by the
test suite over every registered algorithm (so registering an algorithm is
enough to have it tested) and usable on a user's own solver, registered or
not: ``check_solver(MySolver)`` takes the class itself.
It raises ``AssertionError`` naming the algorithm and the broken rule:

1. Same seed, same state: two solvers built alike hold bit-identical state
   after the same iterations (and a policy read in between changes nothing).
2. Resume: run N, save a checkpoint, load it into a fresh solver, run M
   equals run N + M, bit for bit (state arrays and average policy).
3. The average policy is a distribution over legal actions at every infoset
   it holds (finite, >= 0, rows summing to 1, zero off the legal mask), and
   those infosets and actions are the game's (when the game enumerates).
4. Metadata round-trips through a strategy file written by ``cfrlab.driver.run``:
   the algorithm, the iterations and a config equal to the solver's.
5. Exploitability falls: after ``improve_iterations`` the average policy is
   less exploitable than before the first (exact, on games small enough).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.driver import run
from cfrlab.eval import exploitability
from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers import solver_class
from cfrlab.solvers.base import Solver
from cfrlab.tree import load_tree

CHECK_MAX_NODES = 200_000
"""Games up to this many nodes are compiled for the exact checks (3 and 5)."""


def check_solver(
    solver: str | type[Solver],
    game: Game | str = "kuhn",
    *,
    config: Mapping[str, Any] | None = None,
    iterations: tuple[int, int] = (2, 2),
    improve_iterations: int | None = 50,
) -> None:
    """Raise ``AssertionError`` unless ``solver`` (a registered algorithm's name or a ``Solver`` subclass) keeps
    the solver contract on ``game``.

    ``config`` overrides the algorithm's defaults (small networks keep neural checks cheap);
    ``iterations`` is (N, M) for the resume check; ``improve_iterations=None`` skips check 5.
    """
    if isinstance(game, str):
        game = load_game(game)
    cls = solver_class(solver) if isinstance(solver, str) else solver
    algorithm = solver if isinstance(solver, str) else cls.algorithm
    options = dict(config or {})

    def make(seed: int = 0) -> Solver:
        return cls(game, **{**options, "seed": seed})

    n, m = iterations
    _check(cls.algorithm == algorithm, algorithm, f"class {cls.__name__} calls itself {cls.algorithm!r}")
    with tempfile.TemporaryDirectory() as tmp:
        whole = make().iterate(n + m)
        same = make().iterate(n)
        same.average_policy()  # reading a policy must not change the run
        same.current_policy()
        same.iterate(m)
        _check_same_state(algorithm, "same seed", whole, same)

        first = make().iterate(n)
        path = Path(tmp) / "state.ckpt"
        first.save_checkpoint(path)
        resumed = make()
        resumed.load_checkpoint(path)
        _check(resumed.iterations == n, algorithm, f"a checkpoint after {n} iterations resumed at {resumed.iterations}")
        resumed.iterate(m)
        _check_same_state(algorithm, f"run {n}, save, load, run {m} versus run {n + m}", whole, resumed)
        for finished in (first, resumed, same):
            finished.close()

        tree = load_tree(game, max_nodes=CHECK_MAX_NODES, or_none=True)
        _check_distribution(algorithm, whole.average_policy(), tree)

        out = Path(tmp) / "strategy.npz"
        run(whole, whole.iterations, evaluate=False, out=out)
        _, meta = TabularPolicy.load(out, game)
        _check(meta.get("solver") == algorithm, algorithm, f"strategy file names solver {meta.get('solver')!r}")
        _check(meta.get("iterations") == whole.iterations, algorithm,
               f"strategy file says {meta.get('iterations')} iterations, the solver ran {whole.iterations}")
        _check(cls.Config.from_dict(meta["config"]) == whole.config, algorithm,
               "the config read back from the strategy file differs from the solver's")

    if improve_iterations is not None and tree is not None:
        learner = make()
        start = exploitability(tree, learner.average_policy().to_sequences(tree, missing="uniform"))
        learner.iterate(improve_iterations).close()
        end = exploitability(tree, learner.average_policy().to_sequences(tree, missing="uniform"))
        _check(end < start, algorithm,
               f"exploitability did not fall in {improve_iterations} iterations on {game.spec()}: "
               f"{start:.4g} before, {end:.4g} after")


def _check(ok: bool, algorithm: str, message: str) -> None:
    if not ok:
        raise AssertionError(f"{algorithm}: {message}")


def _check_same_state(algorithm: str, what: str, a: Solver, b: Solver) -> None:
    sa, sb = a.state_dict(), b.state_dict()
    _check(sa["iterations"] == sb["iterations"], algorithm, f"{what}: iteration counts differ")
    _check(set(sa["arrays"]) == set(sb["arrays"]), algorithm, f"{what}: the state holds different arrays")
    for name, x in sa["arrays"].items():
        y = sb["arrays"][name]
        same = x.shape == y.shape and x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
        _check(same, algorithm, f"{what}: state array {name!r} differs")
    _check(_plain(sa["extra"]) == _plain(sb["extra"]), algorithm, f"{what}: the state besides arrays differs")
    pa, pb = a.average_policy(), b.average_policy()
    _check(pa.keys == pb.keys and np.array_equal(pa.probs, pb.probs), algorithm, f"{what}: average policies differ")


def _plain(value: Any) -> Any:
    """Arrays inside the JSON-able extra state, as lists, so ``==`` compares them."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _check_distribution(algorithm: str, policy: TabularPolicy, tree: Any) -> None:
    probs, mask = policy.probs, policy.legal_mask
    _check(bool(np.isfinite(probs).all()) and bool((probs >= 0).all()), algorithm,
           "the average policy has negative or non-finite probabilities")
    _check(not probs[~mask].any(), algorithm, "the average policy puts probability on illegal actions")
    sums = probs.sum(axis=1)
    worst = int(np.argmax(np.abs(sums - 1.0))) if len(sums) else 0
    _check(bool(np.allclose(sums, 1.0, atol=1e-9)), algorithm,
           f"the average policy does not sum to 1 at infoset {policy.keys[worst]!r} (sum {sums[worst]:.12g})")
    if tree is not None:
        try:
            policy.check_fits(tree)
        except ValueError as exc:
            raise AssertionError(f"{algorithm}: the average policy does not fit the game: {exc}") from exc
