"""NFSP with PPO as the best-response learner (seed 001 sec. 1.9, Alg. 9).

The anticipatory loop of NFSP (``cfrlab.solvers.neural.anticipatory.AnticipatoryFSP``), with the
eps-greedy Q learner replaced by proximal policy optimisation (Schulman et al. 2017, arXiv
1707.06347) over a policy network beta with a value head V:
  1. per episode and player i, follow beta_i with probability eta, else the average policy Pi_i;
     while following beta_i, store (s, a, r, s') in i's on-policy RL memory and (s, a) in i's
     reservoir SL memory;
  2. once i's RL memory holds ``rollout_steps`` transitions (whole episodes), compute advantages
     by GAE: delta_t = r_t + gamma V(s_{t+1}) - V(s_t), A_t = delta_t + gamma lambda A_{t+1}
     (zero past the end of an episode), and returns R_t = A_t + V(s_t);
  3. for ``epochs`` passes over the rollout in shuffled minibatches, minimise
     -min(rho A, clip(rho, 1 - c, 1 + c) A) + value_coef (V(s) - R)^2 - entropy_coef H(beta(s)),
     rho = beta_theta(a|s) / beta_old(a|s); then empty the RL memory (beta_old <- beta_theta);
  4. every ``learn_every`` own steps, one cross-entropy step of Pi on the SL memory.
Pi is the policy evaluated (``average_policy``, tabulated exactly on the compiled tree); it
approaches a Nash equilibrium in two-player zero-sum games as NFSP's does.

Deviations from seed 001 Alg. 9, and why:
* Alg. 9 runs N actors per iteration, actor k making player (k - 1) % NP follow beta_old and
  every other player Pi. We reuse NFSP's anticipatory loop instead (every player picks beta with
  probability eta per episode, independently), so all NFSP variants share one loop, one SL
  memory and one checkpoint format; an update happens when a player has ``rollout_steps`` of
  its own best-response transitions rather than after N episodes. With small eta the opponents
  mostly play Pi, which is Alg. 9's setting.
* Alg. 9 keeps a second network beta_old and stores its distribution pd_t. Our rollout is
  consumed whole right after it was collected by the current parameters, so beta_old is the
  network as it stands when the update starts; log beta_old(a|s) is computed then, once, and
  equals the stored pd_t exactly. ``Pi_old <- Pi`` (line 29) plays no part in any loss; dropped.
* Alg. 9 leaves the advantage estimate open; we use GAE(lambda) with gamma = 1 (episodic games,
  payoffs only at the end), advantages normalised per rollout, and one network with a policy
  head and a value head (the PPO paper's shared-parameter loss, its eq. 9).
* Pi is trained every ``learn_every`` own steps from the reservoir memory, as in NFSP, rather
  than once per iteration. Illegal actions are masked out of every softmax.

Randomness: network initialisation and minibatch shuffling come from the solver's generator
(``cfrlab.seeding.torch_generator``); checkpoints hold the torch generator's state too, so
"run N, save, load, run M" equals "run N + M".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.seeding import torch_generator
from cfrlab.solvers.neural.anticipatory import AnticipatoryConfig, AnticipatoryFSP, ApproximateAgent, StochasticAgent
from cfrlab.solvers.neural.nets import MLP
from cfrlab.solvers.neural.nfsp import NFSP, AverageNetworkAgent, OneThreadTorchSolver, optimizer_step
from cfrlab.solvers.neural.training import masked_log_softmax


@dataclasses.dataclass(frozen=True)
class NFSPPPOConfig(AnticipatoryConfig):
    """NFSP with PPO best responses (seed 001 Alg. 9).

    The defaults did best in our measurements on Kuhn (BENCHMARKS.md, "Learned defaults"): many small PPO
    steps per rollout, so that beta tracks the moving average policy, and eta 0.5.
    """

    eta: float = 0.5
    """Anticipatory parameter: probability that a player follows its PPO policy in an episode."""
    hidden_sizes: tuple[int, ...] = (64,)
    """Hidden layer widths of the policy/value network and of the average-policy network."""
    rollout_steps: int = 128
    """Own best-response transitions collected per player before each PPO update (the on-policy batch)."""
    epochs: int = 10
    """Passes of PPO over each rollout."""
    minibatch_size: int = 16
    """Rows per PPO gradient step."""
    clip: float = 0.2
    """PPO's clipping range c: the ratio rho is clipped to [1 - c, 1 + c]."""
    gamma: float = 1.0
    """Discount of the advantage estimate (1: episodic games, payoffs at the end)."""
    gae_lambda: float = 0.95
    """lambda of generalised advantage estimation (1: Monte Carlo returns minus V, 0: one-step TD)."""
    value_coef: float = 0.5
    """Weight of the value head's squared error in the PPO loss."""
    entropy_coef: float = 0.01
    """Weight of the entropy bonus in the PPO loss."""
    normalize_advantages: bool = True
    """Standardise the advantages of each rollout (mean 0, standard deviation 1)."""
    max_grad_norm: float | None = 0.5
    """Gradient-norm clipping of the PPO steps (None: off)."""
    rl_memory: int = 1_024
    """Capacity of each player's on-policy RL memory: must hold a rollout plus one episode."""
    sl_memory: int = 200_000
    """Capacity of each player's reservoir SL memory ((s, a) pairs)."""
    batch_size: int = 128
    """Minibatch size of the supervised (average-policy) step."""
    learn_every: int = 8
    """Own steps between two supervised steps of Pi."""
    min_buffer: int = 256
    """Rows the SL memory must hold before Pi is trained."""
    rl_lr: float = 0.005
    """Adam learning rate of the policy/value network."""
    sl_lr: float = 0.002
    """Adam learning rate of the average-policy network."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.hidden_sizes or any(h <= 0 for h in self.hidden_sizes):
            raise ValueError(f"hidden_sizes must be positive widths, got {self.hidden_sizes}")
        for name in ("rollout_steps", "epochs", "minibatch_size"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.rl_memory <= self.rollout_steps:
            raise ValueError(f"rl_memory ({self.rl_memory}) must exceed rollout_steps ({self.rollout_steps}) "
                             "by at least one episode's own steps")
        if not 0.0 < self.clip < 1.0:
            raise ValueError(f"clip must be in (0, 1), got {self.clip}")
        if not (0.0 <= self.gamma <= 1.0 and 0.0 <= self.gae_lambda <= 1.0):
            raise ValueError(f"gamma and gae_lambda must be in [0, 1], got {self.gamma}, {self.gae_lambda}")


def ppo_clip_loss(logp: torch.Tensor, logp_old: torch.Tensor, advantages: torch.Tensor, clip: float) -> torch.Tensor:
    """PPO's clipped surrogate, as a loss: -mean(min(rho A, clip(rho, 1 - clip, 1 + clip) A)),
    rho = exp(logp - logp_old)."""
    ratio = torch.exp(logp - logp_old)
    return -torch.minimum(ratio * advantages, ratio.clamp(1.0 - clip, 1.0 + clip) * advantages).mean()


def gae_advantages(rewards: NDArray[np.floating], values: NDArray[np.floating], next_values: NDArray[np.floating],
                   done: NDArray[np.bool_], gamma: float, lam: float) -> NDArray[np.float64]:
    """Generalised advantage estimates over transitions stored in play order (episodes end where ``done``).

    delta_t = r_t + gamma (1 - done_t) V(s'_t) - V(s_t); A_t = delta_t + gamma lam (1 - done_t) A_{t+1}.
    """
    live = ~np.asarray(done, dtype=bool)
    delta = np.asarray(rewards, np.float64) + gamma * live * np.asarray(next_values, np.float64) \
        - np.asarray(values, np.float64)
    out = np.zeros_like(delta)
    running = 0.0
    for t in range(len(delta) - 1, -1, -1):
        running = delta[t] + gamma * lam * live[t] * running
        out[t] = running
    return out


class PPOAgent(AverageNetworkAgent, StochasticAgent):
    """One player's policy/value network beta (PPO) and its average-policy network Pi."""

    modules = ("net", "avg")
    optimizers = ("opt", "avg_opt")

    def __init__(self, obs_size: int, num_actions: int, config: NFSPPPOConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.num_actions = num_actions
        self.rollout_size = config.rollout_steps
        # outputs: num_actions policy logits, then the value head
        self.net = MLP(obs_size, config.hidden_sizes, num_actions + 1, generator=rng)
        self._build_average(obs_size, num_actions, config.hidden_sizes, config.sl_lr, rng)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=config.rl_lr)
        self.generator = torch_generator(rng)
        """Shuffles the minibatches of each PPO epoch."""

    def _heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(obs)
        return out[:, : self.num_actions], out[:, self.num_actions]

    @torch.no_grad()
    def best_response_probs(self, obs: NDArray[np.float32], legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        logits = self._heads(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))[None])[0]
        return masked_log_softmax(logits, torch.from_numpy(legal)[None]).exp()[0].double().numpy() * legal

    @torch.no_grad()
    def values(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        """V(s) for a batch of observations."""
        return self._heads(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)))[1].double().numpy()

    def learn_rl(self, batch: Mapping[str, np.ndarray]) -> float:
        """The PPO update on one on-policy rollout (rows in play order); returns the mean loss."""
        cfg = self.config
        obs = torch.from_numpy(np.array(batch["obs"], dtype=np.float32))
        legal = torch.from_numpy(np.array(batch["legal"], dtype=bool))
        action = torch.from_numpy(np.array(batch["action"], dtype=np.int64))[:, None]
        with torch.no_grad():  # beta_old: the parameters that collected the rollout
            logits, value = self._heads(obs)
            logp_old = masked_log_softmax(logits, legal).gather(1, action).squeeze(1)
            next_value = self._heads(torch.from_numpy(np.array(batch["next_obs"], dtype=np.float32)))[1]
        adv_np = gae_advantages(batch["reward"], value.double().numpy(), next_value.double().numpy(), batch["done"],
                                cfg.gamma, cfg.gae_lambda)
        advantages = torch.from_numpy(adv_np).float()
        returns = advantages + value
        if cfg.normalize_advantages and len(advantages) > 1:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        losses = []
        for _ in range(cfg.epochs):
            for idx in torch.randperm(len(obs), generator=self.generator).split(cfg.minibatch_size):
                logits, v = self._heads(obs[idx])
                logp_all = masked_log_softmax(logits, legal[idx])
                logp = logp_all.gather(1, action[idx]).squeeze(1)
                entropy = -(logp_all.exp() * logp_all).masked_fill(~legal[idx], 0.0).sum(dim=1).mean()
                loss = (ppo_clip_loss(logp, logp_old[idx], advantages[idx], cfg.clip)
                        + cfg.value_coef * nn.functional.mse_loss(v, returns[idx]) - cfg.entropy_coef * entropy)
                losses.append(optimizer_step(self.opt, self.net, loss, cfg.max_grad_norm))
        return float(np.mean(losses))

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {**super().state_arrays(), "generator": self.generator.get_state().numpy().copy()}

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        super().load_state_arrays(arrays)
        self.generator.set_state(torch.from_numpy(np.array(arrays["generator"], dtype=np.uint8)))


class NFSPPPO(OneThreadTorchSolver, AnticipatoryFSP):
    """NFSP whose best responses are learned by PPO (seed 001 Alg. 9), any number of players."""

    algorithm = "nfsp-ppo"
    citation = ('NFSP with PPO best responses', 'Heinrich & Silver 2016; Schulman et al. 2017')
    default_iterations = 15_000  # to its exploitability target on Kuhn (BENCHMARKS.md, "Learned defaults")
    Config = NFSPPPOConfig
    config: NFSPPPOConfig
    presets = {"paper": {"rollout_steps": 2048, "rl_memory": 4096, "epochs": 10, "minibatch_size": 64, "rl_lr": 3e-4,
                         "clip": 0.2, "gamma": 0.99, "gae_lambda": 0.95}}
    preset_sources = {"paper": "PPO's MuJoCo settings (Schulman et al. 2017, Table 3); the NFSP loop as the "
                               "defaults (seed 001 Alg. 9 gives no values)"}
    default_sources = {"rl_memory": "ours (a rollout plus one episode)", "eta": "measured",
                       "rollout_steps": "ours", "gamma": "ours (episodic games)", "*": "ours"}

    _observation_size = NFSP._observation_size
    _encode = NFSP._encode

    def _make_agent(self, player: int) -> ApproximateAgent:
        return PPOAgent(self.obs_size, self.num_actions, self.config, self.rng)

    def networks(self, player: int) -> dict[str, nn.Module]:
        """Player ``player``'s networks by name (``net``: policy and value heads, ``avg``: Pi)."""
        agent = self.agents[player]
        assert isinstance(agent, PPOAgent)
        return {"net": agent.net, "avg": agent.avg}


__all__ = ["NFSPPPO", "NFSPPPOConfig", "PPOAgent", "ppo_clip_loss", "gae_advantages"]
