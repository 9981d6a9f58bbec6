"""The only place where seeds become random generators.

Every random function in cfrlab takes a ``np.random.Generator`` (or a seed turned
into one here); nothing touches the global ``np.random``, ``random`` or torch
RNG. Worker generators come from ``spawn`` so parallel runs are reproducible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

SeedLike = int | np.random.Generator | np.random.SeedSequence | None


def as_generator(seed: SeedLike = None) -> np.random.Generator:
    """A Generator from an int seed, a SeedSequence, an existing Generator (returned as is) or None."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def spawn(rng: np.random.Generator, n: int) -> list[np.random.Generator]:
    """``n`` independent child generators (for workers), reproducible from ``rng``."""
    return list(rng.spawn(n))


def derive_seed(rng: np.random.Generator) -> int:
    """A 63-bit integer seed drawn from ``rng`` (for libraries that want an int)."""
    return int(rng.integers(0, 2**63 - 1))


def torch_generator(rng: np.random.Generator, device: str = "cpu") -> torch.Generator:
    """A torch Generator seeded from ``rng`` (never the global torch seed)."""
    import torch

    gen = torch.Generator(device=device)
    gen.manual_seed(derive_seed(rng))
    return gen
