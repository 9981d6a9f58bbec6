"""Learning for the match (``--objective match``): the targets of finished rounds against the match state the engine
reaches, the rows' targets decoded from a table that names its entries, the ``net`` agent of a match file against
the match-win probabilities computed on the engine, the loss, and the files' readers."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.koikoi.learn.fit import legal_rows
from cfrlab.games.koikoi.learn.rollout import match_contexts, play_shard
from cfrlab.games.koikoi.neural.act import HEAD_AFTER, HEAD_AFTER_MATCH, head_code
from cfrlab.games.koikoi.neural.features import LEAD, NUM_FEATURES, OYA, ROUND, _seen
from cfrlab.games.koikoi.neural.infer import forward_batch
from cfrlab.games.koikoi.neural.weights import random_weights
from cfrlab.games.koikoi.players.net import NetAgent
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.game import KoiKoiState
from cfrlab.games.koikoi.rules.match import MatchTable, RoundOutcomes, win_after_round, win_table
from cfrlab.games.koikoi.rules.rules import RuleSet
from cfrlab.registry import load_game
from tests.games.koikoi.helpers import random_playout
from tests.games.koikoi.neural.flow_states import decisions_beside_flow
from tests.games.koikoi.neural.test_afterstate import NET, engine_values, over

LEAD_UPPER = (-30, -16, -8, -4, -1, 0, 3, 7, 15, 29)
"""``features._LEAD_UPPER``, restated: the lead buckets of the features."""


def truth(table: MatchTable, rules: RuleSet, t: E.EngineState, p: int) -> float:
    """Seat ``p``'s match-win probability at the match state ``t`` the engine reached after a round: 1, 1/2 or 0 by
    the totals where the match is over, else the table's W(rounds left, lead, deals)."""
    lead = t.totals[p] - t.totals[1 - p]
    if t.phase == E.TERMINAL:
        return 1.0 if lead > 0 else 0.0 if lead < 0 else 0.5
    return float(table.value(rules.rounds - t.round, lead, t.oya == p))


@pytest.mark.parametrize("spec", ["koikoi(rounds=12)", "koikoi(rules=koikoi_japan,rounds=8)"])
def test_the_value_after_a_round_is_the_tables_value_of_the_match_state_the_engine_reaches(spec) -> None:
    """``win_after_round`` from the round's index, the lead before it, the points and the next dealer equals the
    table read at the engine's totals, round and dealer after the round (its match end, transfer scoring and bust
    included), for both seats of every round of random matches."""
    game = load_game(spec)
    eng, rules = game.engine, game.rules
    table = MatchTable.build(rules, samples=2000)
    wt = win_table(rules, table)
    ends = last = 0
    for seed in range(12):
        actions: list[int] = []
        random_playout(eng, np.random.default_rng(seed), 0.5, record=actions)
        s = eng.initial_state()
        for a in actions:
            t = eng.step(s, a)
            if over(s, t):
                for p in (0, 1):
                    change = (t.totals[p] - s.totals[p]) - (t.totals[1 - p] - s.totals[1 - p])
                    gain = change // wt.scale  # the round's points to p (the loser pays them under transfer)
                    got = win_after_round(wt, s.round, s.totals[p] - s.totals[1 - p], gain, t.oya == p)
                    assert got == pytest.approx(truth(table, rules, t, p), abs=1e-12), (spec, s.round, p)
                ends += 1
                last += t.phase == E.TERMINAL
            s = t
    assert ends >= 12 * 5 and last == 12


def named_table(rounds: int, max_lead: int = 400) -> MatchTable:
    """A table whose entry names itself: W[r, l, d] = 100000 r + 2 l + d (float32-exact), so a row's target says
    which match state it read; its outcomes draw leads for ``match_contexts``."""
    r, lead, d = np.meshgrid(np.arange(rounds + 1), np.arange(2 * max_lead + 1), np.arange(2), indexing="ij")
    outcomes = RoundOutcomes(np.array([-6, 0, 1, 5]), np.array([False, True, True, True]), np.full(4, 0.25))
    return MatchTable((100000 * r + 2 * lead + d).astype(np.float64), max_lead, rounds, None, (outcomes,))


def test_the_rows_targets_are_the_match_state_each_round_leads_to() -> None:
    """Each row's target, read from ``named_table``: rounds left after the row's round (its index in the row's
    features), the mover's lead after it minus the round's points inside the lead bucket the features hold, and
    the winner dealing next (the other seat after a draw, the nintendo rules); the last round's rows: the match's
    result."""
    rules = RuleSet()
    table = named_table(rules.rounds)
    w = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(4), 0.3)
    rows, _ = play_shard(rules, w, HEAD_AFTER, [], 160, seed=2, explore=0.1, self_share=1.0, match=table)
    f, target, points = rows["features"], rows["win"].astype(np.int64), rows["points"].astype(np.int64)
    place = f[(f >= ROUND) & (f < ROUND + 12)] - ROUND
    bucket = f[(f >= LEAD) & (f < LEAD + 11)] - LEAD
    oya = (f == OYA).any(axis=1)
    assert len(place) == len(bucket) == len(f) and set(place.tolist()) == set(range(12))
    last = place == 11
    assert set(rows["win"][last].tolist()) <= {0.0, 0.5, 1.0} and last.sum() > 0
    left, rest = np.divmod(target[~last], 100000)
    after, deals = rest // 2 - 400, rest % 2
    assert (left == 11 - place[~last]).all()
    before = after - points[~last]
    low = np.array((-10 ** 6, *LEAD_UPPER))[bucket[~last]]
    high = np.array((*LEAD_UPPER, 10 ** 6))[bucket[~last]]
    assert ((before > low) | (bucket[~last] == 0)).all() and (before <= high).all()
    won = points[~last] != 0
    assert (deals[won] == (points[~last][won] > 0)).all() and len(np.unique(before)) > 5
    assert (deals[~won] == ~oya[~last][~won]).all() and (~won).sum() > 0  # a drawn round passes the deal (nintendo)


def test_match_contexts_place_rounds_uniformly_with_the_leads_of_the_earlier_rounds() -> None:
    table = named_table(12)
    places, leads = match_contexts(table, 6000, np.random.default_rng(0))
    assert np.bincount(places, minlength=12).min() > 400 and (leads[places == 0] == 0).all()
    spread = [np.abs(leads[places == k]).mean() for k in (1, 11)]
    assert 0 < spread[0] < spread[1]  # the leads of later rounds have had more rounds to grow
    assert set(np.unique(leads[places == 1])) <= {-6, -5, -1, 0, 1, 5, 6}


def match_values(game, table: MatchTable, s: E.EngineState) -> list[float]:
    """The reference: each legal action's result on the engine valued for the mover by ``NET`` trained for the match:
    the sigmoid of its win logit over the afterstate's features, or ``truth`` where the round ends."""
    eng, p = game.engine, game.engine.mover(s)
    values = []
    for a in eng.legal_actions(s):
        t = eng.step(s, a)
        if over(s, t):
            values.append(truth(table, game.rules, t, p))
        else:
            logit = forward_batch(NET, _seen(eng, t._replace(totals=s.totals, round=s.round), p)[None])[0]
            values.append(1.0 / (1.0 + np.exp(-float(logit[0, 1]))))
    return values


def test_the_net_agent_of_a_match_file_plays_the_largest_match_win_probability() -> None:
    """At decisions of random matches (their round index and totals), the agent's action is the argmax over the
    legal actions of the engine's afterstates: the sigmoid of the win-logit output where the round goes on, the
    table's value of the match state reached where it ends; the points ranking would pick otherwise somewhere."""
    game = load_game("koikoi(rounds=12)")
    eng = game.engine
    table = MatchTable.build(game.rules, samples=2000)
    agent = NetAgent(NET, HEAD_AFTER_MATCH, table=table)
    seen = differ = 0
    for seed in range(6):
        for s, _, _ in decisions_beside_flow(game, np.random.default_rng(seed)):
            legal = eng.legal_actions(s)
            if len(legal) < 2:
                continue
            best = legal[int(np.argmax(match_values(game, table, s)))]
            assert agent.action_probabilities(KoiKoiState(game, s)) == {a: float(a == best) for a in legal}
            differ += legal[int(np.argmax(engine_values(game, s)))] != best
            seen += 1
    assert seen > 100 and differ > 0


def test_the_match_loss_is_the_win_logits_cross_entropy_plus_the_points_error() -> None:
    import torch

    from cfrlab.games.koikoi.learn.model import POINT_SCALE
    from cfrlab.games.koikoi.learn.objective import from_file, loss_terms, tensors

    rules = RuleSet()
    table = MatchTable.build(rules, samples=2000)
    rows, _ = play_shard(rules, NET, HEAD_AFTER_MATCH, [], 40, seed=5, explore=0.1, self_share=1.0, match=table)
    assert legal_rows(rows["legal"]).sum(axis=1).min() >= 2 and 0.0 < rows["win"].mean() < 1.0
    with torch.no_grad():
        terms = loss_terms(from_file(NET, "afterstate"), tensors(rows, torch.device("cpu")), "afterstate",
                           objective="match")
    values = forward_batch(NET, rows["features"])[0].astype(np.float64)
    q, z = rows["win"].astype(np.float64), values[:, 1]
    bce = np.mean(np.logaddexp(0.0, z) - q * z)
    assert float(terms["win"]) == pytest.approx(bce, rel=1e-4)
    assert float(terms["value"]) == pytest.approx(np.mean((values[:, 0] - rows["points"]) ** 2) / POINT_SCALE ** 2,
                                                  rel=1e-4)
    assert float(terms["total"]) == pytest.approx(float(terms["win"]) + float(terms["value"]), rel=1e-6)


def test_head_codes_of_the_objectives() -> None:
    assert head_code({"head": "after", "objective": "match"}) == HEAD_AFTER_MATCH
    assert head_code({"head": "after"}) == head_code({"head": "after", "objective": "points"}) == HEAD_AFTER
    for meta in ({"head": "q", "objective": "match"}, {"head": "after", "objective": "wins"}):
        with pytest.raises(ValueError, match="objective"):
            head_code(meta)


def test_the_readers_of_a_match_file(tmp_path, capsys) -> None:
    """``net:PATH`` plays it by its match values; ``netsearch``'s prior ranks the root by them and its cut reads the
    points output, as an afterstate file's; ``netsearch:oos`` refuses it in one line."""
    from cfrlab.agents import make_agent
    from cfrlab.cli.main import main
    from cfrlab.games.koikoi.neural.cut import NetEvaluator
    from cfrlab.games.koikoi.neural.weights import save_weights
    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
    from cfrlab.games.koikoi.rules.information import information
    from cfrlab.games.koikoi.rules.match import match_table

    path = tmp_path / "match.npz"
    save_weights(path, NET, head="after", method="afterstate", objective="match")
    game = load_game("koikoi(rounds=12)")
    assert make_agent(f"net:{path}", game).head == HEAD_AFTER_MATCH
    table, seen = match_table(game.rules), 0
    for s, _, _ in decisions_beside_flow(game, np.random.default_rng(3)):
        info = information(game.engine, s, game.engine.mover(s))
        if len(info.legal) < 5:
            continue
        prior = make_agent(f"netsearch:6:prior:{path}", game)
        best = np.argsort(-np.asarray(match_values(game, table, s)), kind="stable")[:4]
        assert prior.evaluator.prune(info, 4) == tuple(sorted(info.legal[i] for i in best))
        cut = make_agent(f"netsearch:6:cut:{path}", game)
        reference = SearchAgent(game.rules, SearchConfig(rollouts=6, cutoff=8),
                                evaluator=NetEvaluator(NET, head=HEAD_AFTER, rules=game.rules))
        np.testing.assert_array_equal(cut.search(info, np.random.default_rng(1)).means,
                                      reference.search(info, np.random.default_rng(1)).means)
        seen += 1
        if seen == 4:
            break
    assert seen == 4
    assert main(["arena", "koikoi", f"netsearch:oos:{path}", "greedy", "-n", "1"]) == 2
    err = capsys.readouterr().err
    assert "cannot follow a network trained for the match" in err and err.count("\n") == 1


def test_a_run_for_the_match_from_a_points_file_starts_at_its_points_ranking(tmp_path) -> None:
    """``--init`` of a points file into a run for the match: the win logit starts as ``level_slope`` times the points
    output (the rest of the network as the file's), so the first iteration ranks afterstates as the file did."""
    import dataclasses

    from cfrlab.games.koikoi.learn import outcome as O
    from cfrlab.games.koikoi.neural.weights import load_weights
    from cfrlab.games.koikoi.rules.match import level_slope
    from tests.games.koikoi.learn.test_outcome_training import tiny

    O.train_outcomes(tmp_path / "a", tiny("afterstate"), iterations=1, device="cpu")
    config = dataclasses.replace(tiny("afterstate", "match"), init=str(tmp_path / "a"), warmup=0)
    run = O.OutcomeRun(tmp_path / "b", config)
    run.prepare(resume=False)
    start, source = run.weights(), load_weights(tmp_path / "a" / O.WEIGHTS)[0]
    assert run.match is not None and 0.05 < level_slope(run.match) < 1.0
    assert np.array_equal(start.w1, source.w1) and np.array_equal(start.wv[:, 0], source.wv[:, 0])
    rows, _ = play_shard(RuleSet(), source, HEAD_AFTER, [], 20, seed=1, explore=0.1, self_share=1.0)
    values = forward_batch(start, rows["features"])[0]
    np.testing.assert_allclose(values[:, 1], level_slope(run.match) * values[:, 0], rtol=1e-4, atol=1e-5)
