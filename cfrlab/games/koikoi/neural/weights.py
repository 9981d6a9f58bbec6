"""The Koi-Koi network's weights as numpy arrays (``NetWeights``) and their versioned ``.npz`` file.

The file is written by ``cfrlab.checkpoint.save_arrays`` (atomic, no pickle, JSON metadata inside) with the
entries ``format`` = ``FORMAT``, ``version`` = ``VERSION``, ``num_features`` and ``hidden``; ``load_weights``
reads it back through ``load_arrays`` (sizes checked before allocation) and refuses, each in one ``ValueError``
line, a file of another format or version, arrays missing, extra, of the wrong shape, type or layout, weights
that are not finite or whose outputs could be (``output_bound``), and a feature count other than the one asked
for. No torch here: the numba search imports this module.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from cfrlab.checkpoint import CheckpointError, load_arrays, save_arrays
from cfrlab.file_checks import note_input
from cfrlab.games.koikoi.neural.features import NUM_FEATURES
from cfrlab.games.koikoi.rules.engine_state import NUM_ACTIONS

FORMAT = "cfrlab-koikoi-net"
VERSION = 1
NUM_VALUES = 2
"""Value outputs: the mover's round points, and the logit of the mover winning the match."""
MAX_OUTPUT = 1e6
"""The most any layer's output may reach (``output_bound``): the shipped network's layers reach 41, 22, 57 and 17;
a round scores at most a few hundred points, and float32 overflows at 3.4e38 (weights of 3e38 made every output
infinite or NaN, and ``neural:oos`` then divided by zero)."""
MAX_WIDTH = 4096
"""Widest layer a file may declare (a 4096-wide network is 16x beyond what evaluates in 20 us)."""


class NetWeights(NamedTuple):
    """The network as float32 C-contiguous arrays; ``infer`` evaluates it, ``model.KoiKoiNet`` trains it.

    ``w1`` (F, H1) holds one row per feature, so the first layer is a sum of contiguous rows."""

    w1: NDArray[np.float32]  # (F, H1)
    b1: NDArray[np.float32]  # (H1,)
    w2: NDArray[np.float32]  # (H1, H2)
    b2: NDArray[np.float32]  # (H2,)
    wv: NDArray[np.float32]  # (H2, 2)
    bv: NDArray[np.float32]  # (2,)
    wp: NDArray[np.float32]  # (H2, 50)
    bp: NDArray[np.float32]  # (50,)

    @property
    def num_features(self) -> int:
        return int(self.w1.shape[0])

    @property
    def hidden(self) -> tuple[int, int]:
        return int(self.w1.shape[1]), int(self.w2.shape[1])


def weight_shapes(num_features: int, hidden: tuple[int, int]) -> dict[str, tuple[int, ...]]:
    """The shape of every array of a network with ``num_features`` inputs and hidden widths ``hidden``."""
    h1, h2 = hidden
    return {"w1": (num_features, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,),
            "wv": (h2, NUM_VALUES), "bv": (NUM_VALUES,), "wp": (h2, NUM_ACTIONS), "bp": (NUM_ACTIONS,)}


def random_weights(num_features: int, hidden: tuple[int, int], rng: np.random.Generator,
                   scale: float = 0.5) -> NetWeights:
    """Weights drawn uniformly in [-scale, scale] (tests and benchmarks)."""
    return NetWeights(**{name: rng.uniform(-scale, scale, shape).astype(np.float32)
                         for name, shape in weight_shapes(num_features, hidden).items()})


def check_weights(weights: NetWeights, what: str = "weights") -> NetWeights:
    """``weights`` if every array has its shape, is float32, C-contiguous and finite; else one ValueError line."""
    two_matrices = np.ndim(weights.w1) == 2 and np.ndim(weights.w2) == 2
    num_features, hidden = (weights.w1.shape[0], (weights.w1.shape[1], weights.w2.shape[1])) if two_matrices \
        else (0, (0, 0))
    if num_features <= 0 or min(hidden) <= 0 or max(hidden) > MAX_WIDTH:
        raise ValueError(f"{what}: w1 {weights.w1.shape} and w2 {weights.w2.shape} are not a network's first "
                         f"layers (two matrices, widths 1..{MAX_WIDTH})")
    for name, shape in weight_shapes(num_features, hidden).items():
        array = getattr(weights, name)
        if array.shape != shape:
            raise ValueError(f"{what}: {name} has shape {array.shape}, expected {shape}")
        if array.dtype != np.float32 or not array.flags.c_contiguous:
            layout = "" if array.flags.c_contiguous else " (not C-contiguous)"
            raise ValueError(f"{what}: {name} is {array.dtype}{layout}, expected C-contiguous float32")
        if not np.isfinite(array).all():
            raise ValueError(f"{what}: {name} holds non-finite values (NaN or infinity)")
    for layer, bias, matrix in (("first", weights.b1, weights.w1), ("second", weights.b2, weights.w2),
                                ("value", weights.bv, weights.wv), ("policy", weights.bp, weights.wp)):
        reach = output_bound(bias, matrix)
        if not reach <= MAX_OUTPUT:
            raise ValueError(f"{what}: the {layer} layer's outputs reach {reach:.3g} for some position, beyond "
                             f"{MAX_OUTPUT:g}: not a trained network (its values would overflow to infinity or NaN)")
    return weights


def output_bound(bias: NDArray[np.float32], matrix: NDArray[np.float32]) -> float:
    """The largest magnitude a layer's output takes over all inputs in [0, 1] (clipped activations, or 0/1
    features): ``max_j |b_j| + sum_i |W_ij|``, in float64. Below ``MAX_OUTPUT`` at every layer, every output of
    ``infer`` is finite for every position, so no NaN or infinity can reach a decision (a probe batch of positions
    could miss the one that overflows)."""
    return float(np.max(np.abs(bias.astype(np.float64)) + np.abs(matrix.astype(np.float64)).sum(axis=0)))


def save_weights(path: str | os.PathLike[str], weights: NetWeights, **meta: Any) -> None:
    """Write ``weights`` atomically with the format, version, sizes and ``meta`` (JSON values) in the file."""
    check_weights(weights)
    reserved = {"format", "version", "num_features", "hidden"} & set(meta)
    if reserved:
        raise ValueError(f"metadata names {sorted(reserved)} are reserved")
    save_arrays(path, weights._asdict(), {**meta, "format": FORMAT, "version": VERSION,
                                          "num_features": weights.num_features, "hidden": list(weights.hidden)})


def load_weights(path: str | os.PathLike[str],
                 num_features: int | None = NUM_FEATURES) -> tuple[NetWeights, dict[str, Any]]:
    """(weights, metadata) of a file written by ``save_weights``; ``num_features``: the count the caller's
    features produce (default ``features.NUM_FEATURES``; None: any). Anything else is refused in one
    ``ValueError`` line naming the file."""
    what = f"weights file {str(path)!r}"
    note_input(path, "weights file")
    arrays, meta = load_arrays(path, "weights file")
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{what} is not a Koi-Koi network (format {meta.get('format')!r:.40}, "
                              f"expected {FORMAT!r})")
    if meta.get("version") != VERSION:
        raise CheckpointError(f"{what} has version {meta.get('version')!r:.20}; this cfrlab reads version {VERSION}")
    names = set(NetWeights._fields)
    if set(arrays) != names:
        missing, extra = sorted(names - set(arrays)), sorted(set(arrays) - names)
        raise CheckpointError(f"{what} is corrupt: arrays missing {missing}, unexpected {extra}")
    try:
        weights = check_weights(NetWeights(**{k: arrays[k] for k in NetWeights._fields}), what)
    except ValueError as exc:
        raise CheckpointError(str(exc)) from None
    declared = meta.get("num_features"), meta.get("hidden")
    if declared != (weights.num_features, list(weights.hidden)):
        raise CheckpointError(f"{what} is corrupt: it declares {declared[0]!r:.20} features and hidden "
                              f"{declared[1]!r:.40} but holds {weights.num_features} and {list(weights.hidden)}")
    if num_features is not None and weights.num_features != num_features:
        raise CheckpointError(f"{what} is for {weights.num_features} features, these features have {num_features}; "
                              "train a network for them")
    return weights, meta


def file_megabytes(weights: NetWeights) -> float:
    """Size of the arrays in MB (the shipped file is at most 2 MB)."""
    return sum(a.nbytes for a in weights) / 1e6
