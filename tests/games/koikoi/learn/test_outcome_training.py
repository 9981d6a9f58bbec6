"""Learning from outcomes (DMC, PPO) on small budgets (iterations, never seconds): the rows of self-play, a resumed
run equal bit for bit to an uninterrupted one, the pool, and the command's usage errors."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from cfrlab.games.koikoi.learn import outcome as O
from cfrlab.games.koikoi.learn.fit import legal_rows
from cfrlab.games.koikoi.learn.outcome_config import OutcomeConfig
from cfrlab.games.koikoi.learn.rollout import GREEDY, POOL, SELF, draw_opponents, play_shard
from cfrlab.games.koikoi.neural.act import HEAD_AFTER, HEAD_POLICY, HEAD_Q
from cfrlab.games.koikoi.neural.features import NUM_FEATURES
from cfrlab.games.koikoi.neural.infer import forward_batch
from cfrlab.games.koikoi.neural.weights import load_weights, random_weights
from cfrlab.games.koikoi.players.blueprint import load_blueprint
from cfrlab.games.koikoi.players.cfr import decide_table
from cfrlab.games.koikoi.rules.rules import RuleSet

GAME = "koikoi_mini_tsukifuda"


def tiny(method: str = "dmc", objective: str = "points") -> OutcomeConfig:
    """A run of a few seconds; for the match, one whose first iteration plays by the points values (``warmup``)."""
    return OutcomeConfig(game=GAME, method=method, rounds=24, pool_every=1, pool_size=2, batch=16, hidden=(16, 8),
                         eval_deals=0, objective=objective, warmup=int(objective == "match"))


@pytest.mark.parametrize("head", [HEAD_Q, HEAD_POLICY])
def test_rows_hold_legal_actions_the_behaviour_and_the_movers_final_points(head) -> None:
    w = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(0), 0.3)
    rows, stats = play_shard(RuleSet(), w, head, [], 40, seed=3, explore=0.0, self_share=1.0)
    n = len(rows["action"])
    assert n > 40 * 8 and "vs_greedy" not in stats  # self-play only: both seats' decisions, about 10 a round
    legal = legal_rows(rows["legal"])
    assert legal[np.arange(n), rows["action"]].all() and (legal.sum(axis=1) >= 2).all()
    values, logits = forward_batch(w, rows["features"])
    masked = np.where(legal, logits, -np.inf)
    if head == HEAD_Q:  # no exploration: the largest action value, with certainty
        assert (rows["action"] == masked.argmax(axis=1)).all() and (rows["prob"] == 1.0).all()
    else:  # a draw from the softmax, its probability recorded
        p = np.exp(masked - masked.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        assert np.allclose(rows["prob"], p[np.arange(n), rows["action"]], atol=1e-5)
    assert (rows["features"][:, 0] >= 0).all() and rows["features"].max() < NUM_FEATURES
    assert set(np.unique(rows["mover"])) == {0, 1} and np.abs(rows["points"]).max() > 0


def test_afterstate_rows_are_the_positions_the_chosen_actions_lead_to() -> None:
    """A Q learner's rows are its decisions (never a DRAW, which is chance's); an afterstate learner's are what its
    actions lead to: a DRAW after a card played, never a DRAW_CAPTURE (it follows chance's draw), never the round's
    end; the loss is the value head's squared error on them."""
    import torch

    from cfrlab.games.koikoi.learn.model import POINT_SCALE
    from cfrlab.games.koikoi.learn.objective import from_file, loss_terms, tensors
    from cfrlab.games.koikoi.neural.features import PHASE
    from cfrlab.games.koikoi.rules.kernels import DRAW, DRAW_CAPTURE, PLAY

    w = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(2), 0.3)
    phases = {}
    for head in (HEAD_Q, HEAD_AFTER):
        rows, _ = play_shard(RuleSet(), w, head, [], 60, seed=3, explore=0.1, self_share=1.0)
        f = rows["features"]
        phases[head] = set((f[(f >= PHASE) & (f < PHASE + 5)] - PHASE + PLAY).tolist())
        assert (f >= 0).sum(axis=1).min() > 5
    assert DRAW not in phases[HEAD_Q] and DRAW_CAPTURE in phases[HEAD_Q]
    assert DRAW in phases[HEAD_AFTER] and DRAW_CAPTURE not in phases[HEAD_AFTER]
    with torch.no_grad():
        terms = loss_terms(from_file(w, "afterstate"), tensors(rows, torch.device("cpu")), "afterstate")
    values = forward_batch(w, rows["features"])[0][:, 0]
    assert float(terms["total"]) == pytest.approx(np.mean((values - rows["points"]) ** 2) / POINT_SCALE ** 2,
                                                  rel=1e-4)


@pytest.mark.parametrize("head", [HEAD_Q, HEAD_AFTER])
def test_lambda_returns_mix_the_networks_later_values_into_the_final_points(head) -> None:
    """``--td-lambda``: each row's target is G_t = (1 - lambda) V_{t+1} + lambda G_{t+1} along its mover's rows of
    the round (V: the playing network's value head at the next row), recomputed here from the rows; lambda 1 is the
    final points, and lambda 0 the next row's value alone."""
    w = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(5), 0.3)
    for lam in (0.0, 0.7, 1.0):
        rows, _ = play_shard(RuleSet(), w, head, [(w, head)], 40, seed=6, explore=0.1, self_share=0.5, td_lambda=lam)
        if lam == 1.0:
            assert np.array_equal(rows["target"], rows["points"])
            continue
        values = forward_batch(w, rows["features"])[0][:, 0]
        assert np.allclose(rows["value"], values, atol=1e-5)
        expected = np.empty(len(values))
        for r in range(len(values) - 1, -1, -1):
            later = np.flatnonzero((rows["round"] == rows["round"][r]) & (rows["mover"] == rows["mover"][r]))
            later = later[later > r]
            expected[r] = rows["points"][r] if not len(later) else (
                (1 - lam) * values[later[0]] + lam * expected[later[0]])
        assert np.allclose(rows["target"], expected, atol=1e-4)
        assert not np.allclose(rows["target"], rows["points"]) and len(np.unique(rows["round"])) == 40


def test_rounds_against_the_search_opponent_teach_one_seat_and_are_scored_apart() -> None:
    """``search_share`` 1: every round against the determinized search; only the learner's seat gives rows, the
    learner's mean points against it are reported as ``vs_search``, and the same seed gives the same rows."""
    w = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(6), 0.3)
    rows, stats = play_shard(RuleSet(), w, HEAD_AFTER, [], 120, seed=2, explore=0.0, self_share=0.5,
                             search_share=1.0, search_rollouts=16)
    again, _ = play_shard(RuleSet(), w, HEAD_AFTER, [], 120, seed=2, explore=0.0, self_share=0.5,
                          search_share=1.0, search_rollouts=16)
    mine, _ = play_shard(RuleSet(), w, HEAD_AFTER, [], 120, seed=2, explore=0.0, self_share=1.0)
    assert set(stats) == {"vs_search", "rows"} and stats["vs_search"] < -1.0  # a random network loses to it
    assert all(np.array_equal(rows[k], again[k]) for k in rows)
    assert 0.3 * len(mine["action"]) < len(rows["action"]) < 0.7 * len(mine["action"])
    table = decide_table(load_blueprint())  # the cfr agent's playouts: the same deals, other choices
    cfr, cfr_stats = play_shard(RuleSet(), w, HEAD_AFTER, [], 120, seed=2, explore=0.0, self_share=0.5,
                                search_share=1.0, search_rollouts=16, search_decide=table)
    assert set(cfr_stats) == {"vs_search", "rows"} and np.array_equal(cfr["round"][:5], rows["round"][:5])
    assert not all(np.array_equal(cfr[k], rows[k]) for k in ("action", "points"))


def test_exploration_and_opponents_follow_their_shares() -> None:
    w = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(1), 0.3)
    rows, _ = play_shard(RuleSet(), w, HEAD_Q, [], 300, seed=4, explore=0.5, self_share=1.0)
    legal = legal_rows(rows["legal"]).sum(axis=1)
    assert np.allclose(np.unique(np.round(rows["prob"] - 0.5 / legal, 6)), [0.0, 0.5])  # explored or greedy on Q
    kinds = draw_opponents(np.random.default_rng(0), 9000, 2, 1 / 3)
    counts = np.bincount(kinds, minlength=POOL + 2) / len(kinds)
    assert counts[SELF] == pytest.approx(1 / 3, abs=0.02) and all(
        counts[k] == pytest.approx(2 / 9, abs=0.02) for k in (GREEDY, POOL, POOL + 1))
    _, stats = play_shard(RuleSet(), w, HEAD_Q, [(w, HEAD_Q)], 200, seed=4, explore=0.0, self_share=0.0)
    assert "vs_greedy" in stats


def weights_of(path) -> list[np.ndarray]:
    return list(load_weights(path)[0])


@pytest.mark.parametrize("method, objective, extra", [
    ("dmc", "points", {}), ("afterstate", "points", {}), ("ppo", "points", {}), ("afterstate", "match", {}),
    ("afterstate", "points", {"search_share": 0.3, "search_rollouts": 4, "td_lambda": 0.7}),
    ("dmc", "points", {"game": "koikoi", "search_share": 0.3, "search_rollouts": 4, "search_agent": "cfr"})])
def test_a_resumed_run_equals_an_uninterrupted_one_bit_for_bit(tmp_path, method, objective, extra) -> None:
    config = replace(tiny(method, objective), **extra)
    whole = O.train_outcomes(tmp_path / "a", config, iterations=4, seed=5, device="cpu")
    O.train_outcomes(tmp_path / "b", config, iterations=2, seed=5, device="cpu")
    resumed = O.train_outcomes(tmp_path / "b", config, iterations=4, seed=5, resume=True, device="cpu")
    other = O.train_outcomes(tmp_path / "c", config, iterations=1, seed=6, device="cpu")
    assert whole.iteration == resumed.iteration == 4 and whole.pool == [3, 4]
    assert sorted(p.name for p in (tmp_path / "a" / O.POOL).iterdir()) == [O.pool_name(3), O.pool_name(4)]
    assert whole.losses == resumed.losses and whole.rows == resumed.rows
    for name in (O.WEIGHTS, f"{O.POOL}/{O.pool_name(3)}"):
        assert all(np.array_equal(x, y) for x, y in zip(weights_of(tmp_path / "a" / name),
                                                         weights_of(tmp_path / "b" / name), strict=True))
    assert not np.array_equal(weights_of(tmp_path / "a" / O.WEIGHTS)[0], weights_of(tmp_path / "c" / O.WEIGHTS)[0])
    meta = load_weights(tmp_path / "a" / O.WEIGHTS)[1]
    assert meta["head"] == {"dmc": "q", "afterstate": "after", "ppo": "policy"}[method] and meta["iteration"] == 4
    assert meta["objective"] == objective and other.iteration == 1
    assert ("win" in whole.losses) == (objective == "match")


def test_a_resume_refuses_another_configuration(tmp_path) -> None:
    O.train_outcomes(tmp_path / "a", tiny(), iterations=1, device="cpu")
    with pytest.raises(ValueError, match="exists: pass --resume"):
        O.train_outcomes(tmp_path / "a", tiny(), iterations=2, device="cpu")
    with pytest.raises(ValueError, match="config"):
        O.train_outcomes(tmp_path / "a", tiny("ppo"), iterations=2, resume=True, device="cpu")
    O.train_outcomes(tmp_path / "m", tiny("afterstate", "match"), iterations=1, device="cpu")
    O.train_outcomes(tmp_path / "p", tiny("afterstate"), iterations=1, device="cpu")
    for there, config in (("m", tiny("afterstate")), ("p", tiny("afterstate", "match"))):  # the objective differs
        with pytest.raises(ValueError, match="config"):
            O.train_outcomes(tmp_path / there, config, iterations=2, resume=True, device="cpu")
    with pytest.raises(ValueError, match="more than the 0|>= 1|larger total"):
        O.train_outcomes(tmp_path / "a", tiny(), iterations=0, resume=True, device="cpu")


@pytest.mark.parametrize("args, message", [
    (["--method", "dmc", "-n", "1", "--rounds", "0"], "'--rounds': Input should be greater than or equal to 1"),
    (["--method", "ppo", "-n", "1", "--workers", "0"], "'--workers': Input should be greater than or equal to 1"),
    (["--method", "dmc"], "give a budget"),
    (["--method", "dmc", "-n", "1", "--resume"], "does not exist; start the run without --resume"),
    (["--method", "exit", "-n", "1", "--average", "9"],
     "--explore and --search-* are options of --method dmc, afterstate"),
    (["--method", "afterstate", "-n", "1", "--explore", "1"], "'--explore': must be a finite number >= 0"),
    (["--method", "mccfr", "-n", "1", "--td-lambda", "0.5"], "are options of --method dmc, afterstate or ppo"),
    (["--method", "afterstate", "-n", "1", "--td-lambda", "1.5"], "'--td-lambda': must be a finite number >= 0"),
    (["--method", "afterstate", "-n", "1", "--hidden", "64"], "--hidden must be two widths H1,H2"),
    (["--method", "afterstate", "-n", "1", "--hidden", "64,100000"], "--hidden must be two widths H1,H2"),
    (["--method", "afterstate", "-n", "1", "--lr", "nan"], "'--lr': must be a finite number > 0"),
    (["--method", "afterstate", "-n", "1", "--init", "no/such/run"], "do not exist"),
    (["--method", "dmc", "-n", "1", "--objective", "match"], "--objective match learns afterstate values"),
    (["--method", "ppo", "-n", "1", "--objective", "match"], "--objective match learns afterstate values"),
    (["--method", "afterstate", "-n", "1", "--objective", "wins"], "--objective must be one of points, match"),
    (["--method", "exit", "-n", "1", "--objective", "match"], "are options of --method dmc, afterstate or ppo"),
    (["--method", "afterstate", "-n", "1", "--warmup", "3"], "--warmup is a count of iterations (>= 0) of --objective"),
    (["--method", "afterstate", "-n", "1", "--search-agent", "oos"], "--search-agent must be one of search, cfr"),
    (["--method", "afterstate", "-n", "1", "--search-share", "0.5", "--search-agent", "cfr"],
     "--search-agent cfr plays full Koi-Koi (koikoi[...]), not 'koikoi_mini_tsukifuda'"),
])
def test_cli_usage_errors_are_one_line(tmp_path, capsys, args, message) -> None:
    from cfrlab.cli.main import main

    assert main(["train", GAME, "--out", str(tmp_path / "run"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_a_run_started_from_weights_begins_at_them_and_refuses_another_head_or_width(tmp_path, capsys) -> None:
    from cfrlab.cli.main import main

    O.train_outcomes(tmp_path / "a", tiny("afterstate"), iterations=2, seed=3, device="cpu")
    start = dict(rounds=24, pool_every=1, pool_size=2, batch=16, eval_deals=0, game=GAME, init=str(tmp_path / "a"))
    run = O.OutcomeRun(tmp_path / "b", OutcomeConfig(method="afterstate", hidden=(16, 8), lr=1e-5, **start), seed=9)
    run.prepare(resume=False)
    assert all(np.array_equal(x, y) for x, y in zip(run.weights(), weights_of(tmp_path / "a" / O.WEIGHTS),
                                                     strict=True))
    for method, hidden in (("dmc", (16, 8)), ("afterstate", (32, 8))):
        with pytest.raises(ValueError, match="--init .* needs head"):
            O.OutcomeRun(tmp_path / method, OutcomeConfig(method=method, hidden=hidden, **start)).prepare(False)
    args = ["train", GAME, "--method", "afterstate", "-n", "1", "--rounds", "8", "--eval-deals", "0", "--lr", "1e-5",
            "--init", str(tmp_path / "a"), "--out", str(tmp_path / "c")]
    assert main(args) == 0 and "play it: --opponent net:" in capsys.readouterr().out
    meta = load_weights(tmp_path / "c" / O.WEIGHTS)[1]
    assert meta["iteration"] == 1 and load_weights(tmp_path / "c" / O.WEIGHTS)[0].hidden == (16, 8)
    assert main([*args[:-2], "--out", str(tmp_path / "d"), "--hidden", "8,8"]) == 2
    assert "needs head 'after' and widths [8, 8]" in capsys.readouterr().err


def test_the_run_writes_the_moving_average_of_the_fitted_weights_and_resumes_it(tmp_path) -> None:
    import dataclasses

    from cfrlab.checkpoint import CheckpointError, load_arrays, save_arrays

    config = dataclasses.replace(tiny("afterstate"), average=3)
    run = O.OutcomeRun(tmp_path / "a", config, seed=2, device="cpu")
    run.prepare(resume=False)
    expected = [np.array(a, dtype=np.float64) for a in run.live()]
    for k in range(1, 4):
        run.iterate()
        decay = min(1 - 1 / 3, (1 + k) / (10 + k))
        expected = [decay * e + (1 - decay) * np.asarray(v, dtype=np.float64) for e, v in zip(expected, run.live())]
    saved = weights_of(tmp_path / "a" / O.WEIGHTS)
    assert all(np.allclose(x, y, atol=1e-6) for x, y in zip(saved, expected, strict=True))
    assert not np.allclose(saved[0], run.live()[0], atol=1e-6)
    plain = dataclasses.replace(config, average=0)
    assert "average" not in plain.to_dict() and config.to_dict()["average"] == 3
    with pytest.raises(ValueError, match="config"):  # a run's average is part of what it is
        O.train_outcomes(tmp_path / "a", plain, iterations=4, seed=2, resume=True, device="cpu")
    arrays, meta = load_arrays(tmp_path / "a" / O.CHECKPOINT, "checkpoint")
    save_arrays(tmp_path / "a" / O.CHECKPOINT, {k: v for k, v in arrays.items() if not k.startswith("avg_")}, meta)
    with pytest.raises(CheckpointError, match="average is missing"):
        O.train_outcomes(tmp_path / "a", config, iterations=4, seed=2, resume=True, device="cpu")
    O.train_outcomes(tmp_path / "b", plain, iterations=1, seed=2, device="cpu")
    assert all(np.array_equal(x, y) for x, y in zip(weights_of(tmp_path / "b" / O.WEIGHTS),
                                                     weights_of(tmp_path / "b" / O.POOL / O.pool_name(1)),
                                                     strict=True))


def test_cli_trains_and_refuses_to_overwrite_a_run(tmp_path, capsys) -> None:
    from cfrlab.cli.main import main

    args = ["train", GAME, "--method", "dmc", "-n", "2", "--rounds", "16", "--eval-deals", "4", "--out",
            str(tmp_path / "run")]
    assert main(args) == 0
    assert "play it: --opponent net:" in capsys.readouterr().out
    assert main(args) == 2 and "pass --resume" in capsys.readouterr().err
    (tmp_path / "run" / O.CHECKPOINT).write_bytes(b"PK\x03\x04 torn")
    assert main([*args, "--resume"]) == 2 and "corrupt" in capsys.readouterr().err


def test_dmc_regresses_the_files_dueling_q_on_the_points_and_ppo_the_clipped_ratio() -> None:
    import torch

    from cfrlab.games.koikoi.learn.model import POINT_SCALE, KoiKoiNet
    from cfrlab.games.koikoi.learn.objective import from_file, loss_terms, tensors, to_file

    net = KoiKoiNet(NUM_FEATURES, (16, 8), generator=np.random.default_rng(3))
    w = to_file(net, "dmc")
    rows, _ = play_shard(RuleSet(), w, HEAD_Q, [], 30, seed=8, explore=0.2, self_share=1.0)
    values, adv = forward_batch(w, rows["features"])
    legal = legal_rows(rows["legal"])
    n = np.arange(len(adv))
    q = values[:, 0] + adv[n, rows["action"]] - (adv * legal).sum(axis=1) / legal.sum(axis=1)  # the file's Q, points
    with torch.no_grad():
        terms = loss_terms(from_file(w, "dmc"), tensors(rows, torch.device("cpu")), "dmc")
        ppo = loss_terms(net, tensors({**rows, "prob": np.ones(len(n))}, torch.device("cpu")), "ppo")
    scale = POINT_SCALE ** 2
    assert float(terms["q"]) == pytest.approx(np.mean((q - rows["points"]) ** 2) / scale, rel=1e-4)
    assert float(terms["value"]) == pytest.approx(np.mean((values[:, 0] - rows["points"]) ** 2) / scale, rel=1e-4)
    logits = np.where(legal, forward_batch(to_file(net, "ppo"), rows["features"])[1], -np.inf)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = (p / p.sum(axis=1, keepdims=True))[n, rows["action"]]  # ratio to a behaviour that was certain: p itself
    gain = (rows["points"] - values[:, 0]) / POINT_SCALE
    expected = np.minimum(p * gain, np.clip(p, 0.8, 1.2) * gain).mean()
    assert float(ppo["surrogate"]) == pytest.approx(expected, rel=1e-4, abs=1e-6)


class Ticks:
    """A clock that moves one second each time it is read: a run's time is its count of steps."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.mark.parametrize("deals", [0, 2])
def test_the_hours_hold_the_iterations_and_the_final_score(tmp_path, deals) -> None:  # type: ignore[no-untyped-def]
    import dataclasses
    import json

    config = dataclasses.replace(tiny(), eval_deals=deals)
    clock = Ticks()
    state = O.train_outcomes(tmp_path / "run", config, seconds=60.0, device="cpu", clock=clock, eval_seconds=1e9)
    lines = [json.loads(x) for x in (tmp_path / "run" / O.PROGRESS).read_text().splitlines()]
    assert 54.0 <= clock.now <= 66.0 and state.iteration >= 5  # within 10 % of the budget
    assert lines[-1]["iteration"] == state.iteration and ("vs_greedy" in lines[-1]) == (deals > 0)


def test_the_pool_folder_and_its_snapshots_are_the_runs_own(tmp_path, capsys) -> None:
    """``OUT/pool`` planted as a link to another folder is refused before any work (the run wrote its snapshots
    there and deleted the retired ones); a snapshot edited to weights whose outputs overflow is refused on resume in
    one line, the checkpoint kept (``file_checks.output_subfolder``, ``weights.check_weights``)."""
    from cfrlab.checkpoint import load_arrays, save_arrays
    from cfrlab.cli.main import main

    victim, run = tmp_path / "victim", tmp_path / "run"
    victim.mkdir()
    run.mkdir()
    (victim / O.pool_name(10)).write_bytes(b"a user's file")
    (run / O.POOL).symlink_to(victim)
    args = ["train", GAME, "--method", "dmc", "-n", "10", "--rounds", "8", "--eval-deals", "0", "--out", str(run)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "symbolic link" in err and err.count("\n") == 1 and "Traceback" not in err
    assert sorted(p.name for p in victim.iterdir()) == [O.pool_name(10)]
    assert (victim / O.pool_name(10)).read_bytes() == b"a user's file" and not (run / O.CHECKPOINT).exists()
    (run / O.POOL).unlink()
    (run / O.PROGRESS).symlink_to(victim / O.pool_name(10))  # the progress lines would land in the user's file
    assert main(args) == 2 and "symbolic link" in capsys.readouterr().err
    (run / O.PROGRESS).unlink()
    assert main(args) == 0
    snapshot = run / O.POOL / O.pool_name(10)
    arrays, meta = load_arrays(snapshot)
    save_arrays(snapshot, {k: np.full_like(v, 3e38) for k, v in arrays.items()}, meta)
    checkpoint = (run / O.CHECKPOINT).read_bytes()
    capsys.readouterr()
    assert main([*args[:5], "11", *args[6:], "--resume"]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]  # after the progress line
    assert len(errors) == 1 and O.pool_name(10) in errors[0] and "overflow" in errors[0] and "Traceback" not in err
    assert (run / O.CHECKPOINT).read_bytes() == checkpoint


def test_cli_td_lambda_and_explore_are_part_of_the_run(tmp_path, capsys) -> None:
    """``--td-lambda`` and ``--explore`` reach the run: the same options resume it, another value of either is
    refused in one line (a run's options are its identity)."""
    from cfrlab.cli.main import main

    out = str(tmp_path / "run")
    base = ["train", GAME, "--method", "afterstate", "--rounds", "16", "--eval-deals", "0", "--out", out]
    assert main([*base, "-n", "1", "--td-lambda", "0.5", "--explore", "0.2"]) == 0
    for other in (["--td-lambda", "0.6", "--explore", "0.2"], ["--td-lambda", "0.5", "--explore", "0.1"]):
        capsys.readouterr()
        assert main([*base, "-n", "2", "--resume", *other]) == 2
        err = capsys.readouterr().err
        assert "config" in err and err.count("\n") == 1
    assert main([*base, "-n", "2", "--resume", "--td-lambda", "0.5", "--explore", "0.2"]) == 0
