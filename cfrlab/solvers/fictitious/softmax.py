"""Fictitious self-play with softmax regression (Kawamura, Mizukami & Tsuruoka 2017; seed 004 sec. 4.2).

The anticipatory loop of NFSP (``cfrlab.solvers.neural.anticipatory``) with a linear softmax
average policy Pi and a linear Q, both over features of the information state, trained by plain SGD.

Choices and deviations, and why:
* Seed 004 eq. 20 writes the Q target with the policy weights w_Pi; that is a typo for the
  target Q weights (NFSP's loss, seed 001 Alg. 8 line 20), which we use.
* Seed 004's features are "cards, bets, past actions and their products": we take the game's
  ``information_state_tensor`` (which one-hot encodes player, cards and every past action), a
  bias, and all pairwise products, scaled to unit norm. Unit norm is what makes seed 004's large
  learning rates (SL 0.25, Q 1.0) stable: an SGD step on a unit-norm input moves the output by at
  most the learning rate times the error (the normalised LMS condition).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import State
from cfrlab.solvers.neural.anticipatory import ApproximateAgent, QAgent, QLearningFSP
from cfrlab.solvers.selfplay import masked_softmax


class QuadraticFeatures:
    """x(s) = [1, t, t_i t_j (i < j)] / norm, t = information_state_tensor (seed 004's feature products)."""

    def __init__(self, tensor_size: int) -> None:
        self.tensor_size = tensor_size
        self._iu = np.triu_indices(tensor_size, k=1)
        self.size = 1 + tensor_size + len(self._iu[0])

    def __call__(self, tensor: NDArray[np.float32]) -> NDArray[np.float32]:
        t = np.asarray(tensor, dtype=np.float32)
        x = np.concatenate([[1.0], t, np.outer(t, t)[self._iu]]).astype(np.float32)
        return x / np.linalg.norm(x)


class LinearAgent(QAgent):
    """Linear Q (w_Q(a)^T x) and linear softmax Pi (softmax w_Pi(a)^T x), trained by plain SGD (seed 004)."""

    def __init__(self, num_features: int, num_actions: int, rl_lr: float, sl_lr: float) -> None:
        self.w_q = np.zeros((num_actions, num_features))
        self.w_q_target = self.w_q.copy()
        self.w_pi = np.zeros((num_actions, num_features))
        self.rl_lr, self.sl_lr = rl_lr, sl_lr

    def q_values(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        return obs @ self.w_q.T

    def average_logits(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        return obs @ self.w_pi.T

    def learn_rl(self, batch: Mapping[str, np.ndarray]) -> float:
        x, a = batch["obs"].astype(np.float64), batch["action"]
        nxt = np.where(batch["next_legal"], batch["next_obs"] @ self.w_q_target.T, -np.inf).max(axis=1)
        target = batch["reward"] + np.where(batch["done"], 0.0, nxt)
        td = target - np.einsum("bf,bf->b", x, self.w_q[a])
        grad = np.zeros_like(self.w_q)
        np.add.at(grad, a, td[:, None] * x)  # -dE_Q/dw_Q(a), eq. 20
        self.w_q += self.rl_lr * grad / len(a)
        return float(np.mean(td**2))

    def learn_sl(self, batch: Mapping[str, np.ndarray]) -> float:
        x, a, legal = batch["obs"].astype(np.float64), batch["action"], batch["legal"]
        p = masked_softmax(x @ self.w_pi.T, legal)
        onehot = np.zeros_like(p)
        onehot[np.arange(len(a)), a] = 1.0
        self.w_pi -= self.sl_lr * (p - onehot).T @ x / len(a)  # dE_Pi/dw_Pi, eq. 19
        return float(-np.mean(np.log(np.maximum(p[np.arange(len(a)), a], 1e-12))))

    def update_target(self) -> None:
        self.w_q_target = self.w_q.copy()

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {"w_q": self.w_q, "w_q_target": self.w_q_target, "w_pi": self.w_pi}

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        for name in ("w_q", "w_q_target", "w_pi"):
            value = np.array(arrays[name], dtype=np.float64)
            if value.shape != getattr(self, name).shape:
                raise ValueError(f"{name} has shape {value.shape}, expected {getattr(self, name).shape}")
            setattr(self, name, value)


class SoftmaxFSP(QLearningFSP):
    """FSP with softmax regression (seed 004 sec. 4.2): linear softmax Pi, linear Q, product features.

    Seed 004's memories, learning rates and target period are the config defaults; it leaves the
    rest to NFSP's paper (``--preset paper``), where we choose more frequent updates (every 4 own
    steps) and epsilon decaying to 0 over 30 000 own steps, which on 2-player Kuhn reach a given
    exploitability in fewer episodes (BENCHMARKS.md, "Learned defaults").
    """

    algorithm = "fsp-softmax"
    citation = ('fictitious self-play with softmax regression', 'Kawamura, Mizukami & Tsuruoka 2017')
    default_iterations = 45_000  # to its exploitability target on Kuhn (BENCHMARKS.md, "Learned defaults")
    defaults = {"learn_every": 4, "epsilon_decay_steps": 30_000}
    presets = {"paper": {"rl_memory": 3_000, "sl_memory": 40_000, "target_update_every": 400, "rl_lr": 1.0,
                         "sl_lr": 0.25, "eta": 0.1, "batch_size": 128, "learn_every": 64, "epsilon_start": 0.06,
                         "epsilon_decay_steps": 1_000_000}}
    preset_sources = {"paper": "Kawamura, Mizukami & Tsuruoka 2017, sec. 4.2; the rest as NFSP's "
                               "(Heinrich & Silver 2016), which it defers to"}
    default_sources = {"*": "ours (neither paper gives a value)"}

    def _observation_size(self) -> int:
        self.features = QuadraticFeatures(self.game.information_state_tensor_size())
        return self.features.size

    def _encode(self, state: State, player: int) -> NDArray[np.float32]:
        return self.features(state.information_state_tensor(player))

    def _make_agent(self, player: int) -> ApproximateAgent:
        return LinearAgent(self.obs_size, self.num_actions, self.config.rl_lr, self.config.sl_lr)


__all__ = ["SoftmaxFSP", "LinearAgent", "QuadraticFeatures"]
