"""The losses of learning Koi-Koi from outcomes and the optimiser steps over one iteration's rows.

Rows are ``rollout``'s: features, legal mask, action, the behaviour's probability of it, the mover's return G
(``target``: the final round points, or their lambda-return with ``--td-lambda``) and match-win probability after
the round. The methods train ``model.KoiKoiNet`` (the value head's first
output V(s) in points, the action head ``policy``) and write the usual weights file (``neural.act`` says what the
head means):

* ``dmc``, Deep Monte Carlo (Zha, Xie, Ma et al. 2021, "DouZero", sec. 4): the loss is the squared error of
  Q(s, a_taken) against G, plus the same of V(s), both over ``POINT_SCALE`` (the heads learn numbers near 1;
  ``to_file`` folds the scale in, so the file speaks in points). Q is dueling (Wang et al. 2016, eq. 9): the action
  head gives advantages A(s, a) and Q(s, a) = V(s) + A(s, a) - the mean of A over the legal actions, so every row
  teaches the shared V and the action head only the differences between actions, which in Koi-Koi are a point or
  less against returns that scatter by 9.
* ``afterstate``, Deep Monte Carlo on afterstates (``neural.afterstate``): a row's features are those of the
  chosen action's afterstate, and the loss is V's squared error against G over ``POINT_SCALE``: the value of the
  position an action leads to is that action's value, learned by the same regression as DMC's (TD-Gammon's
  afterstate values, Tesauro 1995, with DouZero's Monte Carlo targets). With ``--objective match`` the loss adds
  the binary cross-entropy of the value head's second output, the logit of the mover winning the match, against
  the match-win probability of the match state the round led to (``rollout``: the match table's, Guan et al.
  2023), so the file ranks actions by that probability and still holds V in points (the search's cut reads it).
* ``ppo``, proximal policy optimisation (Schulman et al. 2017, "Proximal Policy Optimization Algorithms", eq. 7):
  the clipped surrogate of the ratio of the policy's probability of a_taken to the behaviour's, on the advantage
  (G - V(s)) / ``POINT_SCALE`` (V held fixed in it), plus ``value_weight`` times V's squared error, minus
  ``entropy_weight`` times the policy's entropy over the legal actions.

``Fitter`` keeps Adam's moments between iterations and gives them as arrays for the checkpoint (``state``), so a
resumed run takes the same steps as an uninterrupted one (on the CPU; a GPU need not be bit for bit).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.games.koikoi.learn.fit import default_device, legal_rows
from cfrlab.games.koikoi.learn.model import POINT_SCALE, KoiKoiNet
from cfrlab.games.koikoi.neural.weights import NetWeights
from cfrlab.solvers.neural.training import masked_log_softmax, torch_threads

METHODS = ("dmc", "afterstate", "ppo")
HEAD_OF = {"dmc": "q", "afterstate": "after", "ppo": "policy"}
MATCH_METHODS = ("afterstate",)
"""The methods that learn for the match (``--objective match``): an afterstate's value is a probability there,
while DMC's and PPO's action heads speak in points."""
CLIP = 0.2
"""PPO's ratio clip (Schulman et al. 2017, sec. 6: 0.2 did best)."""


def to_file(net: KoiKoiNet, method: str) -> NetWeights:
    """The weights of ``net`` as the file holds them: DMC's action head scaled to points."""
    w = net.to_weights()
    if HEAD_OF[method] == "q":
        w = w._replace(wp=w.wp * np.float32(POINT_SCALE), bp=w.bp * np.float32(POINT_SCALE))
    return w


def from_file(weights: NetWeights, method: str) -> KoiKoiNet:
    """The network of a file's ``weights`` (inverse of ``to_file``)."""
    if HEAD_OF[method] == "q":
        scale = np.float32(1.0 / POINT_SCALE)
        weights = weights._replace(wp=weights.wp * scale, bp=weights.bp * scale)
    return KoiKoiNet.from_weights(weights)


def win_from_points(weights: NetWeights, slope: float) -> NetWeights:
    """``weights`` with the value head's second output (the win logit) set to ``slope`` times its first (points):
    a points file as the start of a run for the match (``match.level_slope``: the logit's slope in the lead near
    level scores), which ranks the afterstates within a round as the points did from its first iteration."""
    wv, bv = weights.wv.copy(), weights.bv.copy()
    wv[:, 1], bv[1] = np.float32(slope) * wv[:, 0], np.float32(slope) * bv[0]
    return weights._replace(wv=wv, bv=bv)


def tensors(rows: Mapping[str, NDArray[Any]], device: torch.device) -> dict[str, torch.Tensor]:
    """The tensors of a batch of rows on ``device``."""
    arrays = {"features": np.asarray(rows["features"], dtype=np.int64), "legal": legal_rows(rows["legal"]),
              "action": np.asarray(rows["action"], dtype=np.int64)[:, None],
              "logp_old": np.log(np.asarray(rows["prob"], dtype=np.float32)),
              "target": np.asarray(rows["target"], dtype=np.float32) / np.float32(POINT_SCALE),
              "win": np.asarray(rows["win"], dtype=np.float32)}
    return {k: torch.from_numpy(np.ascontiguousarray(v)).to(device) for k, v in arrays.items()}


def loss_terms(net: KoiKoiNet, t: Mapping[str, torch.Tensor], method: str, value_weight: float = 1.0,
               entropy_weight: float = 0.01, objective: str = "points") -> dict[str, torch.Tensor]:
    """The loss (``total``) and its terms for ``method`` and ``objective`` (module docstring) on the batch ``t``
    (``tensors``)."""
    values, out = net(t["features"])
    v = values[:, 0] / POINT_SCALE
    value_loss = ((v - t["target"]) ** 2).mean()
    if method == "afterstate" and objective == "match":  # the win logit on the match-win probability, V on points
        win_loss = nn.functional.binary_cross_entropy_with_logits(values[:, 1], t["win"])
        return {"total": win_loss + value_loss, "win": win_loss, "value": value_loss}
    if method == "afterstate":  # the rows are the chosen actions' afterstates: V is the action value
        return {"total": value_loss, "value": value_loss}
    if method == "dmc":  # dueling: Q = V + A - mean of A over the legal actions
        legal = t["legal"].to(out.dtype)
        mean = (out * legal).sum(dim=1) / legal.sum(dim=1).clamp_min(1)
        q = v + out.gather(1, t["action"])[:, 0] - mean
        q_loss = ((q - t["target"]) ** 2).mean()
        return {"total": q_loss + value_loss, "q": q_loss, "value": value_loss}
    logp = masked_log_softmax(out, t["legal"])
    ratio = torch.exp(logp.gather(1, t["action"])[:, 0] - t["logp_old"])
    advantage = t["target"] - v.detach()
    surrogate = torch.minimum(ratio * advantage, torch.clamp(ratio, 1 - CLIP, 1 + CLIP) * advantage).mean()
    entropy = -(torch.exp(logp) * logp * t["legal"]).sum(dim=1).mean()
    total = -surrogate + value_weight * value_loss - entropy_weight * entropy
    return {"total": total, "surrogate": surrogate, "value": value_loss, "entropy": entropy}


class Fitter:
    """Adam on ``net`` (``lr``), its moments kept across calls of ``fit`` and in ``state`` (the checkpoint's)."""

    def __init__(self, net: KoiKoiNet, method: str, lr: float, device: torch.device | str | None = None,
                 threads: int | None = 1, objective: str = "points") -> None:
        self.device = torch.device(device) if device is not None else default_device()
        self.net, self.method, self.threads, self.objective = net.to(self.device), method, threads, objective
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=lr)

    def fit(self, rows: Mapping[str, NDArray[Any]], batch: int, epochs: int,
            rng: np.random.Generator) -> dict[str, float]:
        """``epochs`` passes over ``rows`` in batches of ``batch`` drawn by ``rng``; the mean of each loss term."""
        n = len(rows["action"])
        sums: dict[str, float] = {}
        steps = 0
        self.net.train()
        with torch_threads(self.threads), torch.enable_grad():
            for _ in range(epochs):
                order = rng.permutation(n)
                for start in range(0, n - batch // 2, batch):  # a last batch under half the size is left out
                    pick = order[start:start + batch]
                    terms = loss_terms(self.net, tensors({k: v[pick] for k, v in rows.items()}, self.device),
                                       self.method, objective=self.objective)
                    self.optimizer.zero_grad(set_to_none=True)
                    terms["total"].backward()
                    nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
                    self.optimizer.step()
                    for key, term in terms.items():
                        sums[key] = sums.get(key, 0.0) + float(term.detach())
                    steps += 1
        self.net.eval()
        return {k: v / max(steps, 1) for k, v in sums.items()}

    def state(self) -> dict[str, np.ndarray]:
        """Adam's moments and step counts as arrays (``restore`` reads them back)."""
        out: dict[str, np.ndarray] = {}
        for i, p in enumerate(self.net.parameters()):
            s = self.optimizer.state.get(p)
            if s:
                out[f"adam_m{i}"] = s["exp_avg"].detach().cpu().numpy().copy()
                out[f"adam_v{i}"] = s["exp_avg_sq"].detach().cpu().numpy().copy()
                out[f"adam_t{i}"] = np.array([float(s["step"])], dtype=np.float64)
        return out

    def restore(self, arrays: Mapping[str, np.ndarray]) -> None:
        """Adam's moments from ``state``'s arrays (parameters without any keep a fresh state)."""
        for i, p in enumerate(self.net.parameters()):
            if f"adam_m{i}" not in arrays:
                continue
            m, v = arrays[f"adam_m{i}"], arrays[f"adam_v{i}"]
            if m.shape != tuple(p.shape) or v.shape != tuple(p.shape):
                raise ValueError(f"optimiser state {i} has shape {m.shape}, the network's parameter {tuple(p.shape)}")
            self.optimizer.state[p] = {
                "step": torch.tensor(float(arrays[f"adam_t{i}"][0])),
                "exp_avg": torch.from_numpy(np.array(m, dtype=np.float32)).to(self.device),
                "exp_avg_sq": torch.from_numpy(np.array(v, dtype=np.float32)).to(self.device)}
