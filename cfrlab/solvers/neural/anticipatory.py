"""The anticipatory (online) fictitious self-play loop of NFSP (Heinrich & Silver 2016; seed 004 Alg. 1,
seed 001 Alg. 8), with pluggable function approximators.

  1. per episode and player, act with the best response (eps-greedy(Q) for a Q learner, the
     learner's own stochastic policy for PPO and SAC) with probability eta, else with Pi;
  2. store every transition in a circular RL memory, and (u, a) in a reservoir SL memory
     when acting with the best response;
  3. every ``learn_every`` own steps: one step of the best-response learner on a minibatch of the
     RL memory (an on-policy learner: once per full rollout instead, ``ApproximateAgent.rollout_size``)
     and one step of Pi on -log Pi(s, a) over a minibatch of the SL memory; a Q learner also copies
     Q to its target Q' every ``target_update_every`` own steps (``QLearningFSP``).
``cfrlab.solvers.fictitious.softmax.SoftmaxFSP`` (seed 004 sec. 4.2) runs this loop with linear
approximators, ``cfrlab.solvers.neural.nfsp.NFSP`` with neural networks, ``nfsp_ppo`` and ``nfsp_sac``
with PPO and soft actor-critic best responses. This module needs no torch.

One ``iterate`` step is one episode (seed 004's figures count episodes).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import TERMINAL, Game, State
from cfrlab.policy import TabularPolicy
from cfrlab.solvers.base import SolverConfig
from cfrlab.solvers.buffers import CircularBuffer, ReservoirBuffer
from cfrlab.solvers.selfplay import AVG, BR, SelfPlaySolver, masked_softmax


@dataclasses.dataclass(frozen=True)
class AnticipatoryConfig(SolverConfig):
    """The NFSP loop (seed 001 Alg. 8) shared by softmax FSP and every NFSP variant."""

    eta: float = 0.1
    """Anticipatory parameter: probability that a player follows its best response in an episode."""
    rl_memory: int = 3_000
    """Capacity of each player's circular RL memory (seed 004: 3e3)."""
    sl_memory: int = 40_000
    """Capacity of each player's reservoir SL memory (seed 004: 4e4)."""
    batch_size: int = 128
    """Minibatch size of both SGD updates."""
    learn_every: int = 64
    """Own steps between two SGD updates (of both learners)."""
    min_buffer: int = 128
    """Rows an RL/SL memory must hold before it is learned from."""
    rl_lr: float = 1.0
    """SGD step size of Q (seed 004: 1.0)."""
    sl_lr: float = 0.25
    """SGD step size of Pi (seed 004: 0.25)."""

    def __post_init__(self) -> None:
        self.require(unit=("eta",), positive=("rl_memory", "sl_memory", "batch_size", "learn_every"))


@dataclasses.dataclass(frozen=True)
class QLearningConfig(AnticipatoryConfig):
    """The loop with an eps-greedy Q learner and a target copy Q' (softmax FSP, NFSP with DQN)."""

    epsilon_start: float = 0.06
    """Exploration of eps-greedy(Q) at the start."""
    epsilon_end: float = 0.0
    """Exploration after ``epsilon_decay_steps`` own steps (linear decay)."""
    epsilon_decay_steps: int = 1_000_000
    """Own steps over which epsilon decays linearly."""
    target_update_every: int = 400
    """Own steps between copies of Q into the target Q' (seed 004: 400)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.require(positive=("target_update_every",))


class ApproximateAgent(ABC):
    """One player's function approximators in the anticipatory loop: a best-response learner and Pi."""

    rollout_size: int | None = None
    """None: an off-policy learner (``learn_rl`` on a minibatch of the circular RL memory every
    ``learn_every`` own steps). An int n: an on-policy learner (PPO): the RL memory holds only the
    player's own best-response episodes, in play order; at the end of the episode in which it reaches
    n rows, ``learn_rl`` receives all of it, once, and it is emptied (seed 001 Alg. 9 lines 26-30)."""

    @abstractmethod
    def average_logits(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        """Logits of Pi(s, .) for a batch: (batch, actions)."""

    @abstractmethod
    def learn_rl(self, batch: Mapping[str, np.ndarray]) -> float:
        """One update of the best-response learner; returns its loss."""

    @abstractmethod
    def learn_sl(self, batch: Mapping[str, np.ndarray]) -> float:
        """One SGD step on the cross-entropy loss of Pi; returns the loss."""

    @abstractmethod
    def state_arrays(self) -> dict[str, np.ndarray]: ...

    @abstractmethod
    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None: ...


class StochasticAgent(ApproximateAgent):
    """An agent whose best response is a stochastic policy of its own (PPO's beta, SAC's actor)."""

    @abstractmethod
    def best_response_probs(self, obs: NDArray[np.float32], legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        """The best-response policy at one observation, over action ids."""


class QAgent(ApproximateAgent):
    """An agent whose best response is eps-greedy in a learned Q, with a target copy Q'."""

    @abstractmethod
    def q_values(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        """Q(s, .) for a batch of observations: (batch, actions)."""

    @abstractmethod
    def update_target(self) -> None:
        """theta^{Q'} <- theta^Q."""


class AnticipatoryFSP(SelfPlaySolver):
    """The online FSP loop; subclasses give the observation encoding and the agents.

    Best responses here are the agents' own stochastic policies (``StochasticAgent``);
    ``QLearningFSP`` plays eps-greedy in Q instead. Between two learning steps of a player its
    approximators are fixed, so their outputs are cached per information-state key (cleared at each
    update); this changes no result.
    """

    algorithm = "anticipatory-fsp"
    Config = AnticipatoryConfig
    config: AnticipatoryConfig

    def __init__(self, game: Game, config: AnticipatoryConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.obs_size = self._observation_size()
        cfg = self.config
        spec_rl = {"obs": ((self.obs_size,), np.float32), "legal": ((self.num_actions,), np.bool_),
                   "action": ((), np.int64), "reward": ((), np.float32),
                   "next_obs": ((self.obs_size,), np.float32), "next_legal": ((self.num_actions,), np.bool_),
                   "done": ((), np.bool_)}
        spec_sl = {"obs": ((self.obs_size,), np.float32), "action": ((), np.int64),
                   "legal": ((self.num_actions,), np.bool_)}
        self.agents = [self._make_agent(p) for p in range(self.num_players)]
        self.rl_memory = [CircularBuffer(cfg.rl_memory, spec_rl, self.rng) for _ in range(self.num_players)]
        self.sl_memory = [ReservoirBuffer(cfg.sl_memory, spec_sl, self.rng) for _ in range(self.num_players)]
        self.steps = np.zeros(self.num_players, dtype=np.int64)
        self.modes = np.zeros(self.num_players, dtype=np.int64)
        self.losses = np.full((self.num_players, 2), np.nan)
        self._cache: list[dict[str, tuple]] = [{} for _ in range(self.num_players)]
        self._obs_zero = np.zeros(self.obs_size, dtype=np.float32)
        self._legal_zero = np.zeros(self.num_actions, dtype=bool)

    # hooks ---------------------------------------------------------------------------------------
    @abstractmethod
    def _observation_size(self) -> int: ...

    @abstractmethod
    def _encode(self, state: State, player: int) -> NDArray[np.float32]: ...

    @abstractmethod
    def _make_agent(self, player: int) -> ApproximateAgent: ...

    def _best_response_values(self, player: int, obs: NDArray[np.float32],
                              legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        """What the best response acts on at one observation: here the agent's policy."""
        return self.agents[player].best_response_probs(obs, legal)  # type: ignore[attr-defined]

    def _best_response_action(self, player: int, legal: NDArray[np.bool_], values: NDArray[np.float64]) -> int:
        """The best response's action, given ``_best_response_values``: here a draw from the policy."""
        return self._sample(values)

    def _best_response_table(self, player: int, obs: NDArray[np.float32],
                             legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        """The best response at a batch of observations, as probabilities (for ``current_policy``)."""
        agent = self.agents[player]
        return np.stack([agent.best_response_probs(o, m) for o, m in zip(obs, legal)])  # type: ignore[attr-defined]

    def _after_step(self, player: int, step: int) -> None:
        """Called after each own step of ``player`` (and its learning, if any)."""

    # the loop ------------------------------------------------------------------------------------
    def _lookup(self, state: State, player: int) -> tuple:
        key = state.information_state_key(player)
        hit = self._cache[player].get(key)
        if hit is None:
            obs = self._encode(state, player)
            legal = self._legal_mask(state)
            br = self._best_response_values(player, obs, legal)
            avg = masked_softmax(self.agents[player].average_logits(obs[None])[0], legal)
            hit = self._cache[player][key] = (obs, legal, br, avg)
        return hit

    def _iterate_once(self) -> None:
        eta = self.config.eta
        for p in range(self.num_players):  # Alg. 8 line 9: sigma per episode
            self.modes[p] = BR if self.rng.random() < eta else AVG
        state = self.game.new_initial_state()
        last: list[tuple | None] = [None] * self.num_players
        while True:
            state, p = self._next_decision(state)
            if p == TERMINAL:
                break
            obs, legal, br, avg = self._lookup(state, p)
            previous = last[p]
            if previous is not None:
                prev_obs, prev_legal, prev_action = previous
                self._remember(p, obs=prev_obs, legal=prev_legal, action=prev_action, reward=0.0, next_obs=obs,
                               next_legal=legal, done=False)
            if self.modes[p] == BR:
                action = self._best_response_action(p, legal, br)
                self.sl_memory[p].add(obs=obs, action=action, legal=legal)
            else:
                action = self._sample(avg)
            last[p] = (obs, legal, action)
            self._step(p)
            state = state.child(action)
        returns = state.returns()
        for p in range(self.num_players):
            final = last[p]
            if final is not None:
                self._remember(p, obs=final[0], legal=final[1], action=final[2], reward=returns[p],
                               next_obs=self._obs_zero, next_legal=self._legal_zero, done=True)
        for p in range(self.num_players):  # on-policy learners: one update per full rollout, then forget it
            size = self.agents[p].rollout_size
            if size is not None and len(self.rl_memory[p]) >= size:
                self.losses[p, 0] = self.agents[p].learn_rl(self.rl_memory[p].data())
                self.rl_memory[p].clear()
                self._cache[p].clear()

    def _remember(self, player: int, **row: Any) -> None:
        """Store one transition of ``player`` in its RL memory (on-policy learners: best-response play only)."""
        memory = self.rl_memory[player]
        if self.agents[player].rollout_size is not None:
            if self.modes[player] != BR:
                return
            if len(memory) == memory.capacity:  # a wrap would interleave episodes and break the returns
                raise ValueError(f"rl_memory ({memory.capacity}) must hold a rollout "
                                 f"({self.agents[player].rollout_size} rows) plus one episode; raise rl_memory")
        memory.add(**row)

    def _step(self, player: int) -> None:
        """Count one own step; learn on schedule."""
        cfg = self.config
        self.steps[player] += 1
        s = int(self.steps[player])
        agent = self.agents[player]
        if s % cfg.learn_every == 0:
            if agent.rollout_size is None and len(self.rl_memory[player]) >= max(cfg.min_buffer, 1):
                batch = self.rl_memory[player].sample(min(cfg.batch_size, len(self.rl_memory[player])))
                self.losses[player, 0] = agent.learn_rl(batch)
            if len(self.sl_memory[player]) >= max(cfg.min_buffer, 1):
                batch = self.sl_memory[player].sample(min(cfg.batch_size, len(self.sl_memory[player])))
                self.losses[player, 1] = agent.learn_sl(batch)
            self._cache[player].clear()
        self._after_step(player, s)

    # policies ------------------------------------------------------------------------------------
    def _tabulate(self, which: str) -> TabularPolicy:
        from cfrlab.policy_tabulate import tabulate_policy

        def probs(states: Sequence[State]) -> NDArray[np.float64]:
            out = np.zeros((len(states), self.num_actions))
            players = np.array([s.current_player() for s in states])
            for p in range(self.num_players):
                rows = np.flatnonzero(players == p)
                if rows.size == 0:
                    continue
                obs = np.stack([self._encode(states[int(r)], p) for r in rows])
                legal = np.stack([self._legal_mask(states[int(r)]) for r in rows])
                if which == "average":
                    out[rows] = masked_softmax(self.agents[p].average_logits(obs), legal)
                else:
                    out[rows] = self._best_response_table(p, obs, legal)
            return out

        return tabulate_policy(self.game, self.tree, probs)

    def current_policy(self) -> TabularPolicy:
        """The best response of every player: greedy in Q, or the agent's stochastic one (inspection only)."""
        return self._tabulate("best")

    def average_policy(self) -> TabularPolicy:
        """Pi: every player's average-policy approximator, tabulated on the compiled tree."""
        return self._tabulate("average")

    # state ----------------------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {"steps": self.steps, "modes": self.modes}
        for p in range(self.num_players):
            out.update({f"agent{p}_{k}": v for k, v in self.agents[p].state_arrays().items()})
            for name, mem in (("rl", self.rl_memory[p]), ("sl", self.sl_memory[p])):
                st = mem.state_dict()
                out.update({f"{name}{p}_{k}": v for k, v in st["arrays"].items()})
                out[f"{name}{p}__meta"] = np.array([st["size"], st["seen"], st.get("next", 0)])
        return out

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.steps = np.array(arrays["steps"], dtype=np.int64)
        self.modes = np.array(arrays["modes"], dtype=np.int64)
        for p in range(self.num_players):
            prefix = f"agent{p}_"
            self.agents[p].load_state_arrays({k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)})
            for name, mem in (("rl", self.rl_memory[p]), ("sl", self.sl_memory[p])):
                size, seen, nxt = (int(v) for v in arrays[f"{name}{p}__meta"])
                mem.load_state_dict({"arrays": {k: arrays[f"{name}{p}_{k}"] for k in mem.fields}, "size": size,
                                     "seen": seen, "next": nxt, "rng": mem.rng.bit_generator.state})
            self._cache[p].clear()


class QLearningFSP(AnticipatoryFSP):
    """The loop with ``QAgent``s: eps-greedy(Q) best responses, Q' <- Q every ``target_update_every`` own steps."""

    Config = QLearningConfig
    config: QLearningConfig

    def epsilon(self, player: int) -> float:
        """eps of ``player``'s eps-greedy(Q): linear from ``epsilon_start`` to ``epsilon_end``."""
        cfg = self.config
        frac = min(1.0, self.steps[player] / max(1, cfg.epsilon_decay_steps))
        return cfg.epsilon_start + frac * (cfg.epsilon_end - cfg.epsilon_start)

    def _best_response_values(self, player: int, obs: NDArray[np.float32],
                              legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        return self.agents[player].q_values(obs[None])[0]  # type: ignore[attr-defined]

    def _best_response_action(self, player: int, legal: NDArray[np.bool_], values: NDArray[np.float64]) -> int:
        if self.rng.random() < self.epsilon(player):
            return int(self.rng.choice(np.flatnonzero(legal)))
        return int(np.argmax(np.where(legal, values, -np.inf)))

    def _best_response_table(self, player: int, obs: NDArray[np.float32],
                             legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        q = self.agents[player].q_values(obs)  # type: ignore[attr-defined]
        out = np.zeros((len(obs), self.num_actions))
        out[np.arange(len(obs)), np.argmax(np.where(legal, q, -np.inf), axis=1)] = 1.0
        return out

    def _after_step(self, player: int, step: int) -> None:
        if step % self.config.target_update_every == 0:
            self.agents[player].update_target()  # type: ignore[attr-defined]


__all__ = ["AnticipatoryFSP", "AnticipatoryConfig", "QLearningFSP", "QLearningConfig", "ApproximateAgent",
           "QAgent", "StochasticAgent"]
