"""cfrlab's agents as policies of the environments: ``policy = agent_policy(env, "search:20ms")``, then
``action = policy(observation, action_mask)`` for the agent to act, so a PettingZoo or Gymnasium user pits an agent
of theirs against ``search:20ms`` without handling cfrlab's states.

Specification in cfrlab:
* ``env``: a ``CfrlabEnv`` (the seat to act) or a ``CfrlabGymEnv`` (the learner's seat), wrapped or not.
* The agent reads the seat's information state from the environment's position (cfrlab's agents read only the
  acting seat's information: ``search`` and ``oos`` draw the hidden cards, ``cfr`` and ``policy`` look up its
  key) and returns its action in the time it is given (``search:20ms``: 20 ms a move).
* The observation and mask passed in must be the environment's for that seat now (the policy refuses others
  with ``ValueError``): a policy plays the position in progress, it does not decode an observation.
* Each policy draws from its own generator (``seed``); ``reset()`` forgets the agent's memory of earlier moves.

The other way, ``strategy_of(env, policy)`` tabulates an observation-reading policy of yours (a trained network)
as a cfrlab strategy, which ``cfrlab eval`` and ``arena`` take as ``policy:FILE``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.agents import Agent, make_agent
from cfrlab.game import State
from cfrlab.policy import TabularPolicy


class AgentPolicy:
    """A cfrlab agent playing the seat to act of an environment (module docstring)."""

    def __init__(self, env: Any, agent: str | Agent, seed: int | None = None) -> None:
        self.env = getattr(env, "unwrapped", env)
        if not hasattr(self.env, "table"):
            raise ValueError(f"agent_policy plays cfrlab's environments (CfrlabEnv, CfrlabGymEnv), not {env!r}")
        self.agent = make_agent(agent, self.env.game) if isinstance(agent, str) else agent
        self.name = self.agent.name
        self.rng = np.random.default_rng(seed)

    def position(self) -> tuple[State, int]:
        """The environment's state and the seat the policy plays now."""
        env = self.env
        seat = env.seat(env.agent_selection) if hasattr(env, "agent_selection") else env.seat
        return env.state, seat

    def __call__(self, observation: Any, action_mask: NDArray[Any] | None = None) -> int:
        state, seat = self.position()
        if state.current_player() != seat:
            raise ValueError(f"seat {seat} does not act now: nothing for {self.name} to play")
        seen = self.env.table.observe(state, seat)
        if isinstance(observation, dict):
            observation, action_mask = observation["observation"], observation.get("action_mask", action_mask)
        if not np.array_equal(np.asarray(observation), seen["observation"]) or (
                action_mask is not None and not np.array_equal(np.asarray(action_mask), seen["action_mask"])):
            raise ValueError(f"this observation is not the environment's for seat {seat} now: {self.name} plays the "
                             "position in progress")
        return int(self.agent.act(state, self.rng))

    def reset(self) -> None:
        """Forget earlier moves (a new game)."""
        getattr(self.agent, "reset", lambda: None)()


def agent_policy(env: Any, agent: str | Agent, seed: int | None = None) -> AgentPolicy:
    """``AgentPolicy(env, agent, seed)``: the agent named ``agent`` (or an ``Agent``) playing ``env``'s seat to act."""
    return AgentPolicy(env, agent, seed)


def strategy_of(env: Any, policy: Callable[[dict[str, NDArray[Any]]], Any]) -> TabularPolicy:
    """The strategy an observation-reading ``policy`` plays in every seat, as a cfrlab ``TabularPolicy`` (for
    ``save`` and then ``cfrlab eval FILE``, ``cfrlab eval GAME --agent policy:FILE``, ``cfrlab arena``).

    ``policy(observation)`` takes the environment's observation dict of the seat to act and returns an action or
    probabilities over every action; it is read once per infoset of the game's compiled tree, at the state
    ``cfrlab.tree.states.infoset_states`` picks (``tabulate_policy``: illegal actions masked, rows renormalised).
    """
    from cfrlab.policy_tabulate import tabulate_policy
    from cfrlab.tree import load_tree

    table = getattr(env, "unwrapped", env).table
    tree = load_tree(table.game)

    def rows(states: Sequence[State]) -> NDArray[np.float64]:
        out = np.zeros((len(states), table.num_actions))
        for i, state in enumerate(states):
            chosen = np.asarray(policy(table.observe(state, state.current_player())), dtype=np.float64)
            if chosen.ndim == 0:
                out[i, int(chosen)] = 1.0
            else:
                out[i] = chosen
        return out

    return tabulate_policy(table.game, tree, rows)
