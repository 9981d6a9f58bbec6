"""The Game adapter: registry, sampled deal, enumerable mini variant, keys, tensors, conformance, CFR+ on mini."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.game import CHANCE, TERMINAL, GameDefinitionError, IllegalActionError
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.cards import mask_of
from cfrlab.games.koikoi.rules.encode import TENSOR_SIZE
from cfrlab.registry import load_game
from cfrlab.testing import check_game


def play_to_first_decision(spec: str, seed: int):
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    while s.current_player() == CHANCE:
        s = s.child(s.sample_chance(rng))
    return game, s, rng


def test_load_game_and_parameters() -> None:
    g = load_game("koikoi")
    assert g.rules.name == "nintendo" and g.rules.rounds == 1 and g.num_players == 2 and g.max_actions == 50
    m = load_game("koikoi(rules=fudawiki,rounds=12,first_oya=coin,koikoi_limit=1)")
    assert m.rules.gokou == 15 and m.rules.koikoi_limit == 1 and m.rules.rounds == 12
    assert load_game(m.spec()).fingerprint() == m.fingerprint() != g.fingerprint()
    for bad in ("koikoi(rules=casino)", "koikoi(goko=15)", "koikoi(rounds=0)", "koikoi(first_oya=2)",
                "koikoi(sake_cup=beer)"):
        with pytest.raises(GameDefinitionError):
            load_game(bad)


def test_full_deal_is_sampled_never_enumerated() -> None:
    g = load_game("koikoi")
    root = g.new_initial_state()
    assert root.current_player() == CHANCE
    with pytest.raises(GameDefinitionError, match="sample_chance"):
        root.chance_outcomes()
    with pytest.raises(GameDefinitionError, match="sampled"):
        root.legal_actions()
    a = root.sample_chance(np.random.default_rng(0))
    assert 0 <= a < g.engine.num_deals
    with pytest.raises(IllegalActionError):
        root.child(g.engine.num_deals)
    draw = root.child(a)
    while draw.es.phase != E.DRAW:
        draw = draw.child(draw.legal_actions()[0])
    outcomes = draw.chance_outcomes()
    assert len(outcomes) == 24 and sum(p for _, p in outcomes) == pytest.approx(1.0)


def test_mini_variant_is_enumerable() -> None:
    g = load_game("koikoi_mini")
    root = g.new_initial_state()
    outcomes = root.chance_outcomes()
    assert len(outcomes) == 420 and sum(p for _, p in outcomes) == pytest.approx(1.0)  # C(8,2) * C(6,2)
    assert sorted(a for a, _ in outcomes) == root.legal_actions()


def test_information_state_keys_hide_the_opponent_hand() -> None:
    game = load_game("koikoi")
    eng = game.engine
    oya_hand = mask_of([0, 4, 8, 12, 16, 20, 24, 28])
    field = mask_of([1, 5, 9, 13, 17, 21, 25, 29])
    ko_a = mask_of([32, 36, 40, 44, 33, 37, 41, 2])
    ko_b = mask_of([32, 36, 40, 44, 33, 37, 41, 3])  # differs in one card the oya cannot see
    a = game.new_initial_state().child(eng.encode_deal(ko_a, field, oya_hand))
    b = game.new_initial_state().child(eng.encode_deal(ko_b, field, oya_hand))
    assert a.current_player() == b.current_player() == 0
    assert a.information_state_key(0) == b.information_state_key(0)
    assert a.information_state_key(1) != b.information_state_key(1)
    assert a.information_state_key(0) != a.information_state_key(1)
    assert np.array_equal(a.information_state_tensor(0), b.information_state_tensor(0))
    # the same play and the same draw keep the oya's keys equal; a different draw separates them
    a2, b2 = a.child(0).child(7), b.child(0).child(7)
    assert a2.information_state_key(0) == b2.information_state_key(0)
    assert a.child(0).child(6).information_state_key(0) != a2.information_state_key(0)


def test_tensor_layout_and_no_leak() -> None:
    game, s, _ = play_to_first_decision("koikoi", 9)
    p = s.current_player()
    t = s.information_state_tensor(p)
    assert t.shape == (TENSOR_SIZE,) == (game.information_state_tensor_size(),) and t.dtype == np.float32
    planes = t[:336].reshape(7, 48)
    hand = [c for c in range(48) if s.es.hands[p] >> c & 1]
    opp = [c for c in range(48) if s.es.hands[1 - p] >> c & 1]
    assert planes[0, hand].all() and planes[0].sum() == 8
    assert planes[1].sum() == 8 and planes[4].sum() == 32 and planes[4, opp].all()
    assert not planes[0, opp].any()


def test_keys_and_returns_along_random_games() -> None:
    game = load_game("koikoi(rounds=3,first_oya=coin)")
    rng = np.random.default_rng(2)
    for _ in range(5):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
            else:
                key = s.information_state_key()
                assert key.startswith(f"{s.current_player()}|")
                legal = s.legal_actions()
                assert s.action_to_string(legal[0])
                s = s.child(legal[int(rng.integers(len(legal)))])
        r = s.returns()
        assert r[0] == -r[1] and s.current_player() == TERMINAL


def test_illegal_actions_leave_the_adapter_state_intact() -> None:
    _, s, _ = play_to_first_decision("koikoi", 1)
    before = (s.es, s.pub, s.priv)
    for bad in (E.STOP, 50, -3):
        with pytest.raises(IllegalActionError):
            s.child(bad)
    assert (s.es, s.pub, s.priv) == before


@pytest.mark.parametrize("spec", ["koikoi", "koikoi_mini", "koikoi(rules=koikoi_japan,rounds=8)",
                                  "koikoi(rules=hanafuda_flash,rounds=2,first_oya=coin)"])
def test_conformance(spec: str) -> None:
    check_game(load_game(spec), max_states=4_000, playouts=25, rng=0)


def test_mini_compiles_and_cfr_plus_solves_it() -> None:
    """Issue item 3: the named mini variant compiles fast and CFR+ reaches exploitability < 1e-3 (exact)."""
    from cfrlab.eval import exploitability
    from cfrlab.solvers.cfr import CFRPlus
    from cfrlab.tree import compile_tree

    game = load_game("koikoi_mini")
    tree = compile_tree(game)
    solver = CFRPlus(game, tree=tree)
    solver.iterate(150)
    policy = solver.average_policy()
    assert exploitability(tree, policy) < 1e-3
    assert exploitability(tree, solver.current_policy().__class__.uniform(tree)) > 0.05
