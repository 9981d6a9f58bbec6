"""OOS on Koi-Koi matches: the current round searched as a game of its own (``games.koikoi.rules.match_round``), its
ends valued by points or by the match-win probability; hidden cards unread in a later round; same seed, same
moves; the CLI plays matches and refuses bad options in one line."""

from __future__ import annotations

import io

import numpy as np
import pytest

from cfrlab.agents import make_agent
from cfrlab.agents.oos import OOSAgent
from cfrlab.eval.arena import arena
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.match import MatchTable, RoundOutcomes, backward_induction
from cfrlab.games.koikoi.rules.match_round import MatchRoundGame, round_key, round_position
from cfrlab.games.koikoi.rules.observation import observation, state_from_observation
from cfrlab.registry import load_game


def _table(rules):
    """A match table from a small stated outcome distribution (oya +3 / ko +2 / draw), by backward induction."""
    outcomes = RoundOutcomes(np.array([3, -2, 0]), np.array([True, False, True]), np.array([0.5, 0.3, 0.2]))
    return MatchTable(backward_induction([outcomes], rules.rounds, 60), 60, rules.rounds)


def _later_decision(game, seed, round_index):
    """A decision with two legal actions or more in round ``round_index`` or later of a match, on a random path
    (the round dealt once: no misdeal before it)."""
    rng = np.random.default_rng(seed)
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            legal = state.legal_actions()
            if state.es.round >= round_index and len(legal) >= 2 and state.es.turn >= 3 and state.es.redeals == 0:
                return state
            state = state.child(legal[int(rng.integers(len(legal)))])


def _start_of_round(game, seed, round_index):
    """The deal node of round ``round_index`` of a match, on a random path."""
    rng = np.random.default_rng(seed)
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.es.round == round_index and state.es.phase == E.DEAL:
                return state, rng
            state = state.child(state.sample_chance(rng) if state.is_chance_node() else
                                state.legal_actions()[int(rng.integers(len(state.legal_actions())))])


@pytest.mark.parametrize("spec,objective,seeds", [
    ("koikoi_mini(rounds=3)", "points", 6), ("koikoi_mini(rounds=3)", "match", 6),
    ("koikoi(rules=fudawiki,rounds=3,first_oya=coin)", "match", 4), ("koikoi(rounds=3)", "points", 3)])
def test_a_round_game_plays_the_match_round_and_values_its_end(spec, objective, seeds):
    """The same actions from a round's deal in the match and in its round game end that round alike, with the
    same keys (misdeals, an earlier round's teyaku and the first-dealer coin cut away); the round game's returns
    are the round's points, or W_0 - W_1 of the table after the round (exact where the match ends)."""
    match = load_game(spec)
    table = _table(match.rules)
    for seed in range(seeds):
        state, rng = _start_of_round(match, seed, 1 + seed % 2)
        round_game = MatchRoundGame(match, round_position(state), objective, table)
        mirror = round_game.new_initial_state()
        start, net_before = state.es.round, state.es.net
        while state.es.round == start and not state.is_terminal():
            action = state.sample_chance(rng) if state.is_chance_node() else \
                state.legal_actions()[int(rng.integers(len(state.legal_actions())))]
            state, mirror = state.child(action), mirror.child(action)
            if state.es.round == start and not state.is_terminal():
                assert mirror.information_state_key(0) == round_key(state.information_state_key(0))
        assert mirror.is_terminal() and mirror.es.totals == state.es.totals
        points = mirror.es.net
        assert points == state.es.net - net_before
        lead = state.es.totals[0] - state.es.totals[1]
        if objective == "points":
            assert mirror.returns() == [float(points), float(-points)]
        elif state.is_terminal():  # the last round: the match result
            assert mirror.returns()[0] == pytest.approx(np.sign(lead))
        else:
            w = table.value(match.rules.rounds - state.es.round, lead, state.es.oya == 0)
            assert mirror.returns() == pytest.approx([2 * w - 1, 1 - 2 * w])


def test_round_key_keeps_the_current_round_only():
    key = "1|H3x5H6H9|o1|F10P1D2SX30|F40P4C5D6K"
    assert round_key(key) == "1|H9|X30|F40P4C5D6K"
    assert round_key("0|xaHb|o0Xc|FdP3") == "0|xaHb|Xc|FdP3"
    with pytest.raises(ValueError, match="no round"):
        round_key("0||o1")


@pytest.mark.parametrize("spec,objective", [("koikoi(rounds=12)", "points"), ("koikoi(rounds=12)", "match"),
                                            ("koikoi(rules=fudawiki,rounds=12)", "points")])
def test_hidden_cards_unread_in_a_later_round_of_a_match(spec, objective):
    """A decision in round 3 or later of a full Koi-Koi match, and the same player's observation completed with
    other hidden cards (a state holding only this round's history): the same search, the same move; rounds valued
    by their points search in numba, whether the month matters (fudawiki's tsukifuda) or not."""
    game = load_game(spec)
    state = _later_decision(game, 5, 2)
    player = state.current_player()
    other = state_from_observation(observation(state, player), game.rules, rng=3)
    assert other.es.hands[1 - player] != state.es.hands[1 - player]
    assert round_key(other.information_state_key(player)) == round_key(state.information_state_key(player))
    table = _table(game.rules)
    agents = [OOSAgent(game, samples=40, objective=objective, table=table) for _ in range(2)]
    moves = {agent.act(s, np.random.default_rng(11)) for agent, s in zip(agents, (state, other))}
    assert len(moves) == 1 and moves <= set(state.legal_actions())
    key = round_key(state.information_state_key(player))
    assert agents[0].solver.policy_at(key) and agents[0].solver.policy_at(key) == agents[1].solver.policy_at(key)
    assert state.es.round >= 2 and agents[0].solver.path == "koikoi"


def test_same_seed_same_moves_along_matches_and_tables_kept_within_a_round():
    game = load_game("koikoi_mini(rounds=4,first_oya=coin)")
    table = _table(game.rules)
    results = [arena(game, OOSAgent(game, samples=30, objective="match", table=table), make_agent("greedy", game),
                     deals=3, seed=2).to_dict() for _ in range(2)]
    assert results[0] == results[1] and results[0]["rounds"] >= 12
    state = _later_decision(load_game("koikoi(rounds=12)"), 1, 1)
    full = OOSAgent(load_game("koikoi(rounds=12)"), samples=20)
    full.act(state, np.random.default_rng(0))
    solver = full.solver
    nxt = state.child(state.legal_actions()[0])
    while not nxt.is_terminal() and (nxt.is_chance_node() or nxt.current_player() != state.current_player()):
        nxt = nxt.child(nxt.sample_chance(np.random.default_rng(1)) if nxt.is_chance_node() else
                        nxt.legal_actions()[0])
    assert not nxt.is_terminal() and nxt.es.round == state.es.round
    stored = len(solver.regret_table())
    full.act(nxt, np.random.default_rng(0))
    assert full.solver is solver and len(solver.regret_table()) > stored  # the same round: memory reused


def test_play_and_arena_play_matches_against_oos(capsys, monkeypatch):
    from cfrlab.cli.main import main

    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    assert main(["play", "koikoi_mini", "--opponent", "oos", "--rounds", "3", "--seconds", "0.01", "--seed",
                 "1"]) == 0
    assert "oos:0.01s" in capsys.readouterr().out
    assert main(["arena", "koikoi_mini", "oos:0.01", "greedy", "--match", "--rounds", "1", "--objective", "match",
                 "--json"]) == 0
    assert '"agent_a": "oos:0.01s:match"' in capsys.readouterr().out


@pytest.mark.parametrize("argv,message", [
    (["arena", "kuhn", "oos:0.1:match", "random"], "match objective plays Koi-Koi"),
    (["arena", "random_game", "oos:0.1:pst", "random"], "defines no public states"),
    (["arena", "kuhn", "oos:0.1:xyz", "random"], "oos:SECONDS"),
    (["arena", "koikoi_mini", "oos:0:match", "greedy", "--match"], "oos:SECONDS"),
    (["arena", "koikoi_mini", "oos:inf:pst", "greedy"], "oos:SECONDS"),
    (["arena", "koikoi_mini", "oos", "greedy", "--objective", "wins"], "--objective"),
    (["play", "koikoi", "--opponent", "oos", "--rounds", "12", "--seconds", "nan"], "seconds"),
    (["play", "koikoi", "--opponent", "oos", "--objective", "most"], "--objective"),
    (["solve", "kuhn", "--algo", "oos", "--delta", "2", "-n", "1"], "delta"),
    (["solve", "kuhn", "--algo", "oos", "--delta", "nan", "-n", "1"], "delta"),
])
def test_hostile_oos_options_are_refused_in_one_line(argv, message, capsys):
    from cfrlab.cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err, err


def test_koikoi_public_state_is_what_both_players_see():
    """Both players' keys share the public state; another completion of the hidden cards keeps it; the next
    public event changes it."""
    game = load_game("koikoi")
    state = _later_decision(game, 3, 0)
    player = state.current_player()
    public = state.public_state_key()
    assert state.information_state_key(player).endswith("|" + public)
    assert state.information_state_key(1 - player).endswith("|" + public)
    other = state_from_observation(observation(state, player), game.rules, rng=9)
    assert other.public_state_key() == public and other.es.hands[1 - player] != state.es.hands[1 - player]
    assert state.child(state.legal_actions()[0]).public_state_key() != public


def test_the_web_page_plays_a_match_against_oos():
    pytest.importorskip("fastapi")
    from tests.web.test_api import act, client_for, start

    spec = "koikoi_mini(rounds=3)"
    client = client_for(spec, OOSAgent(load_game(spec), samples=20, objective="match",
                                       table=_table(load_game(spec).rules)))
    snap = start(client, seat=1, seed=4)
    for _ in range(40):
        if snap["finished"]:
            break
        snap = act(client, snap, snap["legal_actions"][0]["id"])
    assert snap["finished"]


def test_a_misdeal_in_a_later_round_is_part_of_the_round():
    """Round 2 of a match dealt twice (a field of four cards of one month is redealt): the round's key keeps the
    misdeal, the round game reaches it, and the match-objective agent searches through both deals."""
    from cfrlab.games.koikoi.rules import cards as C

    match = load_game("koikoi(rounds=3)")
    state, rng = _start_of_round(match, 0, 1)
    eng = match.engine
    field = C.MONTH_MASK[0] | C.mask_of([4, 5, 8, 9])
    rest = [c for c in eng.deck_cards if not field >> c & 1]
    misdeal = eng.encode_deal(C.mask_of(rest[:8]), field, C.mask_of(rest[8:16]))
    mirror = MatchRoundGame(match, round_position(state), "match", _table(match.rules)).new_initial_state()
    state, mirror = state.child(misdeal), mirror.child(misdeal)
    assert state.es.redeals == 1 and state.es.round == 1
    while state.is_chance_node() or state.es.turn < 3:
        action = state.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[0]
        state, mirror = state.child(action), mirror.child(action)
    player = state.current_player()
    key = round_key(state.information_state_key(player))
    assert key == mirror.information_state_key(player) and "X" in key.split("|", 2)[2]
    agent = OOSAgent(match, samples=30, objective="match", table=_table(match.rules))
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
    # the numba round walk searches it: its target's opening run holds both deals
    assert agent.solver.path == "koikoi" and agent.solver.store.aim.length == 2 and agent.solver.policy_at(key)
