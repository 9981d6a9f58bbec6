"""Parallel mini-batches on a local Ray: the same tables as one process, whatever the number of workers."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.distributed import WorkerPool
from cfrlab.registry import load_game
from cfrlab.solvers.mccfr import MCCFR

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


@pytest.mark.parametrize("path", ["tree", "generic"])
def test_ray_workers_give_the_single_process_tables(local_ray, path):
    game = load_game("kuhn")
    options = dict(sampling="robust", k=1, batch=9, chunk=2, regret_matching_plus=True, averaging="linear",
                   path=path, seed=13)
    single = MCCFR(game, **options).iterate(8)
    parallel = MCCFR(game, workers=2, **options).iterate(8)
    parallel.close()
    for a, b in ((single.regret_table(), parallel.regret_table()),
                 (single.strategy_table(), parallel.strategy_table())):
        assert a.keys() == b.keys()
        assert all(np.array_equal(a[k], b[k]) for k in a)
    np.testing.assert_array_equal(single.average_policy().probs, parallel.average_policy().probs)
