"""A game family of a third party, as a package of its own would write it: a game, two agents, an option of the
generic commands, a view, a precomputation and a refusal of ``solve``.

Take-away: the dealer sets a pile of 4, 5 or 6 stones; the players take 1 or 2 stones in turn, and whoever takes
the last stone wins a chip from the other. The heuristic agent ("sly") leaves a multiple of 3 when it can, which
wins every pile that is not a multiple of 3 for the player to move. The Monte Carlo agent ("mc[:N]") plays each
legal action out N times at random and takes the best; the family's ``--playouts`` option of ``play`` and ``arena``
sets N where the name leaves it out. Before ``solve`` works, the family's ``prepare`` solves the piles by backward
induction (the table ``sly`` plays from); its ``refusal`` turns sampled MCCFR away (a 20-node tree is solved
exactly by a full-tree algorithm).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cfrlab.agents.spec import AgentSpec
from cfrlab.game import CHANCE, TERMINAL, Game, GameInfo, State
from cfrlab.registry import AgentKind, CommandOption, GameFamily, Solvers, Views, register_family
from cfrlab.web.view_base import Event, TableView, actor, result_sentence

PILES = (4, 5, 6)


class TakeAwayState(State):
    def __init__(self, game: Game, pile: int | None = None, taken: tuple[int, ...] = ()) -> None:
        self.game, self.pile, self.taken = game, pile, taken

    @property
    def left(self) -> int:
        return (self.pile or 0) - sum(self.taken)

    def current_player(self) -> int:
        if self.pile is None:
            return CHANCE
        return TERMINAL if self.left == 0 else len(self.taken) % 2

    def legal_actions(self) -> list[int]:
        if self.pile is None:
            return list(PILES)
        return [n for n in (1, 2) if n <= self.left]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.uniform_chance_outcomes()

    def _apply(self, action: int) -> State:
        if self.pile is None:
            return TakeAwayState(self.game, action)
        return TakeAwayState(self.game, self.pile, (*self.taken, action))

    def information_state_key(self, player: int | None = None) -> str:
        return f"{self.pile}:{''.join(map(str, self.taken))}"

    def returns(self) -> list[float]:
        if self.current_player() != TERMINAL:
            return [0.0, 0.0]
        winner = (len(self.taken) - 1) % 2
        return [1.0, -1.0] if winner == 0 else [-1.0, 1.0]

    def action_to_string(self, action: int) -> str:
        return f"pile of {action}" if self.pile is None else f"take {action}"


class TakeAway(Game):
    """Take-away: take 1 or 2 stones in turn; the last stone wins."""

    name = "takeaway"

    @property
    def info(self) -> GameInfo:
        return GameInfo(num_players=2, max_actions=7, max_chance_outcomes=7, min_utility=-1.0, max_utility=1.0,
                        zero_sum=True)

    def new_initial_state(self) -> State:
        return TakeAwayState(self)


def winning_piles(most: int) -> dict[int, bool]:
    """Whether the player to move wins a pile of n stones, n = 0..most, by backward induction."""
    wins = {0: False}
    for n in range(1, most + 1):
        wins[n] = any(not wins[n - k] for k in (1, 2) if k <= n)
    return wins


def prepare(game: TakeAway, console: Any) -> None:
    """The family's ``prepare``: the piles solved once, before a command's work."""
    game.winning = winning_piles(max(PILES))
    console.print(f"Take-away: the mover wins the piles {sorted(n for n, w in game.winning.items() if w)}")


def refusal(game: Game, algo: str) -> str | None:
    """The family's ``refusal`` of ``solve``: sampled MCCFR on a tree this small only adds noise."""
    if algo in ("outcome", "external"):
        return f"{game.spec()} has 20 nodes: solve it exactly with a full-tree algorithm (cfr+), not {algo}"
    return None


class SlyAgent:
    """Leaves a pile the mover loses (``winning_piles``: a multiple of 3) when it can, else takes 1."""

    name = "sly"
    lost = {n for n, wins in winning_piles(max(PILES)).items() if not wins}

    def act(self, state: TakeAwayState, rng: np.random.Generator) -> int:
        return next((n for n in state.legal_actions() if state.left - n in self.lost), 1)


def make_sly(spec: AgentSpec, game: Game) -> SlyAgent:
    return SlyAgent()


class MonteCarloAgent:
    """Plays each legal action out ``playouts`` times, both players uniform at random, and takes the best mean."""

    def __init__(self, playouts: int, name: str) -> None:
        self.playouts, self.name = playouts, name

    def act(self, state: State, rng: np.random.Generator) -> int:
        me = state.current_player()

        def value(action: int) -> float:
            total = 0.0
            for _ in range(self.playouts):
                s = state.child(action)
                while not s.is_terminal():
                    legal = s.legal_actions()
                    s = s.child(legal[int(rng.integers(len(legal)))])
                total += s.returns()[me]
            return total

        return max(state.legal_actions(), key=value)


def make_mc(spec: AgentSpec, game: Game) -> MonteCarloAgent:
    return MonteCarloAgent(spec.count or 20, spec.name)


class TakeAwayView(TableView):
    """The pile, and who took what."""

    family = "takeaway"
    display_name = "Take-away"

    def view(self, state: State, seat: int) -> dict[str, Any]:
        return {"stones_left": state.left}

    def describe(self, state: State, action: int, seat: int) -> Event | None:
        if state.is_chance_node():
            return {"actor": "dealer", "text": f"The dealer sets a pile of {action} stones."}
        who = actor(state.current_player(), seat)
        return {"actor": who, "text": f"{'You take' if who == 'you' else 'The opponent takes'} {action}."}

    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        returns = [float(r) for r in state.returns()]
        kind, sentence = result_sentence(returns[seat], self.unit)
        return {"returns": returns, "your_return": returns[seat], "kind": kind, "text": sentence}


FAMILY = GameFamily(
    name="takeaway",
    title="Take-away",
    games={"takeaway": TakeAway},
    agents={"sly": AgentKind(make_sly, about="leaves a multiple of 3"),
            "mc": AgentKind(make_mc, takes=("N",), fills=("count",), about="random playouts per action")},
    options=(CommandOption("--playouts", ("play", "arena"), "Take-away: playouts per action of an mc agent that "
                           "gives none.", type="int", low=1, sets="agent.count"),),
    views=Views(web=TakeAwayView, default_opponent="sly"),
    solvers=Solvers(refusal=refusal),
    prepare=prepare,
)
register_family(FAMILY)  # `cfrlab -g tests/plugins/toy_family.py play takeaway` (the test registers it itself too)
