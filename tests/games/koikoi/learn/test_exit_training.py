"""Expert iteration end to end on small budgets (iterations, never seconds): same seed same weights, a stopped and
resumed run equals an uninterrupted one, and a short run's network beats ``greedy`` where the network alone decides
(the playouts cut after one half-turn), which an untrained network does not."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.eval.arena import arena
from cfrlab.games.koikoi.learn import exit as X
from cfrlab.games.koikoi.neural.weights import load_weights
from cfrlab.games.koikoi.players.greedy import GreedyAgent

GAME = "koikoi_mini_tsukifuda"
TINY = X.ExitConfig(game=GAME, decisions=240, chunk=120, rollouts=4, steps=20, batch=64, eval_budget="4",
                    eval_deals=2)


def weights_of(path) -> list[np.ndarray]:
    return list(load_weights(path)[0])


def test_same_seed_same_weights_and_a_resumed_run_equals_an_uninterrupted_one(tmp_path) -> None:
    whole = X.train_exit(tmp_path / "a", TINY, generations=2, seed=5, eval_seconds=0.0)
    X.train_exit(tmp_path / "b", TINY, generations=1, seed=5, eval_seconds=0.0, workers=2)
    steps = []

    def stop(line: dict) -> None:
        steps.append(line)
        if len(steps) == 2:  # after generation 0's self-play, before the first fit
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        X.train_exit(tmp_path / "c", TINY, generations=2, seed=5, eval_seconds=0.0, report=stop)
    resumed = X.train_exit(tmp_path / "c", TINY, generations=2, seed=5, eval_seconds=0.0, resume=True)
    other = X.train_exit(tmp_path / "d", TINY, generations=1, seed=6, eval_seconds=0.0)
    assert whole.generation == 2 and 2 * 240 <= whole.decisions < 2 * 300
    for run, names in (("b", ["gen_001.npz"]), ("c", ["gen_001.npz", "gen_002.npz", X.WEIGHTS])):
        for name in names:
            assert all(np.array_equal(x, y) for x, y in zip(weights_of(tmp_path / "a" / name),
                                                             weights_of(tmp_path / run / name), strict=True))
    assert whole.scores == resumed.scores and whole.losses == resumed.losses
    assert not np.array_equal(weights_of(tmp_path / "a" / "gen_001.npz")[0],
                              weights_of(tmp_path / "d" / "gen_001.npz")[0])
    assert other.generation == 1


def test_a_short_run_beats_greedy_with_the_network_alone_deciding(tmp_path) -> None:
    config = X.ExitConfig(game=GAME, decisions=4000, chunk=4000, rollouts=8, steps=600, batch=128, cutoff=1,
                          eval_deals=0)
    X.train_exit(tmp_path / "run", config, generations=1, seed=0)
    game = X.koikoi_game(GAME)
    trained = X.search_agent(game.rules, {"rollouts": 8}, 1, str(tmp_path / "run" / X.WEIGHTS))
    score = arena(game, trained, GreedyAgent(), deals=200, seed=11).points_per_round_a
    assert score.low > 0, score
    # the same search with generation 1's network untrained (a fresh network's weights) does not
    from cfrlab.games.koikoi.neural.features import NUM_FEATURES
    from cfrlab.games.koikoi.neural.weights import random_weights, save_weights

    save_weights(tmp_path / "fresh.npz", random_weights(NUM_FEATURES, config.hidden, np.random.default_rng(0)))
    fresh = X.search_agent(game.rules, {"rollouts": 8}, 1, str(tmp_path / "fresh.npz"))
    untrained = arena(game, fresh, GreedyAgent(), deals=200, seed=11).points_per_round_a
    assert untrained.mean < score.low, (untrained, score)


def test_the_shipped_network_is_a_trained_generation_within_2_mb() -> None:
    from cfrlab.games.koikoi.players import neural
    from cfrlab.registry import load_game

    weights, meta = load_weights(neural.SHIPPED)
    assert neural.SHIPPED.stat().st_size <= 2 * 2**20
    assert meta["game"].startswith("koikoi") and meta["generation"] >= 1 and meta["cutoff"] == neural.CUTOFF
    built = neural.make_neural_agent(load_game("koikoi"), "neural:20ms")
    assert built.config.cutoff == meta["cutoff"] and built.config.seconds == 0.02
    assert all(np.array_equal(a, b) for a, b in zip(built.evaluator.weights, weights, strict=True))
