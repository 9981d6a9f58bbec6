"""Training the Koi-Koi network on self-play decisions: the loss and Adam steps over batches.

A batch is a dict of numpy arrays as ``dataset`` yields them: ``features`` int (n, K) active indices padded
with -1, ``legal`` uint64 bit masks of the 50 actions, ``values`` float (n, 50) the search's mean value of each
legal action (NaN elsewhere), ``choice`` int the search's action, ``points`` float the mover's final round
points, ``match_win`` int 1/0 whether the mover won the match (-1 unknown). The loss is the weighted sum of

* ``points``: squared error of the points output against the round's final points, both over ``POINT_SCALE``;
* ``search``: the same toward the search's mean value of its own choice, a lower-variance target of nearly the
  same quantity (one decision's final points scatter by 10 points, the search's value by 5; their correlation is
  0.53). Measured (BENCHMARKS.md, the learned evaluator): trained on both, a network predicts the held-out final
  points better than trained on them alone (loss 1.315 against 1.36 after 1,200 steps on 153,000 decisions, 128
  x 32), so ``search_weight`` defaults to 1 (0: the outcome alone). The values must be round points for the mover
  (the search's points objective); rows whose value at the choice is NaN are left out;
* ``win``: binary cross-entropy of the win logit on ``match_win`` where it is known (0 on a batch with none);
* ``policy``: cross-entropy of the policy logits, masked to the legal actions, on the search's choice.

``fit`` runs ``steps`` Adam steps (a fresh optimizer each call, gradient norm clipped to 1) on a GPU when one is
present (``device=None``), else the CPU; on the CPU the same network, batches and seed give the same weights (on a
GPU they need not, bit for bit, though they did twice on an H200: pass ``device="cpu"`` where a run must be
reproducible everywhere). At 128 x 32 a step of 256 decisions takes 4 ms of one CPU thread and as long on an H200,
whose step costs 5-6.5 ms at any size up to batches of 4,096 (BENCHMARKS.md, training on a GPU). On one
generation's data (150,000 decisions) the value heads stop improving on held-out decisions after one or two
epochs (BENCHMARKS.md), so ``steps`` should cover about that.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.games.koikoi.learn.model import POINT_SCALE, KoiKoiNet
from cfrlab.games.koikoi.rules.engine_state import NUM_ACTIONS
from cfrlab.seeding import as_generator
from cfrlab.solvers.neural.training import array_sampler, masked_log_softmax, torch_threads

LOSSES = ("points", "search", "win", "policy")
_BITS = np.arange(NUM_ACTIONS, dtype=np.uint64)


def legal_rows(legal: NDArray[np.uint64]) -> NDArray[np.bool_]:
    """(n, 50) booleans of the (n,) uint64 bit masks of legal actions."""
    return ((np.asarray(legal, dtype=np.uint64)[:, None] >> _BITS) & np.uint64(1)).astype(bool)


def batch_tensors(batch: Mapping[str, NDArray[Any]], device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    """The tensors the loss reads, from a dataset batch (module docstring), on ``device``."""
    features = np.asarray(batch["features"]).astype(np.int64)
    legal = legal_rows(batch["legal"])
    rows = np.arange(len(features))
    choice = np.asarray(batch["choice"]).astype(np.int64)
    if np.any((choice < 0) | (choice >= NUM_ACTIONS)) or not legal[rows, np.clip(choice, 0, NUM_ACTIONS - 1)].all():
        raise ValueError("a batch holds a choice that is not one of its legal actions")
    chosen_value = np.asarray(batch["values"], dtype=np.float32)[rows, choice]
    match_win = np.asarray(batch["match_win"]).astype(np.float32)
    arrays = {"features": features, "legal": legal, "choice": choice,
              "points": np.asarray(batch["points"], dtype=np.float32),
              "search_value": np.nan_to_num(chosen_value), "search_known": np.isfinite(chosen_value),
              "match_win": np.maximum(match_win, 0.0), "win_known": match_win >= 0}
    return {k: torch.from_numpy(np.ascontiguousarray(v)).to(device) for k, v in arrays.items()}


def _masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (x * mask).sum() / mask.sum().clamp_min(1)


def losses(net: KoiKoiNet, t: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Each loss term (module docstring) of the batch ``t`` (``batch_tensors``), and the policy's accuracy."""
    values, logits = net(t["features"])
    points = values[:, 0] / POINT_SCALE
    logp = masked_log_softmax(logits, t["legal"])
    choice = t["choice"][:, None]
    return {
        "points": ((points - t["points"] / POINT_SCALE) ** 2).mean(),
        "search": _masked_mean((points - t["search_value"] / POINT_SCALE) ** 2, t["search_known"].float()),
        "win": _masked_mean(nn.functional.binary_cross_entropy_with_logits(
            values[:, 1], t["match_win"], reduction="none"), t["win_known"].float()),
        "policy": -logp.gather(1, choice).mean(),
        "accuracy": (logp.argmax(dim=1, keepdim=True) == choice).float().mean().detach(),
    }


def default_device() -> torch.device:
    """The first GPU when torch sees one, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def fit(net: KoiKoiNet, batches: Iterable[Mapping[str, NDArray[Any]]] | Mapping[str, NDArray[Any]], steps: int,
        lr: float = 1e-3, seed: int = 0, *, batch_size: int = 256, search_weight: float = 1.0,
        win_weight: float = 1.0, policy_weight: float = 1.0, device: torch.device | str | None = None,
        threads: int | None = None) -> dict[str, float]:
    """Train ``net`` in place for ``steps`` Adam steps; the mean of each loss over the steps (and ``steps`` done).

    ``batches``: an iterable of dataset batches (one per step; fewer steps when it runs out), or one dict of
    arrays from which ``seed`` draws ``batch_size`` rows per step. ``net`` moves to ``device`` (None: a GPU when
    present); ``threads``: torch's CPU threads during the fit (None: unchanged)."""
    if steps < 0 or lr <= 0 or batch_size <= 0:
        raise ValueError(f"steps must be >= 0, lr and batch_size > 0; got {steps}, {lr}, {batch_size}")
    device = torch.device(device) if device is not None else default_device()
    weights = {"points": 1.0, "search": search_weight, "win": win_weight, "policy": policy_weight}
    net.to(device).train()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    sums: dict[str, float] = {}
    done = 0
    with torch_threads(threads), torch.enable_grad():
        for batch in _batches(batches, steps, batch_size, seed):
            terms = losses(net, batch_tensors(batch, device))
            total = torch.stack([weights[k] * terms[k] for k in LOSSES]).sum()
            optimizer.zero_grad(set_to_none=True)
            total.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            for key, term in {"loss": total, **terms}.items():
                sums[key] = sums.get(key, 0.0) + float(term.detach())
            done += 1
    net.eval()
    return {**{k: v / max(done, 1) for k, v in sums.items()}, "steps": float(done)}


def evaluate(net: KoiKoiNet, batches: Iterable[Mapping[str, NDArray[Any]]],
             device: torch.device | str | None = None) -> dict[str, float]:
    """Each loss term and the policy's agreement with the choice, averaged over the rows of ``batches`` (held-out
    data: no gradient, ``net`` unchanged)."""
    device = torch.device(device) if device is not None else next(net.parameters()).device
    sums: dict[str, float] = {}
    rows: dict[str, float] = {}
    net.to(device).eval()
    with torch.no_grad():
        for batch in batches:
            t = batch_tensors(batch, device)
            counted = {"search": float(t["search_known"].sum()), "win": float(t["win_known"].sum())}
            for key, term in losses(net, t).items():
                n = counted.get(key, float(len(t["choice"])))
                sums[key] = sums.get(key, 0.0) + float(term) * n
                rows[key] = rows.get(key, 0.0) + n
    return {k: v / max(rows[k], 1.0) for k, v in sums.items()}


def _batches(batches: Iterable[Mapping[str, NDArray[Any]]] | Mapping[str, NDArray[Any]], steps: int,
             batch_size: int, seed: int) -> Iterator[Mapping[str, NDArray[Any]]]:
    if isinstance(batches, Mapping):
        sample = array_sampler(batches, batch_size, as_generator(seed))
        for _ in range(steps):
            yield sample()
        return
    yield from itertools.islice(batches, steps)
