"""The Koi-Koi network's cost per evaluation in numba, for a few sizes, on real positions' features.

Positions: every decision of ``--rounds`` greedy self-play rounds (nintendo rules), encoded from the mover's view
by ``features.encode_state`` (about 30-50 active features of 380). Weights: ``KoiKoiNet``'s initialisation
scaled by ``--scale`` (trained first layers are larger than initial ones; the scale sets how many first-layer
units the clip leaves active, printed as "active"). For each width (H1, H2) it times, in microseconds of this
thread's CPU per position (best of three passes, each at least ``--min-seconds``):

* ``value``: ``infer.value`` (the points head, what the search's cut playouts call);
* ``forward``: ``infer.forward`` (both heads);
* ``layer 1``: the first layer alone (``infer.accumulate``), the part an incremental update could save;
* ``incremental``: NNUE's accumulator update (Nasu 2018): the first layer carried over from the same seat's
  previous decision of the round (two half-turns earlier, like a cut playout of two plies) by adding the rows of
  the features turned on and subtracting those turned off, then the rest of ``value``.

``--fit STEPS`` also times ``fit.fit`` on the CPU (one torch thread, batches of ``--fit-batch`` (256) of these
positions with made-up targets): milliseconds of the thread's CPU per training step; ``--fit-on cuda``: on the
GPU instead, in wall-clock milliseconds (the GPU's queue drained before and after).

``--train FOLDER --test FOLDER``: what each size learns instead of what it costs: trains a network of each size
for ``--steps`` steps (batches of 256, lr 1e-3, seed 0) on the shards of the first folder (``selfplay.generate``)
and prints each loss term on those of the second (another seed's games), and the policy's agreement with the
search's choice there ("agree"). ``--generate N``: first fill empty or absent folders with ``selfplay.generate`` of
``search:32`` in 12-round ``nintendo`` matches, N decisions for training (seed 1) and N/5 held out (seed 2).
``--search-weight W``: ``fit``'s weight of the search-value loss (default 1; 0: the round's points alone).
``--train`` and ``--test`` also take glob patterns of folders, comma-separated (an exit run's
``'RUN/shards/g0*/c*'``);
``--save PREFIX [--cutoff C]`` writes each trained network to ``PREFIX{H1}x{H2}.npz``, searched by ``neural`` with
cutoff C. ``--evaluate FILE[,FILE...] --test FOLDER``: the loss terms of trained weights files on held-out shards.

Usage: ``python benchmarks/bench_koikoi_neural.py [--rounds 200] [--sizes 32,64,128,256,512] [--h2 32]
[--fit 50 [--fit-batch 256] [--fit-on cpu|cuda]] [--train FOLDER --test FOLDER [--generate 150000] [--steps 2000]
[--search-weight 1] [--save PREFIX]]``.
"""

from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

from cfrlab.games.koikoi.neural.infer import accumulate, forward, second_layer, value


def positions(rounds: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indices (m, MAX_ACTIVE) int32, counts (m,), previous (m,): the row of the same seat's previous decision
    in the round, -1 for its first) of every decision of ``rounds`` greedy rounds."""
    from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, encode_state
    from cfrlab.games.koikoi.players.greedy import GreedyAgent
    from cfrlab.registry import load_game

    game, rng, greedy = load_game("koikoi"), np.random.default_rng(0), GreedyAgent()
    rows: list[np.ndarray] = []
    previous: list[int] = []
    for _ in range(rounds):
        state, last = game.new_initial_state(), {0: -1, 1: -1}
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            player = state.current_player()
            previous.append(last[player])
            last[player] = len(rows)
            rows.append(encode_state(game.engine, state.es, player))
            state = state.child(greedy.act(state, rng))
    idx = np.zeros((len(rows), MAX_ACTIVE), dtype=np.int32)
    for row, active in enumerate(rows):
        idx[row, :len(active)] = active
    return idx, np.array([len(r) for r in rows], dtype=np.int64), np.array(previous, dtype=np.int64)


def differences(idx: np.ndarray, counts: np.ndarray, previous: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per position with a previous one: the features turned on and off since it, padded (int32), and counts."""
    m = len(idx)
    on, off = np.zeros((m, idx.shape[1]), np.int32), np.zeros((m, idx.shape[1]), np.int32)
    n_on, n_off = np.zeros(m, np.int64), np.zeros(m, np.int64)
    for row in range(m):
        if previous[row] < 0:
            continue
        now, before = set(idx[row, :counts[row]]), set(idx[previous[row], :counts[previous[row]]])
        added, removed = sorted(now - before), sorted(before - now)
        on[row, :len(added)], off[row, :len(removed)] = added, removed
        n_on[row], n_off[row] = len(added), len(removed)
    return on, n_on, off, n_off


@nb.njit  # not cached: a cache would keep an older infer compiled in
def _values(w, idx, counts, reps):
    total = 0.0
    for _ in range(reps):
        for row in range(idx.shape[0]):
            total += value(w, idx[row], counts[row])
    return total


@nb.njit  # not cached: a cache would keep an older infer compiled in
def _forwards(w, idx, counts, reps):
    out_value, out_logits = np.empty(2, np.float32), np.empty(50, np.float32)
    total = 0.0
    for _ in range(reps):
        for row in range(idx.shape[0]):
            forward(w, idx[row], counts[row], out_value, out_logits)
            total += out_value[0] + out_logits[0]
    return total


@nb.njit  # not cached: a cache would keep an older infer compiled in
def _first_layers(w, idx, counts, reps):
    acc = np.empty(w.b1.shape[0], np.float32)
    total = 0.0
    for _ in range(reps):
        for row in range(idx.shape[0]):
            accumulate(w, idx[row], counts[row], acc)
            total += acc[0]
    return total


@nb.njit  # not cached: a cache would keep an older infer compiled in
def _incremental(w, previous, on, n_on, off, n_off, accs, reps):
    """The value of each position with a previous one, its first layer updated from the previous one's (``accs``
    holds every position's first layer, as the search would keep its root's)."""
    width = accs.shape[1]
    acc, h2 = np.empty(width, np.float32), np.empty(w.b2.shape[0], np.float32)
    total = 0.0
    for _ in range(reps):
        for row in range(previous.shape[0]):
            if previous[row] < 0:
                continue
            base = accs[previous[row]]
            for j in range(width):
                acc[j] = base[j]
            for k in range(n_on[row]):
                f = on[row, k]
                for j in range(width):
                    acc[j] += w.w1[f, j]
            for k in range(n_off[row]):
                f = off[row, k]
                for j in range(width):
                    acc[j] -= w.w1[f, j]
            second_layer(w, acc, h2)
            v = w.bv[0]
            for i in range(h2.shape[0]):
                v += h2[i] * w.wv[i, 0]
            total += v
    return total


def per_call_us(run, calls: int, min_seconds: float) -> float:
    """Best of three passes of ``run(reps)`` (each at least ``min_seconds`` of thread CPU), in us per call."""
    run(1)  # compile
    reps, best = 1, float("inf")
    for _ in range(3):
        while True:
            t0 = time.thread_time()
            run(reps)
            spent = time.thread_time() - t0
            if spent >= min_seconds:
                break
            reps *= 2
        best = min(best, spent / (reps * calls))
    return best * 1e6


def fit_ms(hidden: tuple[int, int], idx: np.ndarray, counts: np.ndarray, steps: int, batch: int = 256,
           device: str = "cpu") -> float:
    """Milliseconds per ``fit`` step on these positions: thread CPU time with one torch thread, or wall-clock time
    on a GPU (``device="cuda"``)."""
    import torch

    from cfrlab.games.koikoi.learn.fit import fit
    from cfrlab.games.koikoi.learn.model import KoiKoiNet

    rng = np.random.default_rng(0)
    m = len(idx)
    features = np.where(np.arange(idx.shape[1]) < counts[:, None], idx, -1).astype(np.int16)
    values = np.full((m, 50), np.nan, np.float16)
    values[:, 48:] = rng.normal(0, 5, (m, 2))
    data = {"features": features, "legal": np.full(m, 3 << 48, np.uint64), "values": values,
            "choice": rng.integers(48, 50, m).astype(np.int8), "points": rng.normal(0, 5, m).astype(np.float32),
            "match_win": rng.integers(-1, 2, m).astype(np.int8)}
    net = KoiKoiNet(hidden=hidden, generator=rng)
    on_gpu = device != "cpu"
    clock = time.perf_counter if on_gpu else time.thread_time
    fit(net, data, 2, batch_size=batch, device=device, threads=1)  # warm up
    if on_gpu:
        torch.cuda.synchronize()
    t0 = clock()
    fit(net, data, steps, batch_size=batch, device=device, threads=1)
    if on_gpu:
        torch.cuda.synchronize()
    return (clock() - t0) / steps * 1e3


def generate(folder: str, decisions: int, seed: int) -> None:
    """``decisions`` of ``search:32`` self-play in ``nintendo`` matches into ``folder``, unless it has shards."""
    import functools
    from pathlib import Path

    from cfrlab.games.koikoi.learn.selfplay import generate as play
    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
    from cfrlab.games.koikoi.rules.rules import RuleSet

    if Path(folder).is_dir() and any(Path(folder).glob("*.npz")):
        return
    t0 = time.time()
    play(functools.partial(SearchAgent, RuleSet(), SearchConfig(rollouts=32)), None, decisions, seed, folder)
    print(f"{decisions} decisions of search:32 into {folder} in {time.time() - t0:.0f} s")


def heldout(sizes: list[int], h2: int, train: str, test: str, steps: int, search_weight: float,
            save: str | None = None, cutoff: int = 8) -> None:
    """Loss terms on the shards of ``test`` of each size trained on those of ``train`` (each a folder, or glob
    patterns of folders, comma-separated: ``folders``); ``save``: also write each trained network to
    ``{save}{H1}x{H2}.npz`` for ``cutoff``, a file the ``neural`` agent plays (``neural:20ms:FILE``)."""
    from cfrlab.games.koikoi.learn.dataset import batches, read_shard, shard_paths
    from cfrlab.games.koikoi.learn.fit import evaluate, fit
    from cfrlab.games.koikoi.learn.model import KoiKoiNet
    from cfrlab.games.koikoi.neural.weights import save_weights

    train_folders, test_folders = folders(train), folders(test)
    held = [read_shard(p)[0] for p in shard_paths(test_folders)]
    print(f"{len(shard_paths(train_folders))} training shards, {sum(len(h['choice']) for h in held)} held-out "
          f"decisions, {steps} steps of 256")
    print(f"{'H1 x H2':>9} {'points':>7} {'search':>7} {'win':>6} {'policy':>7} {'agree':>6} {'train s':>7}")
    for h1 in sizes:
        net = KoiKoiNet(hidden=(h1, h2), generator=np.random.default_rng(0))
        data = batches(train_folders, 256, seed=0, epochs=1000)  # as many epochs as the steps take
        t0 = time.thread_time()
        fit(net, data, steps, lr=1e-3, seed=0, device="cpu", threads=1, search_weight=search_weight)
        seconds = time.thread_time() - t0
        terms = evaluate(net, held)
        print(f"{h1:>5} x {h2:<3}{terms['points']:>7.3f} {terms['search']:>7.3f} {terms['win']:>6.3f} "
              f"{terms['policy']:>7.3f} {terms['accuracy']:>6.3f} {seconds:>7.0f}")
        if save:
            save_weights(f"{save}{h1}x{h2}.npz", net.to_weights(), game="koikoi", generation=0, cutoff=cutoff,
                         decisions=steps * 256)


def evaluate_files(paths: str, test: str) -> None:
    """Loss terms on the shards of ``test`` of each of the weights files ``paths`` (comma-separated)."""
    from cfrlab.games.koikoi.learn.dataset import read_shard, shard_paths
    from cfrlab.games.koikoi.learn.fit import evaluate
    from cfrlab.games.koikoi.learn.model import KoiKoiNet
    from cfrlab.games.koikoi.neural.weights import load_weights

    held = [read_shard(p)[0] for p in shard_paths(folders(test))]
    print(f"{sum(len(h['choice']) for h in held)} held-out decisions")
    print(f"{'points':>7} {'search':>7} {'win':>6} {'policy':>7} {'agree':>6}  file")
    for path in paths.split(","):
        terms = evaluate(KoiKoiNet.from_weights(load_weights(path)[0]), held)
        print(f"{terms['points']:>7.3f} {terms['search']:>7.3f} {terms['win']:>6.3f} {terms['policy']:>7.3f} "
              f"{terms['accuracy']:>6.3f}  {path}")


def folders(patterns: str) -> list[str]:
    """The folders that comma-separated glob patterns name, each pattern's sorted (a plain folder name: itself)."""
    import glob

    found: list[str] = []
    for pattern in patterns.split(","):
        matched = sorted(glob.glob(pattern))
        if not matched:
            raise SystemExit(f"no folder matches {pattern!r}")
        found += matched
    return found


def weights_of(hidden: tuple[int, int], scale: float):
    from cfrlab.games.koikoi.learn.model import KoiKoiNet

    w = KoiKoiNet(hidden=hidden, generator=np.random.default_rng(0)).to_weights()
    return w._replace(w1=np.ascontiguousarray(w.w1 * scale), b1=np.ascontiguousarray(w.b1 * scale))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--sizes", default="32,64,128,256,512", help="first-layer widths H1")
    parser.add_argument("--h2", type=int, default=32)
    parser.add_argument("--scale", type=float, default=3.0)
    parser.add_argument("--min-seconds", type=float, default=0.2)
    parser.add_argument("--fit", type=int, default=0, help="also time this many training steps per size")
    parser.add_argument("--fit-batch", type=int, default=256, help="decisions per timed training step")
    parser.add_argument("--fit-on", choices=("cpu", "cuda"), default="cpu", help="where --fit trains")
    parser.add_argument("--train", help="shards to train each size on (then no timing)")
    parser.add_argument("--test", help="shards to measure the trained networks on")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--generate", type=int, default=0, help="decisions to generate into an empty --train")
    parser.add_argument("--search-weight", type=float, default=1.0)
    parser.add_argument("--evaluate", help="weights files (comma-separated) to measure on --test instead")
    parser.add_argument("--save", help="with --train: write each trained network to SAVE{H1}x{H2}.npz")
    parser.add_argument("--cutoff", type=int, default=8, help="the cutoff the saved files ask the neural agent for")
    args = parser.parse_args()
    if args.fit and args.fit_on == "cuda":
        import torch

        if not torch.cuda.is_available():
            parser.error("--fit-on cuda: torch sees no GPU here")
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.evaluate:
        evaluate_files(args.evaluate, args.test)
        return
    if args.train:
        if args.generate:
            generate(args.train, args.generate, seed=1)
            generate(args.test, max(1, args.generate // 5), seed=2)
        heldout(sizes, args.h2, args.train, args.test, args.steps, args.search_weight, args.save, args.cutoff)
        return
    from cfrlab.games.koikoi.neural.weights import file_megabytes

    idx, counts, previous = positions(args.rounds)
    on, n_on, off, n_off = differences(idx, counts, previous)
    has_previous = previous >= 0
    print(f"{len(idx)} positions, active features {counts.mean():.1f} on average ({counts.min()}-{counts.max()}); "
          f"since the same seat's previous decision: {n_on[has_previous].mean():.1f} on, "
          f"{n_off[has_previous].mean():.1f} off")
    print(f"{'H1 x H2':>9} {'MB':>5} {'active':>6} {'value us':>9} {'forward us':>10} {'layer 1 us':>10} "
          f"{'incremental us':>14} {'full/incr':>9}" + (f" {'fit ms/step':>11}" if args.fit else ""))
    m, m_inc = len(idx), int(has_previous.sum())
    for h1 in sizes:
        w = weights_of((h1, args.h2), args.scale)
        accs = np.empty((m, h1), np.float32)
        for row in range(m):
            accumulate(w, idx[row], counts[row], accs[row])
        active = float((accs > 0).mean())
        value_us = per_call_us(lambda r, w=w: _values(w, idx, counts, r), m, args.min_seconds)
        forward_us = per_call_us(lambda r, w=w: _forwards(w, idx, counts, r), m, args.min_seconds)
        layer_us = per_call_us(lambda r, w=w: _first_layers(w, idx, counts, r), m, args.min_seconds)
        inc_us = per_call_us(lambda r, w=w, a=accs: _incremental(w, previous, on, n_on, off, n_off, a, r), m_inc,
                             args.min_seconds)
        print(f"{h1:>5} x {args.h2:<3}{file_megabytes(w):>5.2f} {active:>6.2f} {value_us:>9.2f} {forward_us:>10.2f} "
              f"{layer_us:>10.2f} {inc_us:>14.2f} {value_us / inc_us:>9.2f}"
              + (f" {fit_ms((h1, args.h2), idx, counts, args.fit, args.fit_batch, args.fit_on):>11.1f}"
                 if args.fit else ""))


if __name__ == "__main__":
    main()
