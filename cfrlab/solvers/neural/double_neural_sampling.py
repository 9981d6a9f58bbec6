"""Double Neural CFR's sampling side: sigma^t as regret matching of the RegretSumNetwork's prediction (one key at a
time and cached, or a batch of keys at once) and the Ray task that samples a chunk of a pass on a worker.

Kept apart from the solver in ``double_neural_cfr``, which trains the networks and keeps the state: the pass in
process and the passes on workers take sigma from the same functions here, so they give the same bits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import Game
from cfrlab.solvers.mccfr import Increments, sample_chunk
from cfrlab.solvers.neural.double_neural_config import DoubleNeuralCFRConfig
from cfrlab.solvers.neural.infoset_models import (
    CACHE_LIMIT,
    Encoder,
    InfosetModel,
    NetworkModel,
    NotingGame,
    TensorTable,
    make_net,
    token_encoder,
)
from cfrlab.solvers.neural.training import torch_threads
from cfrlab.solvers.regret import regret_matching


def _mask_of(legal: Sequence[int], num_actions: int) -> NDArray[np.bool_]:
    mask = np.zeros((1, num_actions), dtype=bool)
    mask[0, list(legal)] = True
    return mask


def regret_strategy_fn(model: InfosetModel, num_actions: int, cache: dict[str, NDArray[np.float64]] | None = None
                       ) -> Callable[[str, Sequence[int]], NDArray[np.float64]]:
    """``strategy_fn`` for ``sample_iteration``: regret matching of the RSN's prediction, cached per key."""
    cache = {} if cache is None else cache
    offsets: dict[int, NDArray[np.int64]] = {}

    def strategy(key: str, legal: Sequence[int]) -> NDArray[np.float64]:
        sigma = cache.get(key)
        if sigma is None:
            values = model.predict([key], _mask_of(legal, num_actions))[0, list(legal)]
            n = len(legal)
            off = offsets.get(n)
            if off is None:
                off = offsets[n] = np.array([0, n], dtype=np.int64)
            sigma = regret_matching(np.ascontiguousarray(values), off)  # the tabular solver's rule, bit for bit
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            cache[key] = sigma
        return sigma

    return strategy


def prefetch_strategies(model: InfosetModel, recent: Mapping[str, NDArray[np.bool_]],
                        cache: dict[str, NDArray[np.float64]]) -> None:
    """Put sigma at every key of ``recent`` (key -> legal mask) into ``cache``, from one batched prediction.

    The next pass mostly revisits these infosets; one batch costs far less than one forward pass per infoset.
    """
    keys = list(recent)
    masks = np.array([recent[k] for k in keys])
    values = model.predict(keys, masks)
    for key, row, mask in zip(keys, values, masks):
        legal = np.flatnonzero(mask)
        off = np.array([0, legal.size], dtype=np.int64)
        cache[key] = regret_matching(np.ascontiguousarray(row[legal]), off)


def sample_on_workers(pool: Any, game: Game, cfg: DoubleNeuralCFRConfig, num_actions: int,
                      tensors: TensorTable | None, rsn: NetworkModel, sigma: Mapping[str, NDArray[np.float64]],
                      traverser: int, pass_key: int, ranges: Sequence[tuple[int, int]]) -> list[Increments]:
    """The chunks ``ranges`` of a pass, sampled on ``pool``'s workers with the RSN and the cached sigma shipped.

    The MLP variant's inputs of infosets only the workers saw are added to ``tensors``.
    """
    shared = pool.put({"game": game.spec(), "config": cfg, "num_actions": num_actions,
                       "tensor_size": tensors.size if tensors is not None else 0,
                       "rsn": (rsn.net.state_dict(), rsn.scale),
                       "sigma": dict(sigma)})  # prefetched: the same bits everywhere
    parts = []
    for part, seen in pool.map(_chunk_task, [(shared, traverser, pass_key, a, b) for a, b in ranges]):
        if tensors is not None:
            for key, tensor in seen.items():
                tensors.tensors.setdefault(key, tensor)
        parts.append(part)
    return parts


# worker task (module level so Ray ships it by reference) ------------------------------------------
_WORKER_GAMES: dict[str, tuple[Game, Game, TensorTable | None]] = {}


def _chunk_task(shared: Mapping[str, Any], traverser: int, pass_key: int, start: int,
                stop: int) -> tuple[Increments, dict[str, NDArray[np.float32]]]:
    """Sample traversals ``start..stop-1`` of a pass with the RSN shipped in ``shared``.

    Returns the chunk's increments and, for the MLP variant, the tensors of its infosets.
    """
    from cfrlab.registry import load_game

    cfg: DoubleNeuralCFRConfig = shared["config"]
    spec = shared["game"]
    entry = _WORKER_GAMES.get(spec)
    if entry is None:
        game = load_game(spec)
        table = TensorTable(shared["tensor_size"]) if cfg.network == "mlp" else None
        entry = _WORKER_GAMES[spec] = (game, NotingGame(game, table) if table is not None else game, table)
    _, sample_game, table = entry
    encode: Encoder = table if table is not None else token_encoder
    state_dict, scale = shared["rsn"]
    with torch_threads(cfg.threads):
        net = make_net(cfg, shared["num_actions"], shared["tensor_size"], np.random.default_rng(0))
        model = NetworkModel(net, encode, cfg, steps=0)
        net.load_state_dict(state_dict)
        net.eval()
        model.scale = float(scale)
        strategy = regret_strategy_fn(model, shared["num_actions"], cache=dict(shared["sigma"]))
        part = sample_chunk(sample_game, strategy, traverser, cfg.mccfr_config(), pass_key, start, stop)
    keys = list(part)
    tensors = dict(zip(keys, table(keys)["x"])) if table is not None and keys else {}
    return part, tensors
