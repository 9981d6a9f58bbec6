"""``check_game`` over every built-in game, and over a toy game broken in each way it must catch."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab import registry
from cfrlab.game import CHANCE, TERMINAL, Game, GameInfo, IllegalActionError, State
from cfrlab.registry import list_games, load_game
from cfrlab.testing import assert_same_game, check_game

# Small instances of the built-ins; a game registered later without an entry here is
# checked with its defaults, walked up to a few thousand states and then by playouts.
SMALL: dict[str, list[str]] = {
    "kuhn": ["kuhn", "kuhn(players=3)", "kuhn(players=4)"],
    "leduc": ["leduc", "leduc(ranks=4,max_raises=1)", "leduc(suits=1,ranks=4,raise_sizes=[1,2])"],
    "random_game": ["random_game(seed=3)", "random_game(seed=4,players=3,zero_sum=false,depth=5)"],
    # the exact abstraction needs a small deck; two rounds of a 16-card deck with the real betting
    "holdem_suitiso": ["holdem_suitiso(ranks=3,suits=3,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],"
                       "max_raises=[1,1])"],
    "holdem_ehs2": ["holdem_ehs2(ranks=4,suits=4,board_cards=[0,3],raise_sizes=[10,10],max_raises=[3,4],buckets=3)"],
}
BUILT_IN_SPECS = [spec for name in list_games() for spec in SMALL.get(name, [name])]


@pytest.mark.parametrize("spec", BUILT_IN_SPECS)
def test_built_in_game_is_conformant(spec: str) -> None:
    check_game(load_game(spec), max_states=12_000, playouts=40, rng=0)


def test_playouts_cover_games_too_big_to_enumerate(leduc: Game) -> None:
    report = check_game(leduc, max_states=300, playouts=50, rng=1)
    assert not report.enumerated
    assert report.states > 300


# -- a toy game that can be broken on purpose ------------------------------------------

FLAWS = {
    "chance_sum": "must sum to 1",
    "negative_prob": "finite and >= 0",
    "mutating_child": "mutated its parent",
    "illegal_accepted": "was accepted",
    "illegal_wrong_error": "must raise cfrlab.game.IllegalActionError",
    "illegal_corrupts": "changed the state",
    "shared_keys": "distinct across players",
    "imperfect_recall": "perfect recall broken",
    "key_legal_mismatch": "has legal actions",
    "terminal_actions": "terminal state must have no legal actions",
    "returns_length": "one value per player",
    "not_zero_sum": "declares zero_sum",
    "out_of_bounds": "leave the declared bounds",
    "bad_player": r"current_player\(\) must be",
    "bad_spec": "fingerprint",
    "bad_sample": "sample_chance returned",
}


class ToyState(State):
    """Chance deals card 0..2 to player 0 only; p0 acts, p1 acts, p0 acts again after p1's 1.

    Correct unless ``game.flaw`` names one of ``FLAWS``. Mutable on purpose (a list
    history), so that the mutation flaws are possible.
    """

    def __init__(self, game: ToyGame, card: int | None = None, hist: list[int] | None = None) -> None:
        self.game = game
        self.card = card
        self.hist = list(hist or [])

    @property
    def flaw(self) -> str:
        return self.game.flaw

    def current_player(self) -> int:
        if self.card is None:
            return CHANCE
        n = len(self.hist)
        if n == 0:
            return 0
        if n == 1:
            return 2 if self.flaw == "bad_player" else 1
        if n == 2 and self.hist[1] == 1:
            return 0
        return TERMINAL

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == CHANCE:
            return [0, 1, 2]
        if player == TERMINAL:
            return [0] if self.flaw == "terminal_actions" else []
        if self.flaw == "key_legal_mismatch" and player != 0 and self.card == 2:
            return [0, 1, 2]  # depends on a card player 1 cannot see
        return [0, 1]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.game.sample_only:
            raise NotImplementedError("this chance node can only be sampled")
        if self.flaw == "chance_sum":
            return [(0, 0.3), (1, 0.3), (2, 0.3)]
        if self.flaw == "negative_prob":
            return [(0, 0.6), (1, 0.5), (2, -0.1)]
        return [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]

    def sample_chance(self, rng: np.random.Generator) -> int:
        return 7 if self.flaw == "bad_sample" else int(rng.integers(3))

    def child(self, action: int) -> State:
        if self.flaw == "illegal_accepted":
            return self._apply(action)
        if action not in self.legal_actions():
            if self.flaw == "illegal_wrong_error":
                raise ValueError("bad action")
            if self.flaw == "illegal_corrupts":
                self.hist.append(action)
            raise IllegalActionError(f"illegal {action}")
        return self._apply(action)

    def _apply(self, action: int) -> State:
        if self.card is None:
            return ToyState(self.game, action, [])
        if self.flaw == "mutating_child":
            self.hist.append(action)
            return ToyState(self.game, self.card, self.hist)
        return ToyState(self.game, self.card, [*self.hist, action])

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        text = "".join(map(str, self.hist))
        if player == 0:
            if self.flaw == "imperfect_recall" and len(self.hist) == 2:
                text = "?" + text[1:]  # forgets its own first action
            return f"0:{self.card}:{text}"
        if self.flaw == "shared_keys":
            return f"0:{self.card}:{text[1:]}"  # no player of its own, and player 0's format
        return f"1:?:{text}"

    def returns(self) -> list[float]:
        if self.current_player() != TERMINAL:
            return [0.0, 0.0]
        x = float((self.card - 1) * (1 + sum(self.hist)))
        if self.flaw == "returns_length":
            return [x]
        if self.flaw == "not_zero_sum":
            return [x, -x + 1.0]
        if self.flaw == "out_of_bounds":
            return [100.0 * x, -100.0 * x]
        return [x, -x]

    def __repr__(self) -> str:
        return f"ToyState(card={self.card}, hist={self.hist})"


class ToyGame(Game):
    name = "toy_conformance"

    def __init__(self, flaw: str = "none", sample_only: bool = False) -> None:
        super().__init__(flaw=flaw, sample_only=sample_only)
        self.flaw = flaw
        self.sample_only = sample_only

    @property
    def info(self) -> GameInfo:
        return GameInfo(
            num_players=2, max_actions=3, max_chance_outcomes=3, min_utility=-10.0, max_utility=10.0, zero_sum=True
        )

    def new_initial_state(self) -> State:
        return ToyState(self)

    def spec(self) -> str:
        return self.name if self.flaw == "bad_spec" else super().spec()


@pytest.fixture(autouse=True)
def _register_toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._REGISTRY, ToyGame.name, ToyGame)


def test_correct_toy_game_passes() -> None:
    report = check_game(ToyGame())
    assert report.enumerated
    assert (report.states, report.terminals, report.chance_nodes) == (34, 18, 1)
    assert report.infosets == {0: 9, 1: 2}


def test_sample_only_chance_falls_back_to_playouts() -> None:
    report = check_game(ToyGame(sample_only=True), playouts=20)
    assert not report.enumerated
    assert report.terminals == 20


@pytest.mark.parametrize("flaw", sorted(FLAWS))
def test_check_game_catches(flaw: str) -> None:
    game = ToyGame(flaw=flaw, sample_only=flaw == "bad_sample")
    with pytest.raises(AssertionError, match=FLAWS[flaw]):
        check_game(game, playouts=20)


@pytest.mark.parametrize("flaw", ["not_zero_sum", "imperfect_recall", "key_legal_mismatch"])
def test_playouts_catch_flaws_too(flaw: str) -> None:
    with pytest.raises(AssertionError, match=FLAWS[flaw]):
        check_game(ToyGame(flaw=flaw), max_states=1, playouts=200, rng=0)


def test_unregistered_game_fails_the_spec_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(registry._REGISTRY, ToyGame.name)
    with pytest.raises(AssertionError, match="register the game"):
        check_game(ToyGame())
    check_game(ToyGame(), check_spec=False)


@pytest.mark.parametrize(
    ("flaw", "message"),
    [("not_zero_sum", "returns"), ("imperfect_recall", "matches both"), ("key_legal_mismatch", "legal actions")],
)
def test_assert_same_game_catches_differences(flaw: str, message: str) -> None:
    assert assert_same_game(ToyGame(), ToyGame()) == 34
    with pytest.raises(AssertionError, match=message):
        assert_same_game(ToyGame(), ToyGame(flaw=flaw))
