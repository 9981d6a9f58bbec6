"""Any cfrlab game as a PettingZoo AEC environment: ``CfrlabEnv("leduc")``, ``CfrlabEnv("koikoi", rules="fudawiki",
rounds=12)``, ``CfrlabEnv("kuhn(players=3)")``.

Specification in cfrlab:
* Agents ``player_0`` .. ``player_{n-1}``, seat i being the game's player i; the agent to act is the game's.
* Observations and masks: ``cfrlab.envs.table`` (``{"observation", "action_mask"}``), the encoding chosen by
  ``observation`` (``cfrlab.envs.encoding``: the family's, the game's tensor, its infoset one-hot or key bytes).
  ``infos[agent]["information_state"]`` is the agent's information-state key (None where the game defines none).
* Rewards at the end only: every agent's return when the game (a whole match, for a match) ends, 0 before.
* ``reset(seed=s)`` seeds the chance stream: one seed, one deal (and every later card). Without a seed the stream
  goes on from the last one (fresh entropy at the first reset).
* An illegal action raises ``cfrlab.game.IllegalActionError`` naming the legal ones and changes nothing.
* ``render()``: what the agent to act (after the end, ``render_seat``) sees, through the family's terminal view
  (``cfrlab.envs.table.Table.text``); ``render_mode="ansi"`` returns it, ``"human"`` prints it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from cfrlab.envs.encoding import Encoding
from cfrlab.envs.table import RENDER_MODES, Table, build_game, check_render_mode
from cfrlab.game import Game, IllegalActionError, State


class CfrlabEnv(AECEnv):
    """A cfrlab game as a PettingZoo AEC environment (module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "cfrlab_v0", "is_parallelizable": False}

    def __init__(self, game: str | Game, *, observation: str | Encoding = "auto", render_mode: str | None = None,
                 render_seat: int = 0, match: bool = False, **params: Any) -> None:
        super().__init__()
        self.table = Table(build_game(game, match, **params), observation)
        self.game = self.table.game
        self.render_mode = check_render_mode(render_mode)
        self.render_seat = render_seat
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        self.observation_spaces = {a: self.table.observation_space for a in self.possible_agents}
        self.action_spaces = {a: self.table.action_space for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.state: State = self.game.new_initial_state()
        self.metadata = {**self.metadata, "name": f"cfrlab_{self.game.spec()}"}

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def seat(self, agent: str) -> int:
        """The game's player index of ``agent``."""
        return self.possible_agents.index(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state, self.dealt_again = self.table.deal(self._rng)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._set_infos()
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict[str, Any]:
        return self.table.observe(self.state, self.seat(agent))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or int(action) not in self.state.legal_actions():
            self.state.child(-1 if action is None else int(action))  # raises IllegalActionError naming the legal
            raise IllegalActionError(f"action {action!r} is not legal here")
        self._cumulative_rewards[agent] = 0.0
        self.state = self.table.advance(self.state.child(int(action)), self._rng)
        if self.state.is_terminal():
            returns = self.state.returns()
            self.rewards = {a: float(returns[self.seat(a)]) for a in self.agents}
            self.terminations = {a: True for a in self.agents}
        else:
            self.rewards = {a: 0.0 for a in self.agents}
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._set_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _set_infos(self) -> None:
        self.infos = {a: {"information_state": self.table.key(self.state, self.seat(a))} for a in self.agents}

    def render(self) -> str | None:
        current = self.state.current_player()
        text = self.table.text(self.state, current if current >= 0 else self.render_seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return f"CfrlabEnv({self.game.spec()})"


def env(game: str | Game, **kwargs: Any) -> CfrlabEnv:
    """``CfrlabEnv(game, **kwargs)``, the name PettingZoo's environment modules give their constructor."""
    return CfrlabEnv(game, **kwargs)
