"""Parallel work on a local Ray: the same tables, networks, shards and arena results as one process; one Ray
start serves every test here.

The replicas keep a copy of the regret table and receive only the rows changed
since their last pass, so the cases below cover a full resync after a
checkpoint load, fewer chunks than replicas, simultaneous updates and the
lazy strategy sums.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from cfrlab.distributed import WorkerPool
from cfrlab.registry import load_game
from cfrlab.solvers.mccfr import MCCFR

pytestmark = pytest.mark.xdist_group("ray")  # one xdist worker runs every Ray test

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def _square_plus(x: int, y: int) -> int:
    return x * x + y


def test_the_ray_tests_share_one_xdist_worker(request):
    """Under ``--dist loadgroup`` this module's tests run on one worker, with the other Ray modules' (the
    ``xdist_group`` mark): pytest-xdist writes the group into the node id, which pytest 9.2 silently ignores
    (pytest-xdist#1386; pyproject.toml keeps pytest below it)."""
    if "PYTEST_XDIST_WORKER" not in os.environ or not request.config.getvalue("loadgroup"):
        pytest.skip("runs under pytest-xdist's --dist loadgroup (make test)")
    assert request.node.nodeid.endswith("@ray")


def test_pool_maps_in_order_in_process_and_on_ray(local_ray):
    items = [(i, 1) for i in range(7)]
    expected = [i * i + 1 for i in range(7)]
    assert WorkerPool(1).map(_square_plus, items) == expected
    pool = WorkerPool(2)
    assert pool.parallel
    shared = pool.put(10)
    assert pool.map(_square_plus, [(i, shared) for i in range(5)]) == [i * i + 10 for i in range(5)]
    pool.close()
    assert ray.is_initialized(), "a pool that joined a running Ray must leave it running"


class _Counter:
    def __init__(self, start: int) -> None:
        self.total = start

    def add(self, common: int, x: int) -> int:
        self.total += common + x
        return self.total


def test_actors_keep_their_state_between_calls(local_ray):
    with WorkerPool(1) as pool:
        group = pool.actors(_Counter, 5)
        assert group.size == 1
        assert group.call("add", [(1,)], common=(10,)) == [16]
        assert group.call("add", [(2,)], common=(10,)) == [28]
    pool = WorkerPool(2)
    group = pool.actors(_Counter, 5)
    assert group.size == 2
    assert group.call("add", [(1,), (2,)], common=(10,)) == [16, 17]
    assert group.call("add", [(0,), (3,)], common=(0,)) == [16, 20]
    with pytest.raises(ValueError, match="one item per replica"):
        group.call("add", [(1,)])
    pool.close()
    assert group.size == 0 and ray.is_initialized()


def _assert_same_tables(single, parallel):
    for a, b in ((single.regret_table(), parallel.regret_table()),
                 (single.strategy_table(), parallel.strategy_table())):
        assert a.keys() == b.keys()
        assert all(np.array_equal(a[k], b[k]) for k in a)
    np.testing.assert_array_equal(single.average_policy().probs, parallel.average_policy().probs)


@pytest.mark.parametrize("path", ["tree", "generic"])
def test_ray_workers_give_the_single_process_tables(local_ray, path):
    game = load_game("kuhn")
    options = dict(sampling="robust", k=1, batch=9, chunk=2, regret_matching_plus=True, averaging="linear",
                   path=path, seed=13)
    single = MCCFR(game, **options).iterate(8)
    parallel = MCCFR(game, workers=2, **options).iterate(8)
    parallel.close()
    _assert_same_tables(single, parallel)


@pytest.mark.parametrize("path", ["tree", "generic"])
def test_replicas_resync_after_a_load_and_with_fewer_chunks_than_workers(local_ray, path):
    """A loaded checkpoint replaces the tables under running replicas; one chunk leaves a replica idle."""
    game = load_game("kuhn(players=3)")
    options = dict(sampling="outcome", average_update="lazy", alternating=False, batch=3, chunk=4, path=path,
                   seed=21)
    single = MCCFR(game, **options).iterate(25)
    source = MCCFR(game, **options).iterate(4)
    parallel = MCCFR(game, workers=2, **options).iterate(10)  # replicas started, holding more infosets
    try:
        parallel.load_state_dict(source.state_dict())
        parallel.iterate(21)
    finally:
        parallel.close()
    assert parallel.iterations == 25
    _assert_same_tables(single, parallel)


HOLDEM = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],max_raises=[1,1,1])"


def test_holdem_subtrees_on_ray_workers_give_the_one_process_tables(local_ray, tmp_path):
    """pvt-cfr split by first-round betting: 2 workers, then a resume in process, equal one process bit for bit."""
    from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
    from cfrlab.games.holdem.solvers.cfr import ChanceSampledHoldemCFR

    game = with_abstraction(load_game(HOLDEM), "ehs2:2,3,2")
    single = ChanceSampledHoldemCFR(game, seed=7, pass_deals=200).iterate(900)
    with ChanceSampledHoldemCFR(game, seed=7, pass_deals=200, workers=2) as parallel:
        parallel.iterate(500)
        assert parallel.split.replicas.size == 2
        parallel.save_checkpoint(tmp_path / "c.npz")
    resumed = ChanceSampledHoldemCFR(game, seed=7, pass_deals=200)
    resumed.load_checkpoint(tmp_path / "c.npz")
    resumed.iterate(400)
    for name in ("regret", "average", "snapshot"):
        np.testing.assert_array_equal(resumed._state_arrays()[name], single._state_arrays()[name])


def _same_to_rounding(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * np.abs(b).max())


def test_vector_cfr_plus_on_ray_workers_is_the_one_process_solver(local_ray, tmp_path, capsys):
    """vector-cfr+ split by first-round betting on 2 workers (3 subtrees: 2 + 1), also through the CLI with a
    checkpoint and a resume in process: the one-process tables up to the rounding of BLAS products (whose
    rows OpenBLAS rounds by thread count: one thread on each worker)."""
    from cfrlab.cli.main import main
    from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
    from cfrlab.games.holdem.solvers.vector_cfr import VectorHoldemCFRPlus

    game = with_abstraction(load_game(HOLDEM), "ehs2:2,3,2")
    single = VectorHoldemCFRPlus(game).iterate(30)
    with VectorHoldemCFRPlus(game, workers=2) as parallel:
        parallel.iterate(30)
        assert [len(g) for g in parallel.split.groups] == [2, 1] and parallel.split.replicas.size == 2
        on_replicas = parallel.exact_exploitability()
    assert not parallel.split.started and parallel.exact_exploitability() == pytest.approx(on_replicas, rel=1e-12)
    assert on_replicas == pytest.approx(single.exact_exploitability(), rel=1e-12)
    assert not np.allclose(VectorHoldemCFRPlus(game).iterate(29).regret, single.regret, rtol=1e-6)  # a real test
    for name in ("regret", "average"):
        _same_to_rounding(parallel._state_arrays()[name], single._state_arrays()[name])
    solve = ["solve", HOLDEM, "--abstraction", "ehs2:2,3,2", "--algo", "vector-cfr+", "--quiet", "--no-eval"]
    straight, resumed = tmp_path / "straight.npz", tmp_path / "resumed.npz"
    assert main([*solve, "-n", "25", "--out", str(straight)]) == 0
    assert main([*solve, "-n", "10", "--out", str(resumed), "--workers", "2", "--keep-checkpoint"]) == 0
    assert main([*solve, "-n", "25", "--out", str(resumed), "--resume"]) == 0
    capsys.readouterr()
    _same_to_rounding(np.load(resumed)["probs"], np.load(straight)["probs"])


def test_lbr_and_versus_on_ray_workers_give_the_in_process_figures(local_ray):
    from cfrlab.games.holdem.eval.real_game import RealGameStrategy, lbr_in_real_game, versus
    from cfrlab.policy import TabularPolicy
    from cfrlab.tree import load_tree

    game = load_game(HOLDEM)
    strategy = RealGameStrategy(game, TabularPolicy.uniform(load_tree(game)))
    assert lbr_in_real_game(strategy, 8, rollouts=10, workers=2) == lbr_in_real_game(strategy, 8, rollouts=10)
    assert versus(strategy, ["strength"], 20, workers=2) == versus(strategy, ["strength"], 20)


# Ray tests of other modules live here, so that one Ray start serves them all (a start costs 5-20 s here).
def test_arena_on_ray_workers_gives_the_in_process_result(local_ray, tmp_path) -> None:
    from cfrlab.agents import RandomAgent
    from cfrlab.eval.arena import arena

    one = arena("leduc", RandomAgent(), RandomAgent(), deals=12, seed=5)
    heard: list[int] = []
    two = arena("leduc", RandomAgent(), RandomAgent(), deals=12, seed=5, workers=2, on_deal=heard.append)
    assert one == two and len(set(one.points_per_deal_a)) > 1
    assert heard == list(range(2, 13, 2))  # batches of as many deals as workers: progress hears of each
    from cfrlab.eval.arena_log import open_arena_log, read_arena_log

    game, path = load_game("leduc"), tmp_path / "a.jsonl"
    arena(game, RandomAgent(), RandomAgent(), deals=5, seed=5, log=open_arena_log(path, game, RandomAgent(),
                                                                                    RandomAgent(), 5, True))
    logged = arena(game, RandomAgent(), RandomAgent(), deals=12, seed=5, workers=2,
                   log=open_arena_log(path, game, RandomAgent(), RandomAgent(), 5, True))
    assert logged == one and sorted(read_arena_log(path)[1]) == list(range(12))  # 5 from the log, 7 on Ray


def test_koikoi_selfplay_on_ray_workers_writes_the_in_process_shards(local_ray, tmp_path) -> None:
    from cfrlab.games.koikoi.learn import selfplay
    from cfrlab.games.koikoi.rules.rules import RuleSet
    from tests.games.koikoi.learn.test_selfplay import _factory, _files

    rules = RuleSet(rounds=1)
    selfplay.generate(_factory(rules), rules, 60, 7, tmp_path / "a", shard_size=20)
    selfplay.generate(_factory(rules), rules, 60, 7, tmp_path / "b", workers=2, shard_size=20, ray=True)
    for (a, ma), (b, mb) in zip(_files(tmp_path / "a"), _files(tmp_path / "b"), strict=True):
        assert ma == mb and all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)


def test_an_agents_table_on_ray_workers_is_the_in_process_one(local_ray, leduc, tmp_path) -> None:
    """``cfrlab eval GAME --agent A --workers 2``: rows computed in batches over the workers, some taken from a
    log, land where the one-process table has them."""
    from cfrlab.agents import make_agent
    from cfrlab.agents.tabulate import table_rows
    from cfrlab.solvers.cfr import CFRPlus
    from cfrlab.tree import load_tree

    tree = load_tree(leduc)
    path = tmp_path / "leduc.npz"
    CFRPlus(leduc).iterate(5).average_policy().save(path, leduc)
    agent = make_agent(f"policy:{path}", leduc)
    alone = table_rows(leduc, tree, agent, f"policy:{path}")
    done = {i: alone[i] for i in range(0, tree.num_infosets, 7)}
    np.testing.assert_array_equal(table_rows(leduc, tree, agent, f"policy:{path}", workers=2, done=done), alone)


def test_double_neural_cfr_on_ray_workers_gives_the_single_process_networks(local_ray, kuhn) -> None:
    """Sampling on two Ray workers: the same networks, bit for bit, as sampling in process (the sequence
    variant was checked the same way; the MLP one also ships the workers' tensors back)."""
    pytest.importorskip("torch")
    from cfrlab.solvers.neural.double_neural_cfr import DoubleNeuralCFR, DoubleNeuralCFRConfig
    from tests.solvers.neural.test_double_neural_cfr import SMALL, _arrays_equal

    config = DoubleNeuralCFRConfig(seed=21, network="mlp", chunk=2, **SMALL)
    single = DoubleNeuralCFR(kuhn, config).iterate(3)
    parallel = DoubleNeuralCFR(kuhn, config.replace(workers=2)).iterate(3)
    parallel.close()
    assert _arrays_equal(single.state_dict()["arrays"], parallel.state_dict()["arrays"])
