"""Self-play on the numba flow (``learn.selfplay``): the information it hands the search is the engine's, a played
match replays through the engine to the same decisions, points and result, and the shards depend on the seed only."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from cfrlab.games.koikoi.learn import selfplay
from cfrlab.games.koikoi.learn.dataset import read_shard
from cfrlab.games.koikoi.neural.features import encode_state
from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.engine import Engine
from cfrlab.games.koikoi.rules.information import information
from cfrlab.games.koikoi.rules.rules import RuleSet
from cfrlab.registry import load_game
from tests.games.koikoi.neural.flow_states import decisions_beside_flow

SPECS = ["koikoi(rounds=3)", "koikoi(rules=koikoi_japan,rounds=4,first_oya=coin)",
         "koikoi(rules=hanafuda_flash,koikoi_trigger=new_yaku)", "koikoi_mini_tsukifuda"]


@pytest.mark.parametrize("spec", SPECS)
def test_the_information_from_the_flow_is_the_engines(spec):
    game = load_game(spec)
    eng, rng, seen = game.engine, np.random.default_rng(6), 0
    deck, new_yaku = C.deck_mask(game.rules.months), game.rules.koikoi_trigger == "new_yaku"
    while seen < 100:
        for s, st, cards in decisions_beside_flow(game, rng):
            p = eng.mover(s)
            info = selfplay.flow_information(st, cards, s.played, eng.legal_actions(s), deck, s.round, s.totals,
                                             new_yaku)
            assert info == information(eng, s, p)
            seen += 1


class _Recording(SearchAgent):
    """A search that keeps what it was given and what it answered."""

    def __init__(self, rules, rollouts):
        super().__init__(rules, SearchConfig(rollouts=rollouts))
        self.calls = []

    def search(self, info, rng):
        result = super().search(info, rng)
        self.calls.append((info, result))
        return result


def _replay(rules, deals, first_oya, agent, rows):
    """Step the engine through the match the self-play played (its deals, draws and the search's choices): every
    decision the same, the recorded features the engine's, the round points and the match result the engine's."""
    eng = Engine(rules, first_oya=first_oya)
    s, calls, row = eng.initial_state(), iter(agent.calls), 0
    draws = None
    while s.phase != E.TERMINAL:
        if s.phase == E.DEAL:
            ko, field, oya_hand, order = deals[s.round]
            draws = iter(order.tolist())
            a = eng.encode_deal(ko, field, oya_hand)
        elif s.phase == E.DRAW:
            a = next(draws)
        elif len(eng.legal_actions(s)) == 1:
            a = eng.legal_actions(s)[0]
        else:
            info, result = next(calls)
            p = eng.mover(s)
            assert info == information(eng, s, p) and rows["mover"][row] == p and rows["choice"][row] == result.action
            f = encode_state(eng, s, p)
            assert np.array_equal(rows["features"][row][:len(f)], f) and (rows["features"][row][len(f):] == -1).all()
            assert int(rows["legal"][row]) == sum(1 << x for x in eng.legal_actions(s))
            assert np.allclose(rows["values"][row][list(result.actions)], result.means, atol=0.01, rtol=0.002)
            a, row = result.action, row + 1
        t = eng.step(s, a)
        if t.phase == E.TERMINAL or t.round != s.round:  # the round's points for each of its rows
            yield t.result
        s = t
    assert next(calls, None) is None and row == len(rows["choice"])
    yield s.totals


@pytest.mark.parametrize("spec", ["koikoi(rounds=4)", "koikoi(rules=koikoi_japan,rounds=6)", "koikoi_mini_tsukifuda"])
def test_a_played_match_replays_through_the_engine(spec, monkeypatch):
    rules = load_game(spec).rules
    deals = []
    sample = selfplay.sample_inputs

    def recording_sample(r, n, rng):
        inputs = sample(r, n, rng)
        deals.extend((int(inputs.ko[i]), int(inputs.field[i]), int(inputs.oya[i]), inputs.order[i]) for i in range(n))
        return inputs

    monkeypatch.setattr(selfplay, "sample_inputs", recording_sample)
    agent, rows, rounds = _Recording(rules, 3), selfplay._Rows(), []
    selfplay.play_game(agent, rules, np.random.default_rng(8), rows.add,
                       lambda w, p: (rounds.append((w, p, len(rows))), rows.end_round(w, p)), rows.end_match,
                       first_oya=1)
    arrays = rows.arrays()
    *results, totals = list(_replay(rules, deals, 1, agent, arrays))
    start = 0
    for (w, p, end), result in zip(rounds, results, strict=True):
        assert (w, p) == (result.winner, result.points)
        movers, points = arrays["mover"][start:end], arrays["points"][start:end]
        assert np.array_equal(points, np.where(w < 0, 0, np.where(movers == w, p, -p)))
        start = end
    lead = np.array([totals[m] - totals[1 - m] for m in arrays["mover"]])
    if rules.rounds == 1:  # a single round: no match result
        assert (arrays["match_win"] == -1).all() and np.isnan(arrays["match_score"]).all()
        return
    assert np.array_equal(arrays["match_win"], np.where(lead > 0, 1, np.where(lead < 0, 0, -1)))
    assert np.array_equal(arrays["match_score"], np.sign(lead) / 2 + 0.5)
    assert len(arrays["choice"]) > 2 * rules.rounds


def _factory(rules, rollouts=2):
    return functools.partial(SearchAgent, rules, SearchConfig(rollouts=rollouts))


def _files(folder):
    return [read_shard(p) for p in sorted(folder.glob("shard-*.npz"))]


def test_same_seed_same_shards_whatever_the_workers(tmp_path):
    rules = RuleSet(rounds=1)
    one = selfplay.generate(_factory(rules), rules, 150, seed=4, out_dir=tmp_path / "a", shard_size=50)
    two = selfplay.generate(_factory(rules), rules, 150, seed=4, out_dir=tmp_path / "b", shard_size=50, workers=2)
    selfplay.generate(_factory(rules), rules, 150, seed=5, out_dir=tmp_path / "c", shard_size=50)
    assert [r.path.name for r in one] == ["shard-00000.npz", "shard-00001.npz", "shard-00002.npz"]
    assert [r.decisions for r in one] == [r.decisions for r in two] and all(r.decisions >= 50 for r in one)
    for (a, ma), (b, mb), (c, _) in zip(_files(tmp_path / "a"), _files(tmp_path / "b"), _files(tmp_path / "c")):
        assert ma == mb and all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
        assert not np.array_equal(a["features"], c["features"])
    assert (tmp_path / "a" / "shard-00000.npz").read_bytes() == (tmp_path / "b" / "shard-00000.npz").read_bytes()
    kept = selfplay._POOL[0]  # the processes stay for the next run, and play it alike
    selfplay.generate(_factory(rules), rules, 150, seed=4, out_dir=tmp_path / "d", shard_size=50, workers=2)
    assert selfplay._POOL == [kept] and _files(tmp_path / "d")[2][1] == _files(tmp_path / "a")[2][1]
    selfplay.close_processes()
    assert selfplay._POOL == []


def test_a_stopped_run_continues_and_another_runs_shards_are_refused(tmp_path):
    rules = RuleSet(rounds=1)
    whole = selfplay.generate(_factory(rules), rules, 90, seed=2, out_dir=tmp_path / "a", shard_size=30)
    selfplay.generate(_factory(rules), rules, 60, seed=2, out_dir=tmp_path / "b", shard_size=30)
    heard = []
    rest = selfplay.generate(_factory(rules), rules, 90, seed=2, out_dir=tmp_path / "b", shard_size=30,
                             on_shard=heard.append)
    assert [r.path.name for r in heard] == ["shard-00002.npz"] and rest[0].cpu_seconds == 0.0
    for (a, _), (b, _) in zip(_files(tmp_path / "a"), _files(tmp_path / "b"), strict=True):
        assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
    assert [r.decisions for r in whole] == [r.decisions for r in rest]
    with pytest.raises(ValueError, match="another self-play run"):
        selfplay.generate(_factory(rules), rules, 90, seed=3, out_dir=tmp_path / "b", shard_size=30)


def test_wrong_settings_are_one_line(tmp_path):
    rules = RuleSet(rounds=1)
    with pytest.raises(ValueError, match="decisions"):
        selfplay.generate(_factory(rules), rules, 0, 0, tmp_path)
    with pytest.raises(ValueError, match="not 'nintendo'"):
        selfplay.generate(_factory(load_game("koikoi_mini_tsukifuda").rules), rules, 10, 0, tmp_path)
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError, match="is a file"):
        selfplay.generate(_factory(rules), rules, 10, 0, tmp_path / "f")


def test_a_search_with_the_network_plays_and_its_pruned_actions_stay_unvalued(tmp_path):
    """The search whose playouts the network cuts and whose root it prunes (random weights): its shards read back,
    with values at the actions it searched only."""
    from cfrlab.games.koikoi.neural.cut import NetEvaluator
    from cfrlab.games.koikoi.neural.features import NUM_FEATURES
    from cfrlab.games.koikoi.neural.weights import random_weights

    rules = RuleSet(rounds=1)
    net = NetEvaluator(random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(0)))
    factory = functools.partial(SearchAgent, rules, SearchConfig(rollouts=2, cutoff=2, prune=3), evaluator=net)
    reports = selfplay.generate(factory, rules, 60, 1, tmp_path)
    (rows, meta), = _files(tmp_path)
    legal = (rows["legal"][:, None] >> np.arange(50, dtype=np.uint64)) & np.uint64(1)
    valued = np.isfinite(rows["values"]).sum(axis=1)
    assert reports[0].decisions == len(valued) >= 60 and valued.max() == 3 and (legal.sum(axis=1) > 3).any()
