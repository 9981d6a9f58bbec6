"""OOS on full Koi-Koi rounds in numba (``games.koikoi.solvers.oos_walk``) against the game-protocol path, bit for
bit; the round stepped node by node (``games.koikoi.rules.flow`` through ``infoset_hash``) against the engine; its
infoset hashes against the keys."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules import infoset_hash as K
from cfrlab.games.koikoi.rules.kernels import REASONS, kernel_rules
from cfrlab.games.koikoi.rules.rules import month_of_round
from cfrlab.registry import load_game
from cfrlab.solvers.oos import OnlineOutcomeSampling
from tests.games.koikoi.solvers.test_oos_deal_koikoi import misdealt_round

PRESETS = ["koikoi", "koikoi(rules=koikoi_japan,rounds=1,first_oya=coin)", "koikoi(rules=fudawiki)",
           "koikoi(rules=hanafuda_flash,koikoi_trigger=new_yaku)"]


def _history(game, seed, earlier):
    """(state, actions from the root) at a decision with two or more legal actions after ``earlier`` decisions."""
    rng = np.random.default_rng(seed)
    while True:
        state, actions, decisions = game.new_initial_state(), [], 0
        while not state.is_terminal():
            if state.is_chance_node():
                a = state.sample_chance(rng)
            else:
                legal = state.legal_actions()
                if decisions >= earlier and len(legal) >= 2:
                    return state, actions
                decisions += 1
                a = legal[int(rng.integers(len(legal)))]
            actions.append(a)
            state = state.child(a)


def _same_tables(game, key, player, seed, iterations, **options):
    """Both paths from the same seed at infoset ``key``: their stored rows (by hash), equal to the last bit."""
    python = OnlineOutcomeSampling(game, seed=seed, path="generic", **options)
    numba = OnlineOutcomeSampling(game, seed=seed, **options)
    assert (python.path, numba.path) == ("generic", "koikoi")
    for solver in (python, numba):
        solver.set_target(key, player)
        solver.iterate(iterations)
    by_hash = {f"#{K.key_hash(k)[1]:016x}": k for k in python.store.table_regret}
    regret, strategy = numba.regret_table(), numba.strategy_table()
    assert regret.keys() == by_hash.keys() and len(regret) > iterations  # one new infoset per pass, or more
    for h, k in by_hash.items():
        assert np.array_equal(regret[h], python.store.table_regret[k])
        assert np.array_equal(strategy[h], python.store.table_strategy[k])
    assert numba.policy_at(key) == python.policy_at(key) and numba.nodes_visited == python.nodes_visited
    return numba


@pytest.mark.parametrize("spec", PRESETS)
def test_the_numba_walk_gives_the_python_tables_bit_for_bit(spec):
    game = load_game(spec)
    for seed, earlier in ((0, 0), (1, 6)):
        state, _ = _history(game, seed, earlier)
        player = state.current_player()
        _same_tables(game, state.information_state_key(player), player, seed, 40)


def test_full_expansion_stores_every_visited_infoset_as_the_python_path():
    """Full expansion stores every infoset a pass visits (many more rows per call than incremental, for which the
    tables were once sized: it wrote past them)."""
    game = load_game("koikoi")
    state, _ = _history(game, 3, 2)
    player = state.current_player()
    incremental = _same_tables(game, state.information_state_key(player), player, 3, 300)
    full = _same_tables(game, state.information_state_key(player), player, 3, 300, expansion="full")
    assert full.store.rows > 4 * 300 + 2 > incremental.store.rows


def test_a_misdealt_opening_and_later_moves_keep_the_tables():
    game = load_game("koikoi")
    state = misdealt_round(game, np.random.default_rng(1))
    player = state.current_player()
    key = state.information_state_key(player)
    assert "X" in key
    solver = _same_tables(game, key, player, 5, 30)
    rows = solver.store.rows
    solver.set_target(key, player)  # the same round: the tables stay
    solver.iterate(5)
    assert solver.store.rows > rows
    other, _ = _history(game, 9, 0)  # another deal: a new round, fresh tables
    solver.set_target(other.information_state_key(other.current_player()), other.current_player())
    assert solver.store.rows == 0


def _replay(game, actions, check):
    """Step ``actions`` through the node kernel beside the engine; ``check(state, st, cards, h)`` at each node."""
    eng, rules = game.engine, game.rules
    kr = kernel_rules(rules)
    month = month_of_round(rules, 0)
    st, cards = flow.new_position()
    h = np.zeros((2, 2), dtype=np.uint64)
    K.start(st, cards, h, eng.first_oya or 0, eng.first_oya is None, month, np.uint64(eng.deck))
    state = game.new_initial_state()
    for a in actions:
        check(state, st, cards, h)
        if state.es.phase == E.FIRST_OYA:
            K.coin(st, h, a)
        elif state.es.phase == E.DEAL:
            ko, field, oya_hand = eng.decode_deal(a)
            K.deal(st, cards, h, np.uint64(ko), np.uint64(field), np.uint64(oya_hand), kr)
        else:
            K.step(st, cards, h, a, kr)
        state = state.child(a)
    check(state, st, cards, h)


@pytest.mark.parametrize("spec", PRESETS)
def test_the_round_flow_steps_as_the_engine_and_hashes_as_the_keys(spec):
    game = load_game(spec)
    keys: dict[str, tuple[int, int]] = {}
    out = np.zeros(48, dtype=np.int64)

    def check(state, st, cards, h):
        es = state.es
        assert st[flow.S_PHASE] == es.phase and st[flow.S_REDEALS] == es.redeals
        if es.phase == E.TERMINAL:  # the round's end as the batched simulator and the search read it
            r = es.result
            assert st[flow.S_NET] == es.net
            assert (st[flow.S_WINNER], st[flow.S_POINTS], REASONS[st[flow.S_REASON]]) == (r.winner, r.points, r.reason)
            return
        if es.phase in (E.FIRST_OYA, E.DEAL):
            return
        calls = tuple(st[flow.S_CALLS:flow.S_CALLS + 2])
        assert (st[flow.S_OYA], st[flow.S_TURN], calls) == (es.oya, es.turn, es.calls)
        assert (st[flow.S_S0], st[flow.S_LAST], st[flow.S_PENDING]) == (es.s0, es.last_riser, es.pending)
        assert tuple(int(x) for x in cards) == (*es.hands, es.field, *es.piles, es.stock)
        n = flow.legal(st, cards, out)
        assert list(out[:n]) == game.engine.legal_actions(es)
        for p in (0, 1):
            key = state.information_state_key(p)
            walk = (int(h[p, 0]), int(h[p, 1]))
            assert K.key_hash(key) == (p, *walk)
            keys.setdefault(key, walk)

    for seed in range(25):
        rng, state, actions = np.random.default_rng(100 + seed), game.new_initial_state(), []
        while not state.is_terminal():  # a whole random round
            legal = None if state.is_chance_node() else state.legal_actions()
            actions.append(state.sample_chance(rng) if legal is None else legal[int(rng.integers(len(legal)))])
            state = state.child(actions[-1])
        _replay(game, actions, check)
    assert len(keys) > 500 and len(set(keys.values())) == len(keys)  # distinct keys, distinct hashes


def test_malformed_keys_are_refused():
    for key in ("2|H3|F5", "0|H3|F5Q1", "0|x3|F5", "0|H3", "x"):
        with pytest.raises(ValueError, match="not the information-state key"):
            K.key_tokens(key)
    solver = OnlineOutcomeSampling(load_game("koikoi"), seed=0)
    with pytest.raises(ValueError, match="no history has infoset"):
        solver.set_target("0|H3|zz", 0)
    assert solver.policy_at("nonsense") == {}


def test_the_tables_survive_a_checkpoint():
    game = load_game("koikoi")
    state, _ = _history(game, 3, 2)
    player = state.current_player()
    key = state.information_state_key(player)
    saved = OnlineOutcomeSampling(game, seed=1)
    saved.set_target(key, player)
    saved.iterate(30)
    loaded = OnlineOutcomeSampling(game, seed=2)
    loaded.load_state_dict(saved.state_dict())
    loaded.set_target(key, player)  # the same round: nothing is cleared
    for solver in (saved, loaded):
        solver.iterate(10)
    tables = saved.regret_table(), loaded.regret_table()
    assert len(tables[0]) > 30 and tables[0].keys() == tables[1].keys()
    assert all(np.array_equal(tables[0][k], tables[1][k]) for k in tables[0])
    assert saved.policy_at(key) == loaded.policy_at(key)


def test_a_first_hash_collision_never_shares_a_row():
    from cfrlab.games.koikoi.solvers.oos_search import _store
    from cfrlab.games.koikoi.solvers.oos_store import insert, lookup

    store = _store(4, 8)
    h = np.uint64(0xDEADBEEF12345678)
    store.hash[0], store.check[0] = h, np.uint64(7)
    store.n[0] = 1
    insert(store, 0)
    assert lookup(store, h, np.uint64(7)) == 0
    assert lookup(store, h, np.uint64(8)) == -2  # same first hash, another infoset: played out, never merged
    assert lookup(store, h + np.uint64(1), np.uint64(7)) == -1


@pytest.mark.parametrize("objective", ["points", "match"])
@pytest.mark.parametrize("spec,position", [
    ("koikoi(rounds=12)", (4, 1, (12, 3))), ("koikoi(rules=fudawiki,rounds=12)", (4, 1, (12, 3))),
    ("koikoi(rounds=12,viewing_seasonal=only)", (2, 0, (0, 5))),
    ("koikoi(rules=koikoi_japan,rounds=8)", (3, 0, (28, 2))),
    ("koikoi(rounds=12,scoring=transfer)", (5, 1, (40, 20))), ("koikoi(rounds=12)", (11, 0, (7, 9)))])
def test_a_match_round_runs_the_numba_walk_bit_for_bit(spec, position, objective):
    """A round in the middle of a match (its own month, dealer and totals; a bust near, the last round) valued
    by its points or by the match-win probability after it: the numba walk gives the Python tables, so OOS in
    matches searches as fast as in single rounds."""
    from cfrlab.games.koikoi.rules.match_round import MatchRoundGame, RoundPosition

    game = MatchRoundGame(load_game(spec), RoundPosition(*position), objective)
    state, _ = _history(game, 2, 3)
    player = state.current_player()
    _same_tables(game, state.information_state_key(player), player, 2, 60)
