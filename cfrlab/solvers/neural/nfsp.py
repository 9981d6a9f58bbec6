"""Neural Fictitious Self-Play (Heinrich & Silver 2016; seed 001 Alg. 8, seed 004 Alg. 1).

Each player i has an action-value network Q_i, a target copy Q'_i and an average-policy network Pi_i:
  1. at the start of an episode, player i follows eps-greedy(Q_i) with probability eta (the
     anticipatory parameter), else Pi_i;
  2. every transition (s, a, r, s') goes to i's circular RL memory; while following
     eps-greedy(Q_i), (s, a) also goes to i's reservoir SL memory;
  3. every ``learn_every`` own steps: one step on (r + max_a' Q'_i(s', a') - Q_i(s, a))^2 over a
     minibatch of the RL memory and one on -log Pi_i(s, a) over a minibatch of the SL memory;
     every ``target_update_every`` own steps Q'_i <- Q_i.
Pi converges towards a Nash equilibrium in two-player zero-sum games; NFSP is always evaluated
with its *average* policy Pi (``average_policy``), never the best-response network.

The loop is ``cfrlab.solvers.neural.anticipatory.QLearningFSP``, shared with FSP by softmax regression;
this module gives it neural networks (``cfrlab.solvers.neural.nets.MLP``) over
``information_state_tensor``, for any number of players.

Choices and deviations:
* Adam by default (the paper used plain SGD; ``optimizer="sgd"`` restores it): on Kuhn and
  Leduc it reaches a given exploitability in fewer updates, which is what a CPU budget buys.
* Network outputs are cached per information-state key between two updates of a player
  (``AnticipatoryFSP``), which changes no result and removes most forward passes.
* Checkpoints: ``torch.save`` of tensors (network and optimizer state dicts, memories) and
  JSON metadata, written atomically; read back with ``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.game import State
from cfrlab.solvers.neural.anticipatory import ApproximateAgent, QAgent, QLearningConfig, QLearningFSP
from cfrlab.solvers.neural.nets import MLP
from cfrlab.solvers.neural.training import (
    TorchCheckpointMixin,
    load_module_arrays,
    load_optimizer_arrays,
    masked_log_softmax,
    module_arrays,
    optimizer_arrays,
    torch_threads,
)

OPTIMIZERS = ("adam", "sgd")


@dataclasses.dataclass(frozen=True)
class NFSPConfig(QLearningConfig):
    """NFSP: the anticipatory loop with neural Q and average-policy networks.

    The defaults are the settings that did best in our measurements on Kuhn (BENCHMARKS.md, "Learned
    defaults"); ``NFSP.presets["paper"]`` holds the paper's Leduc settings.
    """

    eta: float = 0.5
    """Anticipatory parameter: probability that a player follows eps-greedy(Q) in an episode."""
    hidden_sizes: tuple[int, ...] = (64,)
    """Hidden layer widths of both networks."""
    rl_memory: int = 200_000
    """Capacity of each player's circular RL memory (transitions)."""
    sl_memory: int = 1_000_000
    """Capacity of each player's reservoir SL memory ((s, a) pairs)."""
    batch_size: int = 128
    """Minibatch size of both updates."""
    learn_every: int = 8
    """Own steps between two updates (of both networks)."""
    min_buffer: int = 256
    """Rows a memory must hold before it is learned from."""
    target_update_every: int = 1_000
    """Own steps between copies of Q into the target network."""
    rl_lr: float = 0.01
    """Learning rate of the Q network."""
    sl_lr: float = 0.002
    """Learning rate of the average-policy network."""
    optimizer: str = "adam"
    """'adam' or 'sgd' (the paper's)."""
    epsilon_start: float = 0.06
    """Exploration of eps-greedy(Q) at the start."""
    epsilon_end: float = 0.001
    """Exploration at the end of the decay."""
    epsilon_decay_steps: int = 20_000
    """Own steps of linear epsilon decay."""
    max_grad_norm: float | None = 10.0
    """Gradient-norm clipping of both updates (None: off)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        if not self.hidden_sizes or any(h <= 0 for h in self.hidden_sizes):
            raise ValueError(f"hidden_sizes must be positive widths, got {self.hidden_sizes}")


def make_optimizer(name: str, params: Any, lr: float) -> torch.optim.Optimizer:
    """Adam or plain SGD over ``params``."""
    return torch.optim.Adam(params, lr=lr) if name == "adam" else torch.optim.SGD(params, lr=lr)


def optimizer_step(optimizer: torch.optim.Optimizer, net: nn.Module, loss: torch.Tensor,
                   max_grad_norm: float | None) -> float:
    """One gradient step on ``loss`` (gradient-norm clipping unless ``max_grad_norm`` is None); returns the loss."""
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if max_grad_norm is not None:
        nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
    optimizer.step()
    return float(loss.detach())


class AverageNetworkAgent(ApproximateAgent):
    """Pi, the supervised average-policy network, and its cross-entropy step (shared by every NFSP variant).

    Subclasses build their best-response learner, then call ``_build_average`` (the order fixes which
    draws of the generator initialise which network); ``learn_sl`` minimises -log Pi(s, a) over a
    minibatch of the reservoir SL memory (seed 001 Alg. 8 line 18, Alg. 9 line 28).
    """

    avg: MLP
    avg_opt: torch.optim.Optimizer
    sl_max_grad_norm: float | None = None
    modules: tuple[str, ...] = ("avg",)
    """The attributes holding networks, saved in this order (``state_arrays``): a subclass names its own too."""
    optimizers: tuple[str, ...] = ("avg_opt",)
    """The attributes holding optimizers, saved after the networks."""

    def _build_average(self, obs_size: int, num_actions: int, hidden_sizes: tuple[int, ...], lr: float,
                       rng: np.random.Generator, optimizer: str = "adam", max_grad_norm: float | None = None) -> None:
        self.avg = MLP(obs_size, hidden_sizes, num_actions, generator=rng)
        self.avg_opt = make_optimizer(optimizer, self.avg.parameters(), lr)
        self.sl_max_grad_norm = max_grad_norm

    @torch.no_grad()
    def average_logits(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        return self.avg(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))).double().numpy()

    def learn_sl(self, batch: Mapping[str, np.ndarray]) -> float:
        logp = masked_log_softmax(self.avg(torch.from_numpy(batch["obs"])), torch.from_numpy(batch["legal"]))
        loss = -logp.gather(1, torch.from_numpy(batch["action"])[:, None]).mean()
        return optimizer_step(self.avg_opt, self.avg, loss, self.sl_max_grad_norm)

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The networks named in ``modules``, then the optimizers named in ``optimizers``, as arrays."""
        out: dict[str, np.ndarray] = {}
        for name in self.modules:
            out.update(module_arrays(name, getattr(self, name)))
        for name in self.optimizers:
            out.update(optimizer_arrays(name, getattr(self, name)))
        return out

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        """Inverse of ``state_arrays``."""
        for name in self.modules:
            load_module_arrays(name, getattr(self, name), arrays)
        for name in self.optimizers:
            load_optimizer_arrays(name, getattr(self, name), arrays)


class NetworkAgent(AverageNetworkAgent, QAgent):
    """One player's Q network, target network and average-policy network."""

    modules = ("q", "q_target", "avg")
    optimizers = ("q_opt", "avg_opt")

    def __init__(self, obs_size: int, num_actions: int, config: NFSPConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.q = MLP(obs_size, config.hidden_sizes, num_actions, generator=rng)
        self.q_target = copy.deepcopy(self.q)
        self._build_average(obs_size, num_actions, config.hidden_sizes, config.sl_lr, rng, config.optimizer,
                            config.max_grad_norm)
        self.q_opt = make_optimizer(config.optimizer, self.q.parameters(), config.rl_lr)

    @torch.no_grad()
    def q_values(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        return self.q(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))).double().numpy()

    def learn_rl(self, batch: Mapping[str, np.ndarray]) -> float:
        obs = torch.from_numpy(batch["obs"])
        action = torch.from_numpy(batch["action"])
        with torch.no_grad():
            nxt = self.q_target(torch.from_numpy(batch["next_obs"]))
            nxt = nxt.masked_fill(~torch.from_numpy(batch["next_legal"]), -1e9).max(dim=1).values
            done = torch.from_numpy(batch["done"])
            target = torch.from_numpy(batch["reward"]) + torch.where(done, torch.zeros_like(nxt), nxt)
        pred = self.q(obs).gather(1, action[:, None]).squeeze(1)
        return optimizer_step(self.q_opt, self.q, nn.functional.mse_loss(pred, target), self.config.max_grad_norm)

    def update_target(self) -> None:
        self.q_target.load_state_dict(self.q.state_dict())


class OneThreadTorchSolver(TorchCheckpointMixin):
    """Torch checkpoints, and ``iterate`` with torch on one thread (tiny networks: threads only add overhead)."""

    def _iteration_context(self) -> contextlib.AbstractContextManager[None]:
        """Torch on one thread while iterating, the process's setting restored after."""
        return torch_threads(1)


class NFSP(OneThreadTorchSolver, QLearningFSP):
    """Neural Fictitious Self-Play over ``information_state_tensor`` (any number of players)."""

    algorithm = "nfsp"
    citation = ('Neural Fictitious Self-Play (DQN best responses)', 'Heinrich & Silver 2016')
    default_iterations = 20_000  # to its exploitability target on Kuhn (BENCHMARKS.md, "Learned defaults")
    Config = NFSPConfig
    config: NFSPConfig
    presets = {"paper": {"eta": 0.1, "hidden_sizes": (128,), "rl_memory": 200_000, "sl_memory": 2_000_000,
                         "batch_size": 128, "learn_every": 64, "min_buffer": 1_000, "target_update_every": 19_200,
                         "rl_lr": 0.01, "sl_lr": 0.01, "optimizer": "sgd", "epsilon_start": 0.06,
                         "epsilon_end": 0.001, "epsilon_decay_steps": 1_000_000}}
    preset_sources = {"paper": "Heinrich & Silver 2016, Leduc, as OpenSpiel's examples/nfsp.py runs it"}
    default_sources = {"max_grad_norm": "ours (keeps Adam stable)", "hidden_sizes": "ours", "sl_memory": "ours",
                       "target_update_every": "ours"}

    def _observation_size(self) -> int:
        size = self.game.information_state_tensor_size()
        if size <= 0:
            raise ValueError(f"{self.game.spec()} provides no information_state_tensor, which NFSP needs")
        return size

    def _encode(self, state: State, player: int) -> NDArray[np.float32]:
        return np.asarray(state.information_state_tensor(player), dtype=np.float32)

    def _make_agent(self, player: int) -> ApproximateAgent:
        return NetworkAgent(self.obs_size, self.num_actions, self.config, self.rng)

    def networks(self, player: int) -> dict[str, nn.Module]:
        """Player ``player``'s networks by name (``q``, ``q_target``, ``avg``)."""
        agent = self.agents[player]
        assert isinstance(agent, NetworkAgent)
        return {"q": agent.q, "q_target": agent.q_target, "avg": agent.avg}

