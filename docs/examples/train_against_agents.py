"""Train a tabular learner on Leduc against one of cfrlab's agents, then save what it plays as a strategy file.

Every-visit Monte Carlo control with epsilon-greedy exploration (Sutton & Barto 2018, sec. 5.4) over the
Gymnasium environment; any learner that reads ``obs["observation"]`` and ``obs["action_mask"]`` plugs in the same
way. ``python docs/examples/train_against_agents.py [OPPONENT] [EPISODES] [OUT]`` (defaults: random 20000
leduc-mc.npz); then ``cfrlab eval OUT``, ``cfrlab eval leduc --agent policy:OUT``, ``cfrlab arena leduc policy:OUT
OPPONENT``.
"""

from __future__ import annotations

import sys

import numpy as np

from cfrlab.envs import CfrlabGymEnv, strategy_of


def train(opponent: str = "random", episodes: int = 20_000, seed: int = 0, *, game: str = "leduc",
          seat: int | None = None, epsilon: float = 0.1) -> tuple[CfrlabGymEnv, dict]:
    """The environment and the learned action values, by observation (seat None: drawn at each deal)."""
    env = CfrlabGymEnv(game, opponent, seat=seat)
    rng = np.random.default_rng(seed)
    q: dict[bytes, np.ndarray] = {}
    n: dict[bytes, np.ndarray] = {}
    obs, _ = env.reset(seed=seed)
    for _ in range(episodes):
        visited, done, reward = [], False, 0.0
        while not done:
            key, legal = obs["observation"].tobytes(), np.flatnonzero(obs["action_mask"])
            values = q.setdefault(key, np.zeros(env.action_space.n))
            n.setdefault(key, np.zeros(env.action_space.n))
            action = int(rng.choice(legal)) if rng.random() < epsilon else int(legal[np.argmax(values[legal])])
            visited.append((key, action))
            obs, reward, done, _, _ = env.step(action)
        for key, action in visited:
            n[key][action] += 1
            q[key][action] += (reward - q[key][action]) / n[key][action]
        obs, _ = env.reset()
    return env, q


def greedy(q: dict) -> object:
    """The learned policy: the best action seen, uniform at an observation never met."""
    def act(obs: dict) -> object:
        legal = np.flatnonzero(obs["action_mask"])
        values = q.get(obs["observation"].tobytes())
        return obs["action_mask"] / len(legal) if values is None else legal[int(np.argmax(values[legal]))]
    return act


if __name__ == "__main__":
    opponent = sys.argv[1] if len(sys.argv) > 1 else "random"
    episodes = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    out = sys.argv[3] if len(sys.argv) > 3 else "leduc-mc.npz"
    env, q = train(opponent, episodes)
    strategy_of(env, greedy(q)).save(out, env.game, solver="monte-carlo control", opponent=opponent,
                                     iterations=episodes)
    print(f"{len(q)} observations learned against {opponent} in {episodes} episodes; strategy in {out}")
