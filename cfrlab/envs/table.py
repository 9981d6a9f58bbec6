"""What the PettingZoo and Gymnasium environments share: the game, its observation encoding and spaces, chance
drawn from the episode's seeded stream, observations with action masks, and ``render()``'s text.

An observation is PettingZoo's classic-games dict: ``{"observation": float32[size], "action_mask": int8[max_actions]}``
(the mask is 1 at the legal actions of the seat to act, all 0 for the others). Chance moves are never a seat's
turn: ``advance`` draws them from the episode's generator (through ``state.sample_chance`` where a game has it, as
the arena does), so one seed gives one deal. A game that ends before anyone decides (a Koi-Koi round won by a
hand dealt) is dealt again, up to ``MAX_REDEALS`` times.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from cfrlab.envs.encoding import Encoding, encoding_for
from cfrlab.eval.arena import sample_chance
from cfrlab.game import Game, State
from cfrlab.registry import family_of, load_game, match_params, resolve

MAX_REDEALS = 1000
"""Deals tried for one episode before a game that never reaches a decision is refused."""
RENDER_MODES = ("human", "ansi")


def build_game(game: str | Game, match: bool = False, **params: Any) -> Game:
    """``game`` itself, or the game a name or spec names with ``params`` (rule sets, ``rounds``, ...) as
    ``load_game`` takes them; ``match=True`` makes it a whole match (its family's ``Rounds.match``: Koi-Koi's 12
    rounds under its preset, a coin for the first dealer)."""
    if isinstance(game, Game):
        if params or match:
            raise ValueError("parameters and match=True apply to a game given by name or spec, not to a Game")
        return game
    if match:
        from cfrlab.game_spec import parse_spec

        name, parsed = parse_spec(game)
        return load_game(name, **match_params(name, {**parsed, **params}))
    return load_game(game, **params)


class Table:
    """A game seen by its seats: spaces, the chance walk, observations, masks and the text view."""

    def __init__(self, game: Game, observation: str | Encoding = "auto") -> None:
        self.game = game
        self.encoding = encoding_for(game, observation)
        self.num_actions = game.info.max_actions
        box = spaces.Box(self.encoding.low, self.encoding.high, (self.encoding.size,), np.float32)
        mask = spaces.Box(0, 1, (self.num_actions,), np.int8)
        self.observation_space = spaces.Dict({"observation": box, "action_mask": mask})
        self.action_space = spaces.Discrete(self.num_actions)

    def advance(self, state: State, rng: np.random.Generator) -> State:
        """``state`` after the chance moves that follow it, drawn from ``rng``."""
        while state.is_chance_node():
            state = state.child(sample_chance(state, rng))
        return state

    def deal(self, rng: np.random.Generator) -> tuple[State, list[list[float]]]:
        """A new game at its first decision, and the returns of the deals that ended before one (dealt again)."""
        ended: list[list[float]] = []
        for _ in range(MAX_REDEALS):
            state = self.advance(self.game.new_initial_state(), rng)
            if not state.is_terminal():
                return state, ended
            ended.append([float(r) for r in state.returns()])
        raise ValueError(f"{self.game.spec()} ended before any decision in {MAX_REDEALS} deals")

    def mask(self, state: State, player: int) -> NDArray[np.int8]:
        """1 at the legal actions when ``player`` acts at ``state``, else all 0."""
        out = np.zeros(self.num_actions, dtype=np.int8)
        if state.current_player() == player:
            out[state.legal_actions()] = 1
        return out

    def observe(self, state: State, player: int) -> dict[str, NDArray[Any]]:
        """``player``'s observation of ``state`` (module docstring)."""
        return {"observation": self.encoding.encode(state, player), "action_mask": self.mask(state, player)}

    def key(self, state: State, player: int) -> str | None:
        """``player``'s information-state key at ``state`` (None where the game defines none)."""
        try:
            return state.information_state_key(player)
        except (ValueError, NotImplementedError):
            return None

    def text(self, state: State, seat: int) -> str:
        """What ``seat`` sees of ``state`` as text: the family's ``views.text`` (Koi-Koi's terminal screen), else
        the family's table view as ``cfrlab play`` prints it, and the result at the end."""
        family = family_of(self.game)
        if family is not None and family.views.text is not None:
            text: str = resolve(family.views.text)(state, seat)
            return text
        from cfrlab.cli.table_game import render_view
        from cfrlab.web.generic_view import GenericView
        from cfrlab.web.view_base import TableView, UnsupportedGameError
        from cfrlab.web.views import table_view

        try:
            view: TableView = table_view(self.game)
        except UnsupportedGameError:  # a variant the family's view does not show (three-player Kuhn)
            view = GenericView(self.game)
        lines = [render_view(view.view(state, seat), view.unit)]
        if state.is_terminal():
            lines.append(str(view.outcome(state, seat).get("text", "")))
        return "\n".join(lines)


def check_render_mode(render_mode: str | None) -> str | None:
    """``render_mode`` when it is one of ``RENDER_MODES`` or None; ``ValueError`` otherwise."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {render_mode!r}")
    return render_mode
