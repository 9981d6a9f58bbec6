"""The Koi-Koi search agent: playouts equal the engine, legal and reproducible moves, no peeking, strength."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cfrlab.agents import make_agent
from cfrlab.eval.arena import arena, play_game
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig, playout_values
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.game import KoiKoiState
from cfrlab.games.koikoi.rules.information import determinize, information, playout_rules
from cfrlab.games.koikoi.rules.playout_policy import TUNED_WEIGHTS
from cfrlab.registry import load_game


def decision_states(game, n: int, seed: int) -> list[KoiKoiState]:
    """Decision states of every phase from rounds of greedy-vs-random play (KOI-KOI at DECIDE half the time)."""
    rng = np.random.default_rng(seed)
    greedy, out = GreedyAgent(), []
    while len(out) < n:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
                continue
            out.append(s)
            legal = s.legal_actions()
            if s.es.phase == E.DECIDE:
                a = legal[int(rng.integers(2))]
            elif s.current_player() == 0:
                a = greedy.act(s, rng)
            else:
                a = legal[int(rng.integers(len(legal)))]
            s = s.child(a)
    idx = np.random.default_rng(seed + 1).choice(len(out), size=n, replace=False)
    return [out[i] for i in sorted(idx)]


def completed(state: KoiKoiState, opp_hand: int, order: np.ndarray) -> KoiKoiState:
    """``state`` with the hidden cards replaced by one determinization (same public data, same own hand)."""
    es = state.es
    p = state.current_player()
    stock = C.mask_of(int(c) for c in order)
    return KoiKoiState(state.game, es._replace(hands=E._set(es.hands, 1 - p, opp_hand), stock=stock))


def greedy_finish(state: KoiKoiState, first: int, order: np.ndarray) -> float:
    """Play ``first``, then GreedyAgent for both seats through the protocol states, drawing the pile in ``order``."""
    me = state.current_player()
    greedy, rng = GreedyAgent(), np.random.default_rng(0)
    s, d = state.child(first), 0
    while not s.is_terminal():
        if s.is_chance_node():
            s, d = s.child(int(order[d])), d + 1
        else:
            s = s.child(greedy.act(s, rng))
    return s.returns()[me]


@pytest.fixture(scope="module")
def game():
    return load_game("koikoi")


PRESET_SPECS = ["koikoi", "koikoi(rules=fudawiki)", "koikoi(rules=koikoi_japan)", "koikoi(rules=hanafuda_flash)",
                "koikoi_mini", "koikoi(koikoi_trigger=new_yaku,sake_cup=either,rain_rule=field_weather,tsukifuda=4,"
                "exhaustive_draw=last_yaku_maker,bright_field_multiplier=count,viewing_mode=limited)"]


@pytest.mark.parametrize("spec", PRESET_SPECS)
def test_playouts_equal_greedy_play_on_the_engine(spec):
    """Cross-implementation, every preset: the numba playout of every action equals GreedyAgent playing it out on
    the engine."""
    game = load_game(spec)
    kr = playout_rules(game.rules)
    rng = np.random.default_rng(7)
    phases = set()
    for state in decision_states(game, 30, seed=3):
        info = information(game.engine, state.es, state.current_player())
        phases.add(info.phase)
        opp, orders = determinize(info, 3, rng)
        u = np.ones((3, 8 * 16))
        values = playout_values(kr, info, info.legal, opp, orders, u)
        for j in range(3):
            for i, a in enumerate(info.legal):
                truth = greedy_finish(completed(state, int(opp[j]), orders[j]), a, orders[j])
                assert values[i, j] == truth, (str(state), a, j)
    assert phases >= {E.PLAY, E.DECIDE}


def test_determinizations_partition_the_unseen_cards_uniformly(game):
    state = decision_states(game, 1, seed=11)[0]
    info = information(game.engine, state.es, state.current_player())
    n = 4000
    opp, orders = determinize(info, n, np.random.default_rng(0))
    unseen = C.cards_of(info.unseen)
    h = info.opponent_hand_size
    for j in range(0, n, 97):
        hand = int(opp[j])
        pile = C.mask_of(int(c) for c in orders[j])
        assert hand.bit_count() == h and hand & pile == 0 and hand | pile == info.unseen
        assert len(orders[j]) == len(unseen) - h
    # each unseen card is in the opponent's hand with probability h / |U|: within 4.5 binomial standard errors
    p = h / len(unseen)
    freq = np.array([np.mean((opp >> np.uint64(c)) & np.uint64(1)) for c in unseen])
    assert np.all(np.abs(freq - p) < 4.5 * np.sqrt(p * (1 - p) / n))
    # the pile's top card is uniform over the unseen cards too
    top = np.bincount(orders[:, 0].astype(np.int64), minlength=48)[unseen] / n
    q = 1 / len(unseen)
    assert np.all(np.abs(top - q) < 4.5 * np.sqrt(q * (1 - q) / n))


def test_information_leaves_out_the_hidden_cards(game):
    for state in decision_states(game, 20, seed=5):
        p = state.current_player()
        es = state.es
        info = information(game.engine, es, p)
        assert info.unseen == es.hands[1 - p] | es.stock
        assert info.hand == es.hands[p] and info.opponent_hand_size == es.hands[1 - p].bit_count()
    with pytest.raises(ValueError, match="not to act"):
        information(game.engine, state.es, 1 - state.current_player())


def test_search_plays_only_legal_actions_from_both_seats(game):
    search = make_agent("search:8", game)
    checked = []

    class Checked:
        name = "checked"

        def act(self, state, rng):
            a = search.act(state, rng)
            assert a in state.legal_actions()
            checked.append(state.es.phase)
            return a

    random = make_agent("random", game)
    for i in range(12):
        seats = [Checked(), random] if i % 2 == 0 else [random, Checked()]
        end = play_game(game, seats, np.random.default_rng(i), [np.random.default_rng(100 + i)] * 2)
        assert end.is_terminal()
    assert E.PLAY in checked


def test_search_is_reproducible_for_a_seed(game):
    agent = SearchAgent(game.rules, SearchConfig(rollouts=16, epsilon=0.2))
    for state in decision_states(game, 15, seed=9):
        a = [agent.act(state, np.random.default_rng(42)) for _ in range(2)]
        assert a[0] == a[1]
        r1 = agent.search(information(game.engine, state.es, state.current_player()), np.random.default_rng(1))
        r2 = agent.search(information(game.engine, state.es, state.current_player()), np.random.default_rng(1))
        np.testing.assert_array_equal(r1.means, r2.means)


def test_search_never_reads_the_hidden_cards(game):
    """Two true states that differ only in the opponent's hand and the stock get the same search, seed for seed."""
    agent = SearchAgent(game.rules, SearchConfig(rollouts=24, epsilon=0.1))
    rng = np.random.default_rng(3)
    differed = 0
    for state in decision_states(game, 25, seed=13):
        info = information(game.engine, state.es, state.current_player())
        opp, orders = determinize(info, 1, rng)
        other = completed(state, int(opp[0]), orders[0])
        if other.es.hands != state.es.hands:
            differed += 1
        assert other.es.hands[state.current_player()] == state.es.hands[state.current_player()]
        assert other.legal_actions() == state.legal_actions()
        r1 = agent.search(information(game.engine, state.es, state.current_player()), np.random.default_rng(8))
        r2 = agent.search(information(game.engine, other.es, other.current_player()), np.random.default_rng(8))
        np.testing.assert_array_equal(r1.means, r2.means)
        assert agent.act(state, np.random.default_rng(8)) == agent.act(other, np.random.default_rng(8))
    assert differed >= 15


def test_search_takes_a_sure_yaku_and_values_stop_exactly(game):
    """A hand-built position: the oya (turn 12) holds the deer and a chaff, boar and butterflies are in the pile
    and the deer's month mate lies on the field, so playing the deer scores Inoshikacho (5) whatever is hidden.
    At the DECIDE that follows, STOP's value is the same on every determinization: the points, with no spread."""
    eng = game.engine
    pile0 = [20, 24] + [2, 3, 6, 7, 10, 11, 14]
    s = eng.initial_state()._replace(
        phase=E.PLAY, oya=0, turn=12, hands=(C.mask_of([36, 15]), C.mask_of([44, 45])),
        field=C.mask_of([38, 47]), piles=(C.mask_of(pile0), C.mask_of([0, 1, 4])),
        stock=eng.deck & ~C.mask_of([36, 15, 44, 45, 38, 47, 0, 1, 4] + pile0))
    s = eng.turn_start(s)
    agent = SearchAgent(game.rules, SearchConfig(rollouts=64))
    res = agent.search(information(eng, s, 0), np.random.default_rng(0))
    assert res.action == 36
    assert res.means[res.actions.index(36)] >= 5 > res.means[res.actions.index(15)]
    s = eng.step(s, 36)
    s = eng.step(s, 16)  # draw the iris bridge: no iris on the field, so it stays there
    assert s.phase == E.DECIDE and eng.score(s, 0) == 5
    res = agent.search(information(eng, s, 0), np.random.default_rng(0))
    assert res.actions == (E.STOP, E.KOIKOI)
    assert res.means[0] == 5.0 and res.stderrs[0] == 0.0


@pytest.mark.parametrize("spec", ["koikoi(rules=koikoi_japan,rounds=8,first_oya=coin)",
                                  "koikoi(rules=fudawiki,rounds=2)", "koikoi(rules=hanafuda_flash,rounds=2)"])
def test_search_plays_every_preset_through_matches(spec):
    """koikoi_japan's 8-round match (koi-koi bonus, unlimited calls, bust) and the other presets, against greedy."""
    game = load_game(spec)
    result = arena(game, make_agent("search:6", game), GreedyAgent(), deals=2, seed=1)
    assert result.games == 4 and result.rounds >= 4


def test_determinizations_follow_the_deal_rules():
    """Under teyaku='redeal' no completion gives the opponent a dealt teyaku hand (hand + cards played); without the
    constraint some would."""
    game = load_game("koikoi(teyaku=redeal)")
    eng = game.engine
    state, rng = game.new_initial_state(), np.random.default_rng(2)
    while state.is_chance_node() or state.es.turn < 1:  # the ko's first decision: the oya played one card
        state = state.child(state.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[0])
    info = information(eng, state.es, state.current_player())
    assert info.opponent_hand_size == 7 and info.played[1 - info.player].bit_count() == 1
    opp_played = info.played[1 - info.player]
    rng = np.random.default_rng(0)
    ruled, _ = determinize(info, 30_000, rng, game.rules)
    free, _ = determinize(info, 30_000, rng)
    assert not any(eng.teyaku_points(int(h) | opp_played) for h in ruled)
    assert sum(eng.teyaku_points(int(h) | opp_played) > 0 for h in free) > 20


def test_unsupported_rules_say_so():
    with pytest.raises(ValueError, match="positive number"):
        make_agent("search:x", load_game("koikoi"))
    with pytest.raises(ValueError, match="Koi-Koi only"):
        make_agent("search", load_game("kuhn"))


def test_search_beats_greedy_on_duplicate_deals(game):
    """Strength with a small budget, fixed seed. Greedy against itself scores exactly 0 per duplicate deal (it is
    deterministic, so both seatings play the same game); the search must beat that by 2.5 standard errors of its
    per-deal mean (the variance estimate from the same deals)."""
    search = make_agent("search:100", game)
    result = arena(game, search, GreedyAgent(), deals=600, seed=2024)
    control = arena(game, GreedyAgent(name="greedy(A)"), GreedyAgent(), deals=25, seed=2024)
    assert control.return_a.mean == 0.0
    r = result.return_a
    assert r.mean > 2.5 * r.stderr, str(r)


def test_cli_and_web_reach_the_search_agent(capsys) -> None:
    from cfrlab.cli.main import main
    from cfrlab.games.koikoi.ui.terminal import run_play
    from cfrlab.web.app import build_opponent

    assert main(["arena", "koikoi", "search", "greedy", "--rollouts", "6", "--rounds", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["agent_a"] == "search(6)" and data["games"] == 6
    assert main(["arena", "koikoi_mini", "search:4", "random", "--rounds", "3"]) == 0
    answers = iter(["1"] * 30 + ["s"] * 5)
    lines: list[str] = []
    returns = run_play("koikoi", "search:6", seed=3, input_fn=lambda prompt: next(answers), print_fn=lines.append)
    assert "against search(6)" in "\n".join(lines) and returns[0] == -returns[1]
    assert build_opponent(load_game("koikoi"), "search").name.startswith("search")


def test_search_takes_a_time_per_decision(capsys) -> None:
    """``search:Tms``: T CPU milliseconds of the searching thread per decision, with or without the match
    objective; a command's --rollouts leaves a time alone; a bad time is one line and exit code 2."""
    from cfrlab.agents import with_search_options
    from cfrlab.cli.main import main

    game = load_game("koikoi")
    agent = make_agent("search:5ms", game)
    assert agent.config.seconds == 0.005 and agent.config.objective == "points" and agent.name == "search(5ms)"
    timed = make_agent("search:2.5ms:match", load_game("koikoi(rounds=12)"))
    assert timed.config.seconds == 0.0025 and timed.config.objective == "match"
    assert timed.name == "search(2.5ms, match)"
    assert with_search_options("search:20ms", 400, "match") == "search:20ms:match"
    assert with_search_options("search", 400, None) == "search:400"
    state = decision_states(game, 1, seed=3)[0]
    info = information(game.engine, state.es, state.current_player())
    res = agent.search(info, np.random.default_rng(0))
    assert res.action in info.legal and res.samples % 32 == 0 and res.samples >= 32
    assert main(["arena", "koikoi", "search:1ms", "greedy", "--rounds", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["agent_a"] == "search(1ms)"
    for bad in ("search:0ms", "search:1e3ms", "search:5ms:7", "search:5ms:mtch"):
        assert main(["arena", "koikoi", bad, "greedy", "--rounds", "1"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err and "search[:N|:Tms]" in err, err


def test_halving_spends_the_budget_stage_by_stage_and_keeps_the_best(game):
    """Sequential halving: stage s plays the ceil(K / 2^s) survivors on rollouts * K / (stages * survivors) fresh
    determinizations; the choice survived every stage and has the best mean over them; reproducible by seed."""
    agent = SearchAgent(game.rules, SearchConfig(rollouts=30, halving=True), weights=TUNED_WEIGHTS)
    seen = 0
    for state in decision_states(game, 40, seed=21):
        info = information(game.engine, state.es, state.current_player())
        k = len(info.legal)
        if k < 3:
            continue
        seen += 1
        res = agent.search(info, np.random.default_rng(5))
        stages, alive, expected = int(np.ceil(np.log2(k))), k, 0
        for _ in range(stages):
            expected += max(1, 30 * k // (stages * alive))
            alive = (alive + 1) // 2
        assert res.samples == expected
        assert res.action in info.legal
        again = agent.search(info, np.random.default_rng(5))
        assert again.action == res.action
        np.testing.assert_array_equal(again.means, res.means)
        chosen = info.legal.index(res.action)
        assert res.counts.sum() <= 30 * k  # playouts: at most the uniform budget
        assert res.counts[chosen] == res.counts.max() == res.samples
        assert res.means[chosen] == res.means[res.counts == res.counts.max()].max()
    assert seen >= 10


def test_halving_never_reads_the_hidden_cards(game):
    """As ``test_search_never_reads_the_hidden_cards``, for the cfr agent's search (halving, the blueprint's koi-koi
    table) and for halving with tuned playouts."""
    agents = [make_agent("cfr:24", game),
              SearchAgent(game.rules, SearchConfig(rollouts=24, halving=True), weights=TUNED_WEIGHTS)]
    assert_same_search_on_other_completions(game, agents, decision_states(game, 20, seed=17), seed=4)


def assert_same_search_on_other_completions(game, agents, states, seed: int) -> int:
    """Each search agent of ``agents`` gives the same values and move, seed for seed, at each of ``states`` and at
    the same state with the hidden cards completed otherwise; returns how many completions differed."""
    rng, differed = np.random.default_rng(seed), 0
    for state in states:
        info = information(game.engine, state.es, state.current_player())
        opp, orders = determinize(info, 1, rng)
        other = completed(state, int(opp[0]), orders[0])
        differed += other.es.hands != state.es.hands
        for agent in agents:
            r1 = agent.search(info, np.random.default_rng(8))
            r2 = agent.search(information(game.engine, other.es, other.current_player()), np.random.default_rng(8))
            np.testing.assert_array_equal(r1.means, r2.means)
            assert agent.act(state, np.random.default_rng(8)) == agent.act(other, np.random.default_rng(8))
    return differed
