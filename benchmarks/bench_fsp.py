"""Fictitious play: cfrlab's XFP and NFSP against OpenSpiel's, exploitability against wall time, on CPU.

Peers: ``open_spiel.python.algorithms.fictitious_play.XFPSolver`` and
``open_spiel.python.pytorch.nfsp.NFSP`` (the PyTorch NFSP of the installed open_spiel), driven
by the loop of OpenSpiel's ``examples/nfsp.py`` through ``rl_environment``. Both sides are
evaluated exactly (OpenSpiel: ``exploitability.exploitability``; cfrlab: ``cfrlab.eval``),
evaluation time excluded. Games: Kuhn and Leduc (cfrlab's ``kuhn``/``leduc`` match OpenSpiel's
``kuhn_poker``/``leduc_poker`` state by state, see tests/games).

NFSP settings are OpenSpiel's Leduc example (hidden [128], reservoir 2e6, replay 2e5, eta 0.1,
batch 128, learn every 64, SGD, lr 0.01, min buffer 1000, epsilon 0.06 -> 0.001) for both
sides ("same settings"); cfrlab is also run with its CLI defaults ("tuned": Adam and the measured settings).

    python benchmarks/bench_fsp.py --seconds 120 --xfp-seconds 20 --out bench_fsp.png --json bench_fsp.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

OS_NFSP = dict(hidden=(128,), reservoir=2_000_000, replay=200_000, eta=0.1, batch=128, learn_every=64,
               lr=0.01, min_buffer=1000, eps_start=0.06, eps_end=0.001, eps_decay=20_000_000)


def _checkpoints(seconds: float) -> list[float]:
    return list(np.geomspace(seconds / 30, seconds, 10))


# XFP ---------------------------------------------------------------------------------------------
def xfp_ours(game_name: str, seconds: float) -> list[tuple[float, int, float]]:
    from cfrlab.eval import exploitability
    from cfrlab.registry import load_game
    from cfrlab.solvers.fictitious.xfp import XFP

    game = load_game(game_name)
    solver = XFP(game).iterate(1)  # compile kernels outside the timing
    solver = XFP(game)
    out, spent, batch = [], 0.0, 1
    for mark in _checkpoints(seconds):
        while spent < mark:
            t = time.perf_counter()
            solver.iterate(batch)
            spent += time.perf_counter() - t
        out.append((spent, solver.iterations, exploitability(game, solver.average_policy())))
    return out


def xfp_openspiel(game_name: str, seconds: float) -> list[tuple[float, int, float]]:
    import pyspiel
    from open_spiel.python.algorithms import exploitability, fictitious_play

    game = pyspiel.load_game(game_name)
    solver = fictitious_play.XFPSolver(game)
    out, spent, it = [], 0.0, 0
    for mark in _checkpoints(seconds):
        while spent < mark:
            t = time.perf_counter()
            solver.iteration()
            spent += time.perf_counter() - t
            it += 1
        out.append((spent, it, float(exploitability.exploitability(game, solver.average_policy()))))
    return out


# NFSP --------------------------------------------------------------------------------------------
def nfsp_ours(game_name: str, seconds: float, tuned: bool) -> list[tuple[float, int, float]]:
    from cfrlab.eval import exploitability
    from cfrlab.registry import load_game
    from cfrlab.solvers.neural.nfsp import NFSP

    game = load_game(game_name)
    s = OS_NFSP
    config = dict(hidden_sizes=s["hidden"], sl_memory=s["reservoir"], rl_memory=s["replay"], eta=s["eta"],
                  batch_size=s["batch"], learn_every=s["learn_every"], rl_lr=s["lr"], sl_lr=s["lr"],
                  min_buffer=s["min_buffer"], epsilon_start=s["eps_start"], epsilon_end=s["eps_end"],
                  epsilon_decay_steps=s["eps_decay"], optimizer="sgd", max_grad_norm=None)
    solver = NFSP(game, seed=0) if tuned else NFSP(game, seed=0, **config)  # tuned: the CLI defaults
    out, spent = [], 0.0
    for mark in _checkpoints(seconds):
        while spent < mark:
            t = time.perf_counter()
            solver.iterate(200)
            spent += time.perf_counter() - t
        out.append((spent, solver.iterations, exploitability(game, solver.average_policy())))
    return out


def nfsp_openspiel(game_name: str, seconds: float) -> list[tuple[float, int, float]]:
    import torch
    from open_spiel.python import policy, rl_environment
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.pytorch import nfsp

    torch.set_num_threads(1)
    env = rl_environment.Environment(game_name)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    s = OS_NFSP
    agents = [nfsp.NFSP(p, size, actions, list(s["hidden"]), s["reservoir"], s["eta"], batch_size=s["batch"],
                        rl_learning_rate=s["lr"], sl_learning_rate=s["lr"], min_buffer_size_to_learn=s["min_buffer"],
                        learn_every=s["learn_every"], replay_buffer_capacity=s["replay"],
                        epsilon_start=s["eps_start"], epsilon_end=s["eps_end"],
                        epsilon_decay_duration=s["eps_decay"]) for p in range(2)]

    class Policies(policy.Policy):
        def __init__(self) -> None:
            super().__init__(env.game, [0, 1])
            self._obs = {"info_state": [None, None], "legal_actions": [None, None]}

        def action_probabilities(self, state, player_id=None):
            cur = state.current_player()
            legal = state.legal_actions(cur)
            self._obs["current_player"] = cur
            self._obs["info_state"][cur] = state.information_state_tensor(cur)
            self._obs["legal_actions"][cur] = legal
            step = rl_environment.TimeStep(observations=self._obs, rewards=None, discounts=None, step_type=None)
            with agents[cur].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                probs = agents[cur].step(step, is_evaluation=True).probs
            return {a: probs[a] for a in legal}

    out, spent, episodes = [], 0.0, 0
    for mark in _checkpoints(seconds):
        while spent < mark:
            t = time.perf_counter()
            for _ in range(200):
                ts = env.reset()
                while not ts.last():
                    ts = env.step([agents[ts.observations["current_player"]].step(ts).action])
                for agent in agents:
                    agent.step(ts)
            episodes += 200
            spent += time.perf_counter() - t
        out.append((spent, episodes, float(exploitability.exploitability(env.game, Policies()))))
    return out


def time_to(curve: list[tuple[float, int, float]], target: float) -> float | None:
    """First measured time at which exploitability is at most ``target``."""
    for seconds, _, value in curve:
        if value <= target:
            return seconds
    return None


def at_time(curve: list[tuple[float, int, float]], seconds: float) -> float:
    """Exploitability at the last checkpoint not after ``seconds`` (first one if none)."""
    best = curve[0][2]
    for t, _, value in curve:
        if t <= seconds:
            best = value
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="NFSP wall time per run")
    parser.add_argument("--xfp-seconds", type=float, default=20.0, help="XFP wall time per run")
    parser.add_argument("--games", default="kuhn_poker,leduc_poker")
    parser.add_argument("--out", default="bench_fsp.png")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    ours_name = {"kuhn_poker": "kuhn", "leduc_poker": "leduc"}
    curves: dict[str, list] = {}
    for game in args.games.split(","):
        runs = {
            "xfp cfrlab": lambda: xfp_ours(ours_name[game], args.xfp_seconds),
            "xfp openspiel": lambda: xfp_openspiel(game, args.xfp_seconds),
            "nfsp openspiel (pytorch)": lambda: nfsp_openspiel(game, args.seconds),
            "nfsp cfrlab (same settings)": lambda: nfsp_ours(ours_name[game], args.seconds, tuned=False),
            "nfsp cfrlab (tuned)": lambda: nfsp_ours(ours_name[game], args.seconds, tuned=True),
        }
        for label, fn in runs.items():
            curves[f"{game}: {label}"] = curve = fn()
            print(f"{game:12s} {label:30s} " + "  ".join(f"{t:.1f}s/{n}:{e:.4f}" for t, n, e in curve), flush=True)
    summary = {}
    for game in args.games.split(","):
        for method in ("xfp", "nfsp"):
            peer = curves[f"{game}: {method} openspiel" + (" (pytorch)" if method == "nfsp" else "")]
            ours_labels = [k for k in curves if k.startswith(f"{game}: {method} cfrlab")]
            for label in ours_labels:
                ours = curves[label]
                target = peer[-1][2]
                t_ours, t_peer = time_to(ours, target), time_to(peer, target)
                summary[label] = {
                    "peer_final": target, "peer_seconds": peer[-1][0], "ours_final": ours[-1][2],
                    "ours_time_to_peer_final": t_ours,
                    "time_ratio": None if t_ours is None or not t_peer else t_ours / t_peer,
                    "exploitability_ratio_at_equal_time": ours[-1][2] / at_time(peer, ours[-1][0]),
                }
                print(label, json.dumps(summary[label]), flush=True)
    _plot(curves, args.out)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"machine": platform.platform(), "processor": platform.processor(), "args": vars(args),
                       "curves": curves, "summary": summary}, handle, indent=1)


def _plot(curves: dict[str, list], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cfrlab.plot import readable_ticks

    games = sorted({k.split(":")[0] for k in curves})
    fig, axes = plt.subplots(1, len(games), figsize=(6 * len(games), 4.5), squeeze=False)
    for ax, game in zip(axes[0], games):
        for label, curve in curves.items():
            if label.startswith(game + ":"):
                ax.plot([c[0] for c in curve], [c[2] for c in curve], marker="o", ms=3, label=label.split(": ")[1],
                        ls="-" if "cfrlab" in label else "--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("wall time (s, CPU, evaluation excluded)")
        ax.set_ylabel("exploitability")
        ax.set_title(game)
        ax.grid(True, which="both", alpha=0.3)
        readable_ticks(ax)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
