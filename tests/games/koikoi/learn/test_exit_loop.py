"""The expert-iteration loop's bookkeeping (``learn.exit``) with its three steps replaced by stand-ins on an injected
clock: the budget holds, the generation count is exact, a run stopped after any step and resumed writes what an
uninterrupted run writes, the best generation is published, bad checkpoints and arguments are refused."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from cfrlab.games.koikoi.learn import exit as X
from cfrlab.games.koikoi.players.neural import CUTOFF

PLAY_SECONDS, FIT_SECONDS, DEAL_SECONDS = 3.0, 2.0, 0.05


@dataclass
class Clock:
    """Seconds that pass only as the stand-in steps work."""

    now: float = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Steps that only advance the clock and record what they would do; a generation's score is a function of its
    number (so the best generation is known), its weights a text file naming the chunks it learnt from."""
    clock = Clock()

    def play_chunk(self: X.ExpertIteration) -> None:
        st = self.state
        folder = self.chunk_dir(st.generation, st.chunks)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "shard").write_text(f"{self.seed}:{st.generation}:{st.chunks}")
        clock.now += PLAY_SECONDS
        st.decisions += self.config.chunk
        st.play_seconds += PLAY_SECONDS
        st.chunks += 1
        self.step_seconds["play"] = PLAY_SECONDS

    def fit_next(self: X.ExpertIteration) -> None:
        st = self.state
        learnt = ",".join((f / "shard").read_text() for f in self.training_folders())
        clock.now += FIT_SECONDS
        st.generation += 1
        st.chunks = 0
        (self.out / self.weights_name(st.generation)).write_text(learnt)
        st.losses = {"value": 1.0 / st.generation}
        self.step_seconds["fit"] = FIT_SECONDS

    def score(self: X.ExpertIteration, deals: int) -> None:
        clock.now += DEAL_SECONDS * deals
        self.state.score_seconds += DEAL_SECONDS * deals
        self.per_deal = DEAL_SECONDS
        g = self.state.generation
        mean = -abs(g - 2) / 10  # generation 2 is the best
        self.state.scores[str(g)] = [mean, mean - 0.1, mean + 0.1, deals]
        self.last_eval = clock.now

    monkeypatch.setattr(X.ExpertIteration, "play_chunk", play_chunk)
    monkeypatch.setattr(X.ExpertIteration, "fit_next", fit_next)
    monkeypatch.setattr(X.ExpertIteration, "score", score)
    return clock


CONFIG = X.ExitConfig(game="koikoi_mini_tsukifuda", decisions=30, chunk=10, window=2, eval_deals=20)


def lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / X.PROGRESS).read_text().splitlines()]


def test_generations_are_counted_exactly_and_the_window_is_the_last_generations(tmp_path, clock) -> None:
    state = X.train_exit(tmp_path / "run", CONFIG, generations=4, eval_seconds=0.0, clock=clock)
    assert state.generation == 4 and state.chunks == 0 and state.decisions == 4 * 30
    run = tmp_path / "run"
    # generation 3's network learnt from generations 1 and 2 (window 2), three chunks each
    assert (run / "gen_003.npz").read_text() == ",".join(f"0:{g}:{c}" for g in (1, 2) for c in range(3))
    assert sorted(state.scores, key=int) == ["1", "2", "3", "4"]
    assert state.best() == 2 and (run / X.WEIGHTS).read_text() == (run / "gen_002.npz").read_text()
    progress = lines(run)
    assert len(progress) == 4 * 3 + 4 and progress[-1]["generation"] == 4 and progress[-1]["best"] == 2
    assert progress[-1]["vs_search"] == pytest.approx([-0.2, -0.3, -0.1]) and progress[-1]["eval_deals"] == 20


@pytest.mark.parametrize("budget", [30.0, 61.0, 200.0])
def test_the_hours_hold_the_self_play_the_fits_and_the_final_score(tmp_path, clock, budget) -> None:
    state = X.train_exit(tmp_path / "run", CONFIG, seconds=budget, eval_seconds=1e9, clock=clock)
    spent = clock.now - 100.0
    assert 0.9 * budget <= spent <= 1.1 * budget, spent
    assert state.generation >= 1 and str(state.generation) in state.scores  # the last generation is scored
    assert (tmp_path / "run" / X.WEIGHTS).exists()


@pytest.mark.parametrize("budget", [2.0, 4.0, 12.0])
def test_a_resumed_run_keeps_its_hours_by_the_checkpoints_step_lengths(tmp_path, clock, budget) -> None:  # type: ignore[no-untyped-def]
    """A resumed run has measured no step yet: it takes their lengths from the checkpoint's totals (a resumed
    ``--hours 0.01`` ran a whole chunk, 599 s against 36 s, when it took an unmeasured step for free)."""
    config = X.ExitConfig(**{**CONFIG.__dict__, "eval_deals": 200})  # a score of 10 s
    X.train_exit(tmp_path / "run", config, generations=1, eval_seconds=0.0, clock=clock)
    began = clock.now
    state = X.train_exit(tmp_path / "run", config, seconds=budget, eval_seconds=1e9, clock=clock, resume=True)
    assert clock.now - began <= budget, (clock.now - began, state)
    assert str(state.generation) in state.scores or state.generation == 1


@pytest.mark.parametrize("stop_after", [1, 3, 4, 7])
def test_a_run_stopped_after_any_step_and_resumed_equals_an_uninterrupted_one(tmp_path, clock, stop_after) -> None:
    X.train_exit(tmp_path / "whole", CONFIG, generations=3, eval_seconds=0.0, clock=clock)
    steps = []

    def stop(line: dict) -> None:
        steps.append(line)
        if len(steps) == stop_after:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        X.train_exit(tmp_path / "cut", CONFIG, generations=3, eval_seconds=0.0, clock=clock, report=stop)
    with pytest.raises(ValueError, match="exists: pass --resume"):
        X.train_exit(tmp_path / "cut", CONFIG, generations=3, clock=clock)
    state = X.train_exit(tmp_path / "cut", CONFIG, generations=3, eval_seconds=0.0, clock=clock, resume=True)
    whole = X.train_exit(tmp_path / "whole", CONFIG, generations=3, clock=clock, resume=True)  # nothing left to do
    assert state == whole
    for name in ("gen_001.npz", "gen_002.npz", "gen_003.npz", X.WEIGHTS):
        assert (tmp_path / "cut" / name).read_text() == (tmp_path / "whole" / name).read_text()
    keep = ("generation", "chunks", "decisions", "losses", "vs_search", "best")
    assert [{k: d.get(k) for k in keep} for d in lines(tmp_path / "cut")] == \
        [{k: d.get(k) for k in keep} for d in lines(tmp_path / "whole")]


def test_a_resume_refuses_another_configuration_and_a_corrupt_checkpoint(tmp_path, clock) -> None:
    run = tmp_path / "run"
    X.train_exit(run, CONFIG, generations=1, clock=clock)
    with pytest.raises(ValueError, match="rollouts"):
        X.train_exit(run, X.ExitConfig(**{**CONFIG.__dict__, "rollouts": 4}), generations=2, clock=clock, resume=True)
    with pytest.raises(ValueError, match="more than the 0|>= 1"):
        X.train_exit(run, CONFIG, generations=0, clock=clock, resume=True)
    (run / "gen_001.npz").unlink()
    with pytest.raises(ValueError, match="weights are missing"):
        X.train_exit(run, CONFIG, generations=2, clock=clock, resume=True)
    (run / X.CHECKPOINT).write_bytes((run / X.CHECKPOINT).read_bytes()[:50])
    with pytest.raises(ValueError, match="corrupt or truncated"):
        X.train_exit(run, CONFIG, generations=2, clock=clock, resume=True)


def test_seeds_of_chunks_are_distinct_and_fixed() -> None:
    seeds = {X.seed_of(0, g, c) for g in range(5) for c in range(5)}
    assert len(seeds) == 25 and X.seed_of(0, 1, 2) == X.seed_of(0, 1, 2) != X.seed_of(1, 1, 2)


@pytest.mark.parametrize("text, expected", [("20ms", {"seconds": 0.02}), ("0.5ms", {"seconds": 0.0005}),
                                            ("64", {"rollouts": 64})])
def test_arena_budgets(text, expected) -> None:
    assert X.parse_budget(text) == expected


@pytest.mark.parametrize("text", ["0ms", "-1ms", "nanms", "infms", "1e308ms", "0", "-1", str(10**30), "fast"])
def test_arena_budgets_that_give_no_run_are_refused(text) -> None:
    with pytest.raises(ValueError, match="an arena budget is Tms"):
        X.parse_budget(text)


@pytest.mark.parametrize("args, message", [
    (["--method", "deep", "-n", "1"], "--method must be one of mccfr, exit"),
    (["--method", "exit", "-n", "1", "--workers", "0"], "'--workers': Input should be greater than or equal to 1"),
    (["--method", "exit", "-n", "1", "--eval-budget", "fast"], "an arena budget is Tms"),
    (["--method", "exit", "-n", "1", "--cutoff", "0"], "'--cutoff': Input should be greater than or equal to 1"),
    (["--method", "exit"], "give a budget"),
    (["--method", "exit", "-n", "1", "--game-is-not-an-option"], "No such option"),
    (["--method", "exit", "-n", "1"], "exists: pass --resume"),
    (["--method", "exit", "-n", "1", "--resume"], "corrupt or truncated"),
])
def test_cli_usage_errors_are_one_line(tmp_path, capsys, args, message) -> None:
    from cfrlab.cli.main import main

    out = tmp_path / "run"
    out.mkdir()
    (out / X.CHECKPOINT).write_bytes(b"PK\x03\x04 torn")
    assert main(["train", "koikoi", "--out", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize("target, message", [("file", "is a file"), ("missing/run", "does not exist")])
def test_cli_refuses_an_out_that_is_a_file_or_under_a_missing_folder(tmp_path, capsys, target, message) -> None:
    from cfrlab.cli.main import main

    (tmp_path / "file").write_text("x")
    assert main(["train", "koikoi", "--method", "exit", "-n", "1", "--out", str(tmp_path / target)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_refuses_a_game_that_is_not_koikoi(tmp_path, capsys) -> None:
    from cfrlab.cli.main import main

    assert main(["train", "kuhn", "--method", "exit", "-n", "1", "--out", str(tmp_path / "run")]) == 2
    assert "trains on Koi-Koi" in capsys.readouterr().err


def test_matches_are_scored_on_single_rounds_of_their_rules() -> None:
    game = X.koikoi_game("koikoi(rounds=12, rules=koikoi_japan)")
    rounds = X.round_game(game)
    assert rounds.rules.rounds == 1 and rounds.rules == X.koikoi_game("koikoi(rules=koikoi_japan)").rules


@pytest.mark.parametrize("game, args, cutoff", [("koikoi", [], CUTOFF), ("koikoi_mini_tsukifuda", [], 2),
                                                ("koikoi_mini_tsukifuda", ["--cutoff", "3"], 3)])
def test_the_cli_cuts_half_a_round_unless_told(tmp_path, monkeypatch, capsys, game, args, cutoff) -> None:
    """The default cutoff is the hand size: 8 half-turns of full rounds' 16 (the neural agent's), 2 of the mini
    variants' 4 (a cut of 8 there would never ask the network)."""
    from types import SimpleNamespace

    from cfrlab.cli.main import main

    seen = []

    def run(out, config, **kwargs):
        seen.append(config)
        return SimpleNamespace(generation=0)

    monkeypatch.setattr(X, "train_exit", run)
    assert main(["train", game, "--method", "exit", "-n", "1", "--out", str(tmp_path / "run"), *args]) == 0
    assert [(c.game, c.cutoff) for c in seen] == [(game, cutoff)]
    assert "no generation trained yet" in capsys.readouterr().out


def test_self_play_says_each_shard_as_it_is_written(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Generation 0 has no fit to report for minutes: each shard played gives a progress line (plain lines in a
    log file, as ``solve`` writes them)."""
    from cfrlab.games.koikoi.learn import selfplay

    def generate(factory, rules, decisions, seed, out_dir, workers, shard_size, on_shard):
        reports = [selfplay.ShardReport(Path(out_dir) / f"s{i}", min(shard_size, decisions - i * shard_size), 1, 0.0)
                   for i in range(-(-decisions // shard_size))]
        for report in reports:
            clock.now += 2.0
            on_shard(report)
        return reports

    clock, said = Clock(), []
    monkeypatch.setattr(selfplay, "generate", generate)
    run = X.ExpertIteration(tmp_path / "run", CONFIG, clock=clock, say=said.append)
    run.prepare(False)
    run.play_chunk()
    assert said == ["generation 0: playing 10 decisions ...",
                    "generation 0: 3/10 decisions played, 1.5 decisions/s",
                    "generation 0: 6/10 decisions played, 1.5 decisions/s",
                    "generation 0: 9/10 decisions played, 1.5 decisions/s",
                    "generation 0: 10/10 decisions played, 1.2 decisions/s"]
    assert run.state.decisions == 10
