"""Step rate of cfrlab's environments beside PettingZoo's classic card games and RLCard's (a benchmark).

Each environment plays random legal actions (drawn from its mask with one numpy generator, the same loop for all)
for ``--steps`` agent steps, resetting at the end of each game; the figure is steps per second of process CPU
time, on one core (one Python thread). PettingZoo's ``leduc_holdem_v4`` and ``texas_holdem_v4`` are RLCard's games
wrapped, so RLCard's own loop (``rlcard.make``, ``env.step``) is measured too. The comparison needs
``pip install rlcard`` (``pip install 'pettingzoo[classic]'``); without it those rows are left out.

    .venv/bin/python benchmarks/bench_envs.py [--steps 20000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import numpy as np

CFRLAB = ["kuhn", "leduc", "holdem", "koikoi", "koikoi(rounds=12,first_oya=coin)"]
GYM = [("kuhn", "random"), ("leduc", "random"), ("holdem", "call"), ("koikoi", "greedy")]


def aec_rate(make: Callable[[], object], steps: int, seed: int = 0) -> float:
    """Agent steps per CPU second of a PettingZoo AEC environment under random legal actions."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    start, done_steps = time.process_time(), 0
    while done_steps < steps:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            done_steps += 1
        env.reset()
    return done_steps / (time.process_time() - start)


def gym_rate(spec: str, opponent: str, steps: int, seed: int = 0) -> float:
    """Learner steps per CPU second of ``CfrlabGymEnv`` (the opponent's moves inside each step)."""
    from cfrlab.envs import CfrlabGymEnv

    env = CfrlabGymEnv(spec, opponent)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    start = time.process_time()
    for _ in range(steps):
        obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if done:
            obs, _ = env.reset()
    return steps / (time.process_time() - start)


def rlcard_rate(name: str, steps: int, seed: int = 0) -> float:
    """Steps per CPU second of RLCard's own environment loop."""
    import rlcard

    env = rlcard.make(name, config={"seed": seed})
    rng = np.random.default_rng(seed)
    state, _ = env.reset()
    start = time.process_time()
    for _ in range(steps):
        legal = list(state["legal_actions"])
        state, _ = env.step(legal[int(rng.integers(len(legal)))])
        if env.is_over():
            state, _ = env.reset()
    return steps / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    from cfrlab.envs import CfrlabEnv

    rows = []
    for spec in CFRLAB:
        def make(spec: str = spec) -> object:
            return CfrlabEnv(spec)

        aec_rate(make, 200)  # kernels loaded, trees cached
        rows.append({"env": f"cfrlab.envs.CfrlabEnv({spec!r})", "steps_per_s": aec_rate(make, args.steps)})
    for spec, opponent in GYM:
        gym_rate(spec, opponent, 200)
        rows.append({"env": f"cfrlab.envs.CfrlabGymEnv({spec!r}, {opponent!r})",
                     "steps_per_s": gym_rate(spec, opponent, args.steps)})
    try:
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

        for module in (leduc_holdem_v4, texas_holdem_v4):
            rows.append({"env": f"pettingzoo.classic.{module.__name__.rsplit('.', 1)[1]}",
                         "steps_per_s": aec_rate(module.env, args.steps)})
        for name in ("leduc-holdem", "limit-holdem"):
            rows.append({"env": f"rlcard.make({name!r})", "steps_per_s": rlcard_rate(name, args.steps)})
    except ImportError as exc:
        print(f"left out PettingZoo classic and RLCard: {exc}")
    for row in rows:
        print(f"{row['env']:<60} {row['steps_per_s']:>10,.0f} steps/s")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
