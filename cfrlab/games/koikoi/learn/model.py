"""The Koi-Koi network in PyTorch (for training): NNUE-style sparse input, two clipped-ReLU layers, two heads.

``KoiKoiNet(num_features, hidden=(H1, H2))`` maps the active feature indices of a position (a row padded with
-1) to ``value`` (2: the mover's expected round points, and the logit of the mover winning the match) and
``policy`` (50 logits over the actions, masked to the legal ones by the loss). The first layer is an
``nn.EmbeddingBag(mode="sum")``: the sum of the active features' rows plus a bias, which is the dense layer on
the binary input vector computed from its few ones, as NNUE does (Nasu 2018). Activations are clipped ReLUs,
``clamp(x, 0, 1)``, as in NNUE: bounded, and most first-layer units are exactly 0, which ``infer`` skips.

The points output is the head's raw output times ``POINT_SCALE``, so the head learns numbers near 1 while the
network speaks in points; ``to_weights`` folds the scale into ``wv``/``bv``, so ``infer.value`` returns points
and equals this forward pass (tested to 1e-5).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from cfrlab.games.koikoi.neural.features import NUM_FEATURES
from cfrlab.games.koikoi.neural.weights import NUM_VALUES, NetWeights, check_weights
from cfrlab.games.koikoi.rules.engine_state import NUM_ACTIONS
from cfrlab.solvers.neural.nets import as_torch_generator, check_network_size, init_parameters

POINT_SCALE = 8.0
"""Round points per unit of the value head's first raw output (rounds score about -10..+10; a power of two, so
the scale folds into the weights exactly)."""
DEFAULT_HIDDEN = (128, 32)
"""Shipped widths (BENCHMARKS.md, the learned evaluator): 1.4 us an evaluation, and on one generation's data
(150,000 decisions) its values are as good as any width's; wider first layers cost 2-4x and overfit."""


class KoiKoiNet(nn.Module):
    """Sparse features -> EmbeddingBag-sum + bias -> clipped ReLU -> linear -> clipped ReLU -> value, policy."""

    value_scale: torch.Tensor

    def __init__(self, num_features: int = NUM_FEATURES, hidden: tuple[int, int] = DEFAULT_HIDDEN, *,
                 generator: torch.Generator | np.random.Generator | None = None) -> None:
        super().__init__()
        h1, h2 = (int(h) for h in hidden)
        if num_features <= 0 or h1 <= 0 or h2 <= 0:
            raise ValueError(f"network sizes must be positive, got {num_features} features, hidden {hidden}")
        check_network_size(num_features * h1 + h1 * h2 + h2 * (NUM_VALUES + NUM_ACTIONS), f"layers {[h1, h2]}")
        self.num_features, self.hidden = num_features, (h1, h2)
        with torch.random.fork_rng(devices=[]):  # PyTorch's throwaway initialisation leaves the global RNG as it was
            self.first = nn.EmbeddingBag(num_features, h1, mode="sum")
            self.first_bias = nn.Parameter(torch.zeros(h1))
            self.second = nn.Linear(h1, h2)
            self.value = nn.Linear(h2, NUM_VALUES)
            self.policy = nn.Linear(h2, NUM_ACTIONS)
        self.register_buffer("value_scale", torch.tensor([POINT_SCALE] + [1.0] * (NUM_VALUES - 1)))
        self.reset_parameters(generator if generator is not None else np.random.default_rng(0))

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | np.random.Generator) -> None:
        """Fresh weights from ``generator``: PyTorch's default scales, the first layer as ``Linear(F, H1)``'s."""
        gen = as_torch_generator(generator)
        init_parameters(self, gen)
        bound = 1.0 / math.sqrt(self.num_features)
        self.first.weight.uniform_(-bound, bound, generator=gen)
        self.first_bias.uniform_(-bound, bound, generator=gen)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(values (B, 2), logits (B, 50)) of ``features`` (B, K) int: active indices, padded with -1."""
        features = features.long()
        present = (features >= 0).to(self.first_bias.dtype)
        acc = self.first(features.clamp_min(0), per_sample_weights=present) + self.first_bias
        h2 = torch.clamp(self.second(torch.clamp(acc, 0.0, 1.0)), 0.0, 1.0)
        return self.value(h2) * self.value_scale, self.policy(h2)

    @torch.no_grad()
    def to_weights(self) -> NetWeights:
        """The network as float32 numpy arrays for ``infer`` (the points scale folded into the value head)."""
        def arr(t: torch.Tensor) -> np.ndarray:
            return np.ascontiguousarray(t.detach().cpu().numpy(), dtype=np.float32)

        scale = self.value_scale.cpu()
        return check_weights(NetWeights(
            w1=arr(self.first.weight), b1=arr(self.first_bias), w2=arr(self.second.weight.T), b2=arr(self.second.bias),
            wv=arr(self.value.weight.T.cpu() * scale), bv=arr(self.value.bias.cpu() * scale),
            wp=arr(self.policy.weight.T), bp=arr(self.policy.bias)))

    @classmethod
    def from_weights(cls, weights: NetWeights) -> KoiKoiNet:
        """The network holding ``weights`` (inverse of ``to_weights``)."""
        check_weights(weights)
        net = cls(weights.num_features, weights.hidden)
        with torch.no_grad():
            scale = net.value_scale
            net.first.weight.copy_(torch.from_numpy(weights.w1))
            net.first_bias.copy_(torch.from_numpy(weights.b1))
            net.second.weight.copy_(torch.from_numpy(weights.w2).T)
            net.second.bias.copy_(torch.from_numpy(weights.b2))
            net.value.weight.copy_(torch.from_numpy(weights.wv).T / scale[:, None])
            net.value.bias.copy_(torch.from_numpy(weights.bv) / scale)
            net.policy.weight.copy_(torch.from_numpy(weights.wp).T)
            net.policy.bias.copy_(torch.from_numpy(weights.bp))
        return net
