"""Game registry: spec parsing, loading, round trips and errors that say how to fix them."""

from __future__ import annotations

from typing import Any

import pytest

from cfrlab import registry
from cfrlab.game import GameDefinitionError
from cfrlab.game_spec import parse_spec, parse_value
from cfrlab.games.kuhn import KuhnPoker
from cfrlab.registry import list_games, load_game, register_game


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("kuhn", ("kuhn", {})),
        ("  kuhn  ", ("kuhn", {})),
        ("kuhn()", ("kuhn", {})),
        ("kuhn(players=3)", ("kuhn", {"players": 3})),
        ("leduc( ranks = 4 , suits=3 )", ("leduc", {"ranks": 4, "suits": 3})),
        ("leduc(raise_sizes=[1, 2.5])", ("leduc", {"raise_sizes": [1, 2.5]})),
        (
            "random_game(zero_sum=false,hidden=0.25,seed=7)",
            ("random_game", {"zero_sum": False, "hidden": 0.25, "seed": 7}),
        ),
        ("x(a=[[1,2],[3]],b='text',c=True)", ("x", {"a": [[1, 2], [3]], "b": "text", "c": True})),
        ("openspiel:kuhn_poker(players=3)", ("openspiel:kuhn_poker", {"players": 3})),
        (
            "openspiel:turn_based_simultaneous_game(game=goofspiel(num_cards=3,imp_info=true))",
            ("openspiel:turn_based_simultaneous_game", {"game": "goofspiel(num_cards=3,imp_info=true)"}),
        ),
    ],
)
def test_parse_spec(spec: str, expected: tuple[str, dict[str, Any]]) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [("3", 3), ("-2", -2), ("0.5", 0.5), ("1e-3", 1e-3), ("TRUE", True), ("false", False), ("[]", []), ("abc", "abc")],
)
def test_parse_value(text: str, value: Any) -> None:
    parsed = parse_value(text)
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("kuhn(players)", "must be key=value"),
        ("kuhn((", "cannot parse game spec"),
        ("9lives", "cannot parse game spec"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(GameDefinitionError, match=message):
        parse_spec(spec)


def test_builtins_are_listed() -> None:
    assert {"kuhn", "leduc", "random_game"} <= set(list_games())


def test_load_game_with_keyword_overrides() -> None:
    game = load_game("kuhn(players=4)", players=3)
    assert isinstance(game, KuhnPoker) and game.num_players == 3
    assert load_game("leduc", ranks=4).spec() == load_game("leduc(ranks=4)").spec()


@pytest.mark.parametrize(
    "spec", ["kuhn", "kuhn(players=3)", "leduc(ranks=4,raise_sizes=[1,3])", "random_game(seed=5,hidden=0.25)"]
)
def test_spec_round_trip(spec: str) -> None:
    game = load_game(spec)
    again = load_game(game.spec())
    assert again.spec() == game.spec()
    assert again.fingerprint() == game.fingerprint()


def test_fingerprints_tell_games_apart() -> None:
    prints = {load_game(s).fingerprint() for s in ["kuhn", "kuhn(players=3)", "leduc", "leduc(ranks=4)", "random_game"]}
    assert len(prints) == 5
    # Defaults written out or left implicit name the same game.
    assert load_game("leduc").fingerprint() == load_game("leduc(ranks=3,suits=2,max_raises=2)").fingerprint()


def test_unknown_game_lists_the_known_ones() -> None:
    with pytest.raises(GameDefinitionError, match=r"unknown game 'poker'; known games: .*kuhn.*leduc.*openspiel:NAME"):
        load_game("poker")


def test_unknown_parameter_lists_the_known_ones() -> None:
    with pytest.raises(GameDefinitionError, match=r"unknown parameter\(s\) \['player'\]; known: \['players'\]"):
        load_game("kuhn(player=3)")


def test_register_callable_and_lazy_string(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._REGISTRY, "my_kuhn", lambda **p: KuhnPoker(**p))
    monkeypatch.setitem(registry._REGISTRY, "lazy_kuhn", "cfrlab.games.kuhn:KuhnPoker")
    assert load_game("my_kuhn(players=3)").num_players == 3
    assert isinstance(load_game("lazy_kuhn"), KuhnPoker)
    assert {"my_kuhn", "lazy_kuhn"} <= set(list_games())


def test_register_game_adds_to_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register_game("kuhn_again", KuhnPoker)
    assert load_game("kuhn_again").num_players == 2


def test_every_game_describes_itself_and_each_parameter() -> None:
    from cfrlab.registry import describe_games

    for row in describe_games():
        assert row["description"], row["name"]
        assert all(param["help"] for param in row["parameters"]), (row["name"], row["parameters"])
