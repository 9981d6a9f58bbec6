"""NFSP with discrete soft actor-critic as the best-response learner (seed 001 Alg. 10).

The anticipatory loop of NFSP (``cfrlab.solvers.neural.anticipatory.AnticipatoryFSP``), with the
eps-greedy Q learner replaced by discrete SAC (Haarnoja et al. 2018, arXiv 1812.05905;
discrete actions as in Christodoulou 2019):
  1. per episode and player, follow the SAC policy pi_phi with probability eta, else Pi;
  2. transitions go to the circular RL memory, (s, a) to the reservoir SL memory when following pi_phi;
  3. every ``learn_every`` own steps, on a minibatch of the RL memory:
     Q_k(s, a) -> r + sum_a' pi_phi(a'|s') [min_k Q'_k(s', a') - alpha log pi_phi(a'|s')]  (k = 1, 2);
     phi minimises sum_a pi_phi(a|s) [alpha log pi_phi(a|s) - min_k Q_k(s, a)];
     log alpha minimises alpha (H(pi_phi(s)) - target_entropy_ratio * log |A(s)|);
     target networks follow by Polyak averaging with ``tau``; and one cross-entropy step of Pi.
Pi is the policy evaluated (``average_policy``).

Choices: all sums over actions run over the legal ones only; the target entropy is a fraction of
the uniform policy's entropy over the legal actions of each state (Christodoulou uses 0.98 of
log |A|); rewards are undiscounted (episodic games).
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Mapping

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.solvers.neural.anticipatory import AnticipatoryConfig, AnticipatoryFSP, ApproximateAgent, StochasticAgent
from cfrlab.solvers.neural.nets import MLP
from cfrlab.solvers.neural.nfsp import NFSP, AverageNetworkAgent, OneThreadTorchSolver
from cfrlab.solvers.neural.training import masked_log_softmax


@dataclasses.dataclass(frozen=True)
class NFSPSACConfig(AnticipatoryConfig):
    """NFSP with discrete SAC best responses. The defaults did best in our measurements on Kuhn
    (BENCHMARKS.md, "Learned defaults")."""

    eta: float = 0.5
    """Anticipatory parameter: probability that a player follows its SAC policy in an episode."""
    hidden_sizes: tuple[int, ...] = (64,)
    """Hidden layer widths of every network."""
    rl_memory: int = 200_000
    """Capacity of each player's circular RL memory."""
    sl_memory: int = 1_000_000
    """Capacity of each player's reservoir SL memory."""
    min_buffer: int = 256
    """Rows a memory must hold before it is learned from."""
    learn_every: int = 8
    """Own steps between two updates."""
    rl_lr: float = 3e-3
    """Adam learning rate of the critics, the actor and alpha."""
    sl_lr: float = 0.002
    """Adam learning rate of the average-policy network."""
    tau: float = 0.01
    """Polyak factor of the target critics."""
    initial_alpha: float = 0.2
    """Initial entropy temperature."""
    target_entropy_ratio: float = 0.5
    """Target entropy as a fraction of log(number of legal actions)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 < self.tau <= 1.0:
            raise ValueError(f"tau must be in (0, 1], got {self.tau}")


class SACAgent(AverageNetworkAgent, StochasticAgent):
    """Twin critics with Polyak targets, a softmax actor, a learned temperature, and Pi."""

    modules = ("q1", "q2", "q1_target", "q2_target", "actor", "avg")
    optimizers = ("q_opt", "actor_opt", "alpha_opt", "avg_opt")

    def __init__(self, obs_size: int, num_actions: int, config: NFSPSACConfig, rng: np.random.Generator) -> None:
        self.config = config
        h = config.hidden_sizes
        self.q1 = MLP(obs_size, h, num_actions, generator=rng)
        self.q2 = MLP(obs_size, h, num_actions, generator=rng)
        self.q1_target, self.q2_target = copy.deepcopy(self.q1), copy.deepcopy(self.q2)
        self.actor = MLP(obs_size, h, num_actions, generator=rng)
        self._build_average(obs_size, num_actions, h, config.sl_lr, rng)
        self.log_alpha = nn.Parameter(torch.tensor(math.log(config.initial_alpha)))
        self.q_opt = torch.optim.Adam([*self.q1.parameters(), *self.q2.parameters()], lr=config.rl_lr)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=config.rl_lr)
        self.alpha_opt = torch.optim.Adam([self.log_alpha], lr=config.rl_lr)

    @torch.no_grad()
    def best_response_probs(self, obs: NDArray[np.float32], legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        logits = self.actor(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))[None])
        return masked_log_softmax(logits, torch.from_numpy(legal)[None]).exp()[0].double().numpy() * legal

    def learn_rl(self, batch: Mapping[str, np.ndarray]) -> float:
        obs, nxt = torch.from_numpy(batch["obs"]), torch.from_numpy(batch["next_obs"])
        action = torch.from_numpy(batch["action"])[:, None]
        next_legal = torch.from_numpy(batch["next_legal"])
        done = torch.from_numpy(batch["done"])
        alpha = self.log_alpha.exp().detach()
        with torch.no_grad():
            logp_next = masked_log_softmax(self.actor(nxt), next_legal)
            p_next = logp_next.exp() * next_legal
            q_next = torch.minimum(self.q1_target(nxt), self.q2_target(nxt))
            soft_v = (p_next * (q_next - alpha * logp_next)).masked_fill(~next_legal, 0.0).sum(dim=1)
            target = torch.from_numpy(batch["reward"]) + torch.where(done, torch.zeros_like(soft_v), soft_v)
        q_loss = (nn.functional.mse_loss(self.q1(obs).gather(1, action).squeeze(1), target)
                  + nn.functional.mse_loss(self.q2(obs).gather(1, action).squeeze(1), target))
        self.q_opt.zero_grad(set_to_none=True)
        q_loss.backward()
        self.q_opt.step()
        # actor: sum_a pi(a|s) (alpha log pi(a|s) - min Q(s, a)) over legal actions
        legal = torch.from_numpy(batch["legal"])
        logp = masked_log_softmax(self.actor(obs), legal)
        p = logp.exp() * legal
        with torch.no_grad():
            q = torch.minimum(self.q1(obs), self.q2(obs))
        actor_loss = (p * (alpha * logp - q)).masked_fill(~legal, 0.0).sum(dim=1).mean()
        self.actor_opt.zero_grad(set_to_none=True)
        actor_loss.backward()
        self.actor_opt.step()
        # temperature: alpha (H(pi(s)) - target entropy)
        entropy = -(p * logp).masked_fill(~legal, 0.0).sum(dim=1).detach()
        target_entropy = self.config.target_entropy_ratio * torch.log(legal.sum(dim=1).clamp_min(1).double()).float()
        alpha_loss = (self.log_alpha.exp() * (entropy - target_entropy)).mean()
        self.alpha_opt.zero_grad(set_to_none=True)
        alpha_loss.backward()
        self.alpha_opt.step()
        with torch.no_grad():  # Polyak targets
            for net, tgt in ((self.q1, self.q1_target), (self.q2, self.q2_target)):
                for w, w_t in zip(net.parameters(), tgt.parameters()):
                    w_t.mul_(1.0 - self.config.tau).add_(w, alpha=self.config.tau)
        return float(q_loss.detach())

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {"log_alpha": self.log_alpha.detach().numpy().copy(), **super().state_arrays()}

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        with torch.no_grad():
            self.log_alpha.copy_(torch.as_tensor(np.asarray(arrays["log_alpha"])).reshape(()))
        super().load_state_arrays(arrays)


class NFSPSAC(OneThreadTorchSolver, AnticipatoryFSP):
    """NFSP whose best responses are learned by discrete soft actor-critic (seed 001 Alg. 10)."""

    algorithm = "nfsp-sac"
    citation = ('NFSP with discrete soft actor-critic best responses', 'Heinrich & Silver 2016; Christodoulou 2019')
    default_iterations = 15_000  # to its exploitability target on Kuhn (BENCHMARKS.md, "Learned defaults")
    Config = NFSPSACConfig
    config: NFSPSACConfig
    presets = {"paper": {"hidden_sizes": (256, 256), "rl_memory": 1_000_000, "batch_size": 256, "rl_lr": 3e-4,
                         "tau": 0.005, "target_entropy_ratio": 0.98}}
    preset_sources = {"paper": "SAC (Haarnoja et al. 2018): networks, memory, batch, step size, tau; the "
                               "target entropy of discrete SAC (Christodoulou 2019)"}
    default_sources = {"eta": "measured", "learn_every": "measured", "min_buffer": "measured",
                       "sl_lr": "measured", "*": "ours"}

    _observation_size = NFSP._observation_size
    _encode = NFSP._encode

    def _make_agent(self, player: int) -> ApproximateAgent:
        return SACAgent(self.obs_size, self.num_actions, self.config, self.rng)
