"""Observations: recorded games replayed through observations give the same states; hidden cards do not matter."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.agents import make_agent
from cfrlab.games.koikoi import state_from_observation
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.information import information
from cfrlab.games.koikoi.rules.observation import ObservationError, observation
from cfrlab.registry import load_game

HIDDEN = ("hands", "stock", "result", "redeals")


def recorded_decisions(spec: str, games: int, seed: int):
    """Every decision state of ``games`` recorded games (greedy against uniform random, KOI-KOI half the time)."""
    game = load_game(spec)
    rng, greedy = np.random.default_rng(seed), GreedyAgent()
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
                continue
            yield s
            legal = s.legal_actions()
            if s.current_player() == 0:
                a = greedy.act(s, rng)
            else:
                a = legal[int(rng.integers(len(legal)))]
            s = s.child(a)


@pytest.mark.parametrize("spec", ["koikoi(rounds=3,first_oya=coin)", "koikoi(rules=koikoi_japan,rounds=8)",
                                  "koikoi(rules=fudawiki,rounds=2,teyaku=redeal)", "koikoi_mini"])
def test_recorded_games_replay_through_observations(spec: str) -> None:
    """At every decision: the state rebuilt from the acting player's observation equals the true one in every
    public and own part, the hidden cards form the same set, and the round's public record is the same."""
    checked = 0
    for state in recorded_decisions(spec, 15 if spec == "koikoi_mini" else 3, seed=1):
        p = state.current_player()
        obs = observation(state, p)
        rebuilt = state_from_observation(obs, state.game.rules, np.random.default_rng(checked))
        a, b = state.es, rebuilt.es
        for name in E.EngineState._fields:
            if name not in HIDDEN:
                assert getattr(a, name) == getattr(b, name), (name, spec, checked)
        assert a.hands[p] == b.hands[p]
        assert a.hands[1 - p] | a.stock == b.hands[1 - p] | b.stock
        assert a.hands[1 - p].bit_count() == b.hands[1 - p].bit_count()
        assert state.pub.endswith(rebuilt.pub) and rebuilt.pub.startswith("|F")
        assert information(state.game.engine, a, p) == information(rebuilt.game.engine, b, p)
        assert observation(rebuilt, p) == obs
        checked += 1
    assert checked > 40


def test_the_search_choice_does_not_depend_on_the_completion() -> None:
    """Different completions of the hidden cards, same agent seed: same action (and the completions do differ)."""
    agent = SearchAgent(load_game("koikoi").rules, SearchConfig(rollouts=24, epsilon=0.1))
    differed = 0
    for i, state in enumerate(recorded_decisions("koikoi", 2, seed=4)):
        obs = observation(state, state.current_player())
        one = state_from_observation(obs, "nintendo", np.random.default_rng(1000 + i))
        two = state_from_observation(obs, "nintendo", np.random.default_rng(2000 + i))
        differed += one.es.hands != two.es.hands
        assert agent.act(one, np.random.default_rng(i)) == agent.act(two, np.random.default_rng(i))
    assert differed > 10


def test_agents_act_on_rebuilt_states() -> None:
    game = load_game("koikoi")
    state = next(recorded_decisions("koikoi", 1, seed=2))
    rebuilt = state_from_observation(observation(state, state.current_player()), game.rules, 0)
    for name in ("search:8", "greedy", "random"):
        assert make_agent(name, game).act(rebuilt, np.random.default_rng(0)) in state.legal_actions()


def _first_obs() -> dict:
    state = next(s for s in recorded_decisions("koikoi", 1, seed=3) if s.es.turn >= 2)
    return observation(state, state.current_player())


@pytest.mark.parametrize("change,message", [
    (lambda o: o.pop("hand"), "missing hand"),
    (lambda o: o.update(colour=1), "unknown keys colour"),
    (lambda o: o.update(player=2), "player must be the seat"),
    (lambda o: o.update(hand=o["hand"][1:]), "cards you were dealt"),
    (lambda o: o.update(hand=o["hand"][:-1] + [o["hand"][0]]), "repeated"),
    (lambda o: o.update(hand=o["hand"][:-1] + [99]), "not in this deck"),
    (lambda o: o.update(history=o["history"] + [["fly", 3]]), "history"),
    (lambda o: o.update(history=o["history"][:-1]), "is to act"),
    (lambda o: o.update(history=[["draw", 5]] + o["history"]), "not possible here"),
    (lambda o: o.update(field=o["field"][1:]), "field disagrees"),
    (lambda o: o.update(calls=[1, 0]), "calls disagree"),
    (lambda o: o.update(round=40), "round must be"),
    (lambda o: o.update(totals="lots"), "totals must be"),
])
def test_bad_observations_say_what_is_wrong(change, message) -> None:
    obs = _first_obs()
    change(obs)
    with pytest.raises(ObservationError, match=message):
        state_from_observation(obs, "nintendo", 0)
    with pytest.raises(ObservationError, match="JSON object"):
        state_from_observation([1, 2], "nintendo")
