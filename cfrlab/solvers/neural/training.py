"""What the neural CFR solvers share: training loops, masked losses, regret matching on rows, checkpoints.

* ``fit``: a fixed number of Adam steps on mini-batches drawn by a callback (from a buffer, or
  from this iteration's samples), gradient-norm clipping, a fresh optimizer each call, so a
  training phase depends only on the network, the data and the generator it is given.
* ``masked_weighted_mse`` / ``masked_weighted_cross_entropy``: losses over legal actions only,
  each row weighted (Deep CFR's linear weighting multiplies the loss of a row from iteration t
  by t, Brown et al. 2019 sec. 4).
* ``regret_matching_rows``: the regret-matching strategy of a batch of predicted regrets.
* ``NeuralSolver``: a ``Solver`` whose state is network state dicts, buffers and the numpy RNG;
  ``save_checkpoint`` writes them with ``torch.save`` (atomically, through
  ``cfrlab.checkpoint.atomic_write_bytes``) and ``load_checkpoint`` reads them with
  ``torch.load(weights_only=True)``, so "run N, save, load, run M" equals "run N+M".
* ``states_tensors``: ``information_state_tensor`` of a batch of states, for ``tabulate_policy``.

torch is imported here; ``cfrlab`` itself imports without it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.checkpoint import CheckpointError, atomic_write_bytes, check_checkpoint_meta, check_identity, json_default
from cfrlab.file_checks import parse_json, regular_input
from cfrlab.game import Game, State
from cfrlab.policy import TabularPolicy
from cfrlab.policy_tabulate import tabulate_policy
from cfrlab.solvers.base import Solver
from cfrlab.solvers.buffers import _Buffer
from cfrlab.tree import GameTree, load_tree

CHECKPOINT_FORMAT = 1


def layer_sizes(value: Any) -> tuple[int, ...]:
    """Hidden layer sizes from a tuple, a list, one int or a text such as "64,64" (CLI flags)."""
    if isinstance(value, str):
        value = [v for v in value.replace("x", ",").split(",") if v.strip()]
    elif isinstance(value, (int, np.integer)):
        value = [value]
    sizes = tuple(int(v) for v in value)
    if any(v <= 0 for v in sizes):
        raise ValueError(f"hidden layer sizes must be positive, got {value!r}")
    return sizes


def normalise_layers(config: Any, *names: str) -> None:
    """In a frozen config's ``__post_init__``: store each named field as a tuple of ints."""
    for name in names:
        object.__setattr__(config, name, layer_sizes(getattr(config, name)))


# losses ------------------------------------------------------------------------------------------
def masked_weighted_mse(
    pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor, weight: torch.Tensor | None = None
) -> torch.Tensor:
    """Squared error summed over legal actions, weighted per row, normalised by the total weight."""
    err = ((pred - target) ** 2 * mask).sum(dim=1)
    if weight is None:
        return err.mean()
    return (err * weight).sum() / weight.sum().clamp_min(1e-12)


def masked_log_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """log-softmax over legal actions; illegal entries get a large negative number (never -inf * 0)."""
    return torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)


def masked_weighted_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor, weight: torch.Tensor | None = None
) -> torch.Tensor:
    """Cross-entropy of the masked softmax against target distributions, weighted per row.

    Its minimiser at an infoset seen with targets p_j and weights w_j is sum_j w_j p_j / sum_j w_j,
    the weighted average strategy, which is what the average-strategy network must output.
    """
    ce = -(target * masked_log_softmax(logits, mask) * mask).sum(dim=1)
    if weight is None:
        return ce.mean()
    return (ce * weight).sum() / weight.sum().clamp_min(1e-12)


# training loop ---------------------------------------------------------------------------------
def fit(
    net: nn.Module,
    sample: Callable[[], Mapping[str, Any]],
    loss: Callable[[nn.Module, dict[str, torch.Tensor]], torch.Tensor],
    *,
    steps: int,
    learning_rate: float,
    max_grad_norm: float | None = 1.0,
) -> float:
    """Run ``steps`` Adam steps of ``loss`` on batches from ``sample()``; return the mean loss of the last tenth.

    The optimizer is created here, so consecutive calls share no hidden state: warm starting means
    passing the previous network, training from scratch means resetting it first.
    """
    if steps <= 0:
        return float("nan")
    with torch.enable_grad():  # callers may be inside no_grad (e.g. lazy training while tabulating)
        return _fit(net, sample, loss, steps, learning_rate, max_grad_norm)


def _fit(net: nn.Module, sample: Callable[[], Mapping[str, Any]],
         loss: Callable[[nn.Module, dict[str, torch.Tensor]], torch.Tensor], steps: int, learning_rate: float,
         max_grad_norm: float | None) -> float:
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate, foreach=True)
    net.train()
    tail = max(1, steps // 10)
    total = 0.0
    for step in range(steps):
        batch = {k: v if isinstance(v, torch.Tensor) else torch.as_tensor(v) for k, v in sample().items()}
        optimizer.zero_grad(set_to_none=True)
        value = loss(net, batch)
        value.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm, foreach=True)
        optimizer.step()
        if step >= steps - tail:
            total += float(value.detach())
    net.eval()
    return total / tail


def array_sampler(
    arrays: Mapping[str, np.ndarray], batch_size: int, rng: np.random.Generator
) -> Callable[[], dict[str, np.ndarray]]:
    """Batches of ``min(batch_size, rows)`` rows drawn without replacement by ``rng``.

    Pass ``buffer.data()`` (views of the filled rows only) to train on a replay memory without
    touching the buffer's own generator, so evaluating a policy never changes what is stored later.
    """
    n = len(next(iter(arrays.values())))
    if n == 0:
        raise ValueError("no training rows")

    def sample() -> dict[str, np.ndarray]:
        idx = rng.choice(n, size=min(batch_size, n), replace=False)
        return {k: v[idx] for k, v in arrays.items()}

    return sample


# strategies --------------------------------------------------------------------------------------
def regret_matching_rows(
    values: NDArray[np.floating], mask: NDArray[np.bool_], all_negative: str = "uniform"
) -> NDArray[np.float64]:
    """Regret matching per row: positive part over legal actions, normalised.

    Rows with no positive legal value get the uniform strategy (``"uniform"``, seed 000 Alg. 2) or
    all weight on the legal action of largest value (``"argmax"``, Deep CFR, Brown et al. 2019
    sec. 4.1, which found it better when regrets are approximate).
    """
    values = np.asarray(values, dtype=np.float64)
    mask = np.asarray(mask, dtype=bool)
    pos = np.where(mask, np.maximum(values, 0.0), 0.0)
    sums = pos.sum(axis=1, keepdims=True)
    if all_negative == "uniform":
        fallback = mask / mask.sum(axis=1, keepdims=True)
    elif all_negative == "argmax":
        best = np.argmax(np.where(mask, values, -np.inf), axis=1)
        fallback = np.zeros_like(pos)
        fallback[np.arange(len(best)), best] = 1.0
    else:
        raise ValueError(f"all_negative must be 'uniform' or 'argmax', got {all_negative!r}")
    return np.where(sums > 0, pos / np.where(sums > 0, sums, 1.0), fallback)


def legal_mask(states: Sequence[State], num_actions: int) -> NDArray[np.bool_]:
    """(len(states), num_actions) legal-action mask."""
    out = np.zeros((len(states), num_actions), dtype=bool)
    for row, state in enumerate(states):
        out[row, state.legal_actions()] = True
    return out


def states_tensors(states: Sequence[State], size: int) -> NDArray[np.float32]:
    """``information_state_tensor`` of the acting player at each state, stacked."""
    out = np.empty((len(states), size), dtype=np.float32)
    for row, state in enumerate(states):
        out[row] = state.information_state_tensor(state.current_player())
    return out


def require_tensor_size(game: Game) -> int:
    """``game.information_state_tensor_size()``, or a clear error for games without tensors."""
    size = game.information_state_tensor_size()
    if size <= 0:
        raise ValueError(
            f"{game.spec()} provides no information_state_tensor; use the sequence encoder "
            "(network='gru' or 'lstm') where the solver offers it"
        )
    return size


# solvers with torch state ----------------------------------------------------------------------
@contextlib.contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run with ``n`` torch intra-op threads, restoring the previous setting afterwards (None: unchanged).

    The networks here are small: on a shared 2-core machine one thread is several times faster than
    two fighting over the cores with other processes, so the solvers default to one.
    """
    if n is None or n <= 0:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _read_torch_checkpoint(path: str | os.PathLike[str]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, metadata) of a checkpoint written by ``TorchCheckpointMixin.save_checkpoint``."""
    path = regular_input(path, "checkpoint")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
        meta = parse_json(payload["meta"], "its metadata")
        arrays = {k: v.numpy() for k, v in payload["arrays"].items()}
    except Exception as exc:  # any unreadable file is reported the same way
        raise CheckpointError(f"checkpoint {str(path)!r} is corrupt or not a neural checkpoint ({exc})") from exc
    if not isinstance(meta, dict):
        raise CheckpointError(f"checkpoint {str(path)!r} has corrupt metadata (not an object)")
    check_checkpoint_meta(path, meta)
    return arrays, meta


# torch state as numpy arrays: the one serializer of networks and optimizers -------------------------
def module_arrays(prefix: str, module: nn.Module) -> dict[str, np.ndarray]:
    """A module's state dict as numpy arrays under ``prefix/``."""
    return {f"{prefix}/{k}": v.detach().cpu().numpy().copy() for k, v in module.state_dict().items()}


def load_module_arrays(prefix: str, module: nn.Module, arrays: Mapping[str, np.ndarray]) -> None:
    """Inverse of ``module_arrays`` (the layout must match)."""
    own = {k[len(prefix) + 1:]: torch.as_tensor(np.asarray(v)) for k, v in arrays.items()
           if k.startswith(prefix + "/")}
    if set(own) != set(module.state_dict()):
        raise ValueError(f"{prefix}: saved parameters do not match this network's layout")
    module.load_state_dict(own)


def optimizer_arrays(prefix: str, optimizer: torch.optim.Optimizer) -> dict[str, np.ndarray]:
    """Per-parameter optimizer state (Adam moments and step counts) as numpy arrays."""
    out: dict[str, np.ndarray] = {}
    for idx, state in optimizer.state_dict()["state"].items():
        for key, value in state.items():
            out[f"{prefix}/{idx}/{key}"] = torch.as_tensor(value).detach().cpu().numpy().copy()
    return out


def load_optimizer_arrays(prefix: str, optimizer: torch.optim.Optimizer, arrays: Mapping[str, np.ndarray]) -> None:
    """Inverse of ``optimizer_arrays`` (hyper-parameters come from the live optimizer)."""
    state: dict[int, dict[str, torch.Tensor]] = {}
    for k, v in arrays.items():
        if k.startswith(prefix + "/"):
            idx, key = k[len(prefix) + 1:].split("/", 1)
            state.setdefault(int(idx), {})[key] = torch.as_tensor(np.array(v))
    current = optimizer.state_dict()
    optimizer.load_state_dict({"state": state, "param_groups": current["param_groups"]})


class TorchCheckpointMixin:
    """``save_checkpoint`` / ``load_checkpoint`` of a ``Solver`` with ``torch.save`` and
    ``torch.load(weights_only=True)``: state dicts and arrays only, written atomically."""

    def save_checkpoint(self, path: str | os.PathLike[str], **meta: Any) -> None:
        """Atomically write the solver state (arrays as tensors, JSON metadata) with ``torch.save``."""
        state = self.state_dict()  # type: ignore[attr-defined]
        header = {**self.identity(), "game": self.game.spec(), "iterations": state["iterations"],  # type: ignore[attr-defined]
                  "extra": state["extra"], "kind": "checkpoint", "format": CHECKPOINT_FORMAT, **meta}
        payload = {
            # np.array keeps 0-d shapes
            "arrays": {k: torch.from_numpy(np.array(v, order="C")) for k, v in state["arrays"].items()},
            "meta": json.dumps(header, sort_keys=True, default=json_default),
        }
        blob = io.BytesIO()
        torch.save(payload, blob)
        atomic_write_bytes(path, lambda handle: handle.write(blob.getvalue()))

    def checkpoint_meta(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """The metadata of checkpoint ``path`` (identity, iterations)."""
        return _read_torch_checkpoint(path)[1]

    def load_checkpoint(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """Restore a checkpoint written by ``save_checkpoint``; the run's identity must match."""
        arrays, meta = _read_torch_checkpoint(path)
        check_identity(path, meta, self.identity())  # type: ignore[attr-defined]
        try:
            self.load_state_dict({"arrays": arrays, "iterations": meta["iterations"],  # type: ignore[attr-defined]
                                  "extra": meta["extra"]})
        except (KeyError, ValueError) as exc:
            raise CheckpointError(f"checkpoint {path} does not fit this solver: {exc}") from exc
        return meta


class NeuralSolver(TorchCheckpointMixin, Solver):
    """A solver whose state is networks, buffers and one numpy RNG; checkpoints via ``torch.save``.

    Subclasses list their networks in ``_networks()`` and their buffers in ``_memories()``, and add
    JSON-able counters through ``_neural_extra`` / ``_load_neural_extra``. ``fit`` creates a fresh
    optimizer per training phase; a solver that keeps one across phases (Double Neural CFR's
    ``keep_optimizer``) adds its state to the checkpoint arrays with ``optimizer_arrays``.
    """

    any_payoff_range = False  # step sizes are tuned for payoffs near 1
    rng: np.random.Generator
    _tree: GameTree | None

    def _iteration_context(self) -> contextlib.AbstractContextManager[None]:
        """Iterations run with ``config.threads`` torch threads."""
        return torch_threads(getattr(self.config, "threads", None))

    def _networks(self) -> dict[str, nn.Module]:
        return {}

    def _memories(self) -> Mapping[str, _Buffer]:
        return {}

    def _neural_extra(self) -> dict[str, Any]:
        return {}

    def _load_neural_extra(self, extra: Mapping[str, Any]) -> None:
        pass

    def _invalidate(self) -> None:
        """Drop caches derived from the networks (called after loading a state)."""

    def _tabulate(self, fn: Callable[[Sequence[State]], NDArray[np.float64]]) -> TabularPolicy:
        """``fn`` (states -> action probabilities) as a table on the game's compiled tree, for exact evaluation."""
        if self._tree is None:
            self._tree = load_tree(self.game)
        return tabulate_policy(self.game, self._tree, fn)

    # Solver state hooks ---------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        arrays: dict[str, np.ndarray] = {}
        for name, net in self._networks().items():
            arrays.update(module_arrays(f"net/{name}", net))
        for name, buffer in self._memories().items():
            for field, value in buffer.state_dict()["arrays"].items():
                arrays[f"buf/{name}/{field}"] = np.asarray(value)
        return arrays

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        for name, net in self._networks().items():
            load_module_arrays(f"net/{name}", net, arrays)
        self._pending_buffer_arrays = {
            name: {k[len(f"buf/{name}/"):]: np.asarray(v) for k, v in arrays.items() if k.startswith(f"buf/{name}/")}
            for name in self._memories()
        }
        self._invalidate()

    def _extra_state(self) -> dict[str, Any]:
        buffers = {}
        for name, buffer in self._memories().items():
            state = buffer.state_dict()
            buffers[name] = {k: v for k, v in state.items() if k != "arrays"}
        return {"rng": self.rng.bit_generator.state, "buffers": buffers, **self._neural_extra()}

    def _load_extra_state(self, extra: Mapping[str, Any]) -> None:
        self.rng.bit_generator.state = extra["rng"]
        pending = getattr(self, "_pending_buffer_arrays", {})
        for name, buffer in self._memories().items():
            state = dict(extra["buffers"][name])
            state["arrays"] = pending.get(name, {})
            buffer.load_state_dict(state)
        self._pending_buffer_arrays = {}
        self._load_neural_extra(extra)
        self._invalidate()
