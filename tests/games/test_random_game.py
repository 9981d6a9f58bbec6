"""Random games: reproducible, conformant, imperfect information, zero-sum and general-sum."""

from __future__ import annotations

import pytest

from cfrlab.game import CHANCE, TERMINAL, GameDefinitionError, State
from cfrlab.games.random_game import RandomGame
from cfrlab.registry import load_game
from cfrlab.testing import check_game

SEEDS = range(40)


def walk(state: State) -> list[State]:
    """Every state of the tree, depth first."""
    out, stack = [], [state]
    while stack:
        s = stack.pop()
        out.append(s)
        stack.extend(s.child(a) for a in s.legal_actions())
    return out


def test_same_seed_same_game_and_seeds_differ() -> None:
    a, b = RandomGame(seed=7), RandomGame(seed=7)
    assert a.nodes == b.nodes and a.terminal_returns == b.terminal_returns
    assert a.fingerprint() == b.fingerprint()
    others = [RandomGame(seed=s) for s in range(8, 14)]
    assert any(g.nodes != a.nodes or g.terminal_returns != a.terminal_returns for g in others)
    assert len({g.fingerprint() for g in others} | {a.fingerprint()}) == 7


@pytest.mark.parametrize(
    "extra",
    ["", "players=3", "players=3,zero_sum=false", "depth=6,branching=2", "chance=0,hidden=1", "hidden=0", "stop=0.5"],
)
def test_conformant_over_many_seeds(extra: str) -> None:
    for seed in SEEDS:
        spec = f"random_game(seed={seed}{',' + extra if extra else ''})"
        report = check_game(load_game(spec))
        assert report.enumerated, spec


def test_default_size_is_small() -> None:
    sizes = [RandomGame(seed=s).num_histories for s in SEEDS]
    assert max(sizes) <= 121  # 1 + 3 + 9 + 27 + 81
    assert sum(sizes) / len(sizes) > 20


def test_zero_sum_and_general_sum() -> None:
    sums = []
    for seed in range(10):
        zero = RandomGame(seed=seed, players=3)
        assert all(sum(r) == 0 for r in zero.terminal_returns.values())
        general = RandomGame(seed=seed, players=3, zero_sum=False)
        assert not general.info.zero_sum
        sums.extend(sum(r) for r in general.terminal_returns.values())
        assert all(abs(x) <= general.info.max_utility for r in general.terminal_returns.values() for x in r)
    assert any(s != 0 for s in sums)


def test_imperfect_information_is_present() -> None:
    """Across seeds: infosets holding several histories, private chance and hidden actions."""
    shared_infoset = private_chance = hidden_action = False
    for seed in SEEDS:
        game = RandomGame(seed=seed)
        histories_per_key: dict[str, int] = {}
        for state in walk(game.new_initial_state()):
            player = state.current_player()
            if player >= 0:
                key = state.information_state_key(player)
                histories_per_key[key] = histories_per_key.get(key, 0) + 1
        shared_infoset |= any(n > 1 for n in histories_per_key.values())
        for node in game.nodes.values():
            if node.actor == CHANCE:
                private_chance |= any(node.seen_by) and not all(node.seen_by)
            else:
                hidden_action |= not all(node.seen_by)
    assert shared_infoset and private_chance and hidden_action


def test_key_tokens_follow_observations() -> None:
    game = RandomGame(seed=1, chance=1.0, hidden=0.0)  # every step public chance
    state = game.new_initial_state()
    while not state.is_terminal():
        state = state.child(state.legal_actions()[-1])
    tokens = state.information_state_key(0).split(":", 1)[1].split()
    assert tokens and all(t.startswith("C") and t[1:].isdigit() for t in tokens)
    assert state.current_player() == TERMINAL
    # With everything public, both players' keys differ only in the prefix.
    assert state.information_state_key(0)[2:] == state.information_state_key(1)[2:]


def test_chance_probabilities_are_positive_and_normalised() -> None:
    for seed in range(10):
        for state in walk(RandomGame(seed=seed).new_initial_state()):
            if state.is_chance_node():
                probs = [p for _, p in state.chance_outcomes()]
                assert all(p > 0 for p in probs)
                assert sum(probs) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"players": 1}, "players must be from 2 to 64"),
        ({"players": 2.5}, "players must be an integer >= 2"),
        ({"branching": 0}, "branching must be from 1 to 64"),
        ({"hidden": 1.5}, "hidden must be from 0 to 1"),
        ({"hidden": "x"}, "hidden must be a probability"),
        ({"zero_sum": 1}, "zero_sum must be true or false"),
        ({"size": 3}, "unknown parameter"),
    ],
)
def test_invalid_parameters(params: dict[str, object], message: str) -> None:
    with pytest.raises(GameDefinitionError, match=message):
        RandomGame(**params)
