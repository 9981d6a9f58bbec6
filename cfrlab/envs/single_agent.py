"""One seat of a cfrlab game as a Gymnasium environment, the other seats played by cfrlab agents by name:
``CfrlabGymEnv("leduc", opponents="policy:leduc.npz")``, ``CfrlabGymEnv("koikoi", opponents="search:20ms")``.

Specification in cfrlab:
* ``opponents``: one agent name for every other seat, or one per other seat in seat order (anything
  ``cfrlab.agents.make_agent`` builds: ``random``, ``greedy``, ``search:20ms``, ``cfr``, ``neural``, ``oos:0.1``,
  ``policy:FILE``, or an ``Agent`` object). ``seat``: the learner's seat (None: drawn at each reset).
* Spaces, observations and masks as the PettingZoo environment's (``cfrlab.envs.table``); the mask is also
  ``info["action_mask"]`` and ``action_masks()`` (what masked policy-gradient learners ask for).
* ``step``: the learner's action, then chance and the opponents until the learner acts again or the game ends.
  Reward: the learner's return at the end (a whole match, for a match), 0 before; never truncated.
* An illegal action ends the episode with the game's lowest return (``info["illegal_action"] = True``); with
  ``illegal="raise"`` it raises ``IllegalActionError`` instead and changes nothing.
* ``reset(seed=s)``: one seed, one deal and the same opponent draws. A deal that ends before the learner's first
  decision (a fold before its turn, a Koi-Koi hand dealt that wins) is dealt again; the learner's returns of such
  deals are ``info["returns_before_turn"]``, so an evaluation can count them.
* Registered with Gymnasium as ``cfrlab/Game-v0``: ``gymnasium.make("cfrlab.envs.single_agent:cfrlab/Game-v0",
  game="leduc", opponents="random")`` (the module prefix imports this module).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from numpy.typing import NDArray

from cfrlab.agents import Agent, make_agent
from cfrlab.envs.encoding import Encoding
from cfrlab.envs.table import RENDER_MODES, Table, build_game, check_render_mode
from cfrlab.game import Game, IllegalActionError, State
from cfrlab.seeding import spawn

ILLEGAL = ("lose", "raise")
GYM_ID = "cfrlab/Game-v0"


class CfrlabGymEnv(gymnasium.Env):
    """A seat of a cfrlab game against cfrlab agents (module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(self, game: str | Game, opponents: str | Agent | Sequence[str | Agent] = "random", *,
                 seat: int | None = 0, observation: str | Encoding = "auto", render_mode: str | None = None,
                 illegal: str = "lose", match: bool = False, **params: Any) -> None:
        self.table = Table(build_game(game, match, **params), observation)
        self.game = self.table.game
        n = self.game.num_players
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat must be None or a seat 0..{n - 1} of {self.game.spec()}, got {seat!r}")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL)}, got {illegal!r}")
        self.fixed_seat, self.illegal = seat, illegal
        self.render_mode = check_render_mode(render_mode)
        self.opponents = _opponents(opponents, self.game)
        self.observation_space = self.table.observation_space
        self.action_space = self.table.action_space
        self._streams(None)
        self.seat = seat if seat is not None else 0
        self.state: State = self.game.new_initial_state()
        self.over = True

    def _streams(self, seed: int | None) -> None:
        root = np.random.default_rng(seed)
        self._chance, self._seat_rng, *self._agent_rngs = spawn(root, 2 + len(self.opponents))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._streams(seed)
        if self.fixed_seat is None:
            self.seat = int(self._seat_rng.integers(self.game.num_players))
        before: list[float] = []
        for agent in self.opponents:
            getattr(agent, "reset", lambda: None)()
        while True:
            state, ended = self.table.deal(self._chance)
            before += [r[self.seat] for r in ended]
            self.state = self._play_others(state)
            if not self.state.is_terminal():
                break
            before.append(float(self.state.returns()[self.seat]))
        self.over = False
        return self._observation(), self._info(returns_before_turn=before)

    def step(self, action: int) -> tuple[dict[str, NDArray[Any]], float, bool, bool, dict[str, Any]]:
        if self.over:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset()")
        action = int(action)
        if action not in self.state.legal_actions():
            if self.illegal == "raise":
                self.state.child(action)  # raises IllegalActionError naming the legal actions
            self.over = True
            return self._observation(), float(self.game.info.min_utility), True, False, self._info(illegal_action=True)
        self.state = self._play_others(self.table.advance(self.state.child(action), self._chance))
        self.over = self.state.is_terminal()
        reward = float(self.state.returns()[self.seat]) if self.over else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self.over, False, self._info()

    def _play_others(self, state: State) -> State:
        """``state`` after chance and the opponents, up to the learner's turn or the end."""
        while not state.is_terminal() and state.current_player() != self.seat:
            player = state.current_player()
            index = player if player < self.seat else player - 1
            action = self.opponents[index].act(state, self._agent_rngs[index])
            if action not in state.legal_actions():
                raise IllegalActionError(f"agent {self.opponents[index].name!r} chose illegal action {action}")
            state = self.table.advance(state.child(action), self._chance)
        return state

    def _observation(self) -> dict[str, NDArray[Any]]:
        return self.table.observe(self.state, self.seat)

    def _info(self, **extra: Any) -> dict[str, Any]:
        info = {"information_state": self.table.key(self.state, self.seat), "seat": self.seat,
                "action_mask": self.table.mask(self.state, self.seat), **extra}
        if self.state.is_terminal():
            info["returns"] = [float(r) for r in self.state.returns()]
        return info

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions of the learner now, as booleans (sb3-contrib's ``MaskablePPO`` reads this)."""
        return self.table.mask(self.state, self.seat).astype(bool)

    def render(self) -> str | None:
        text = self.table.text(self.state, self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text


def _opponents(opponents: str | Agent | Sequence[str | Agent], game: Game) -> list[Agent]:
    """One agent per seat other than the learner's, built by name where given a name."""
    others = game.num_players - 1
    given = [opponents] * others if isinstance(opponents, str) or not isinstance(opponents, Sequence) \
        else list(opponents)
    if len(given) != others:
        raise ValueError(f"{game.spec()} has {others} seat(s) besides the learner's, got {len(given)} opponent(s)")
    return [make_agent(a, game) if isinstance(a, str) else a for a in given]


if GYM_ID not in gymnasium.registry:
    gymnasium.register(GYM_ID, entry_point=f"{__name__}:CfrlabGymEnv", disable_env_checker=True)
