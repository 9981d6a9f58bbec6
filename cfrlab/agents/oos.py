"""The Online Outcome Sampling agent, and the "online exploitability" of the strategy it plays.

``OOSAgent.act(state, rng)`` searches from the root of the game with samples
targeted at the acting player's information set (``cfrlab.solvers.oos``), for
a budget of sampled traversals or of seconds, then draws its move from the
average strategy there; the tables stay for the next move. It reads only the
acting player's ``information_state_key``: the histories it samples come from
that key (never from the state's hidden cards), so any consistent completion of
the state gives the same move for the same random stream. Games whose deal
cannot be listed (Koi-Koi) are searched through the game's conditioned deal
(``cfrlab.solvers.oos``, seed 000 sec. 10.1).

A game played as a match of rounds that deal again (Koi-Koi) is searched round
by round, each round as a game of its own: its family's ``Rounds.search``
(``cfrlab.registry.GameFamily``) gives the round's solver and infoset keys; the
tables are kept for the moves of one round and start afresh at the next.

``online_policy`` is the paper's evaluation (Lisy, Lanctot & Bowling 2015,
sec. 5): the strategy OOS plays when it searches, with a fixed budget per move,
at every information set, each search continuing from the tables of the same
player's earlier moves of the match; its exact exploitability is then computed
on the compiled tree.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from cfrlab.game import Game, State
from cfrlab.policy import TabularPolicy
from cfrlab.registry import families, family_of, resolve
from cfrlab.seeding import as_generator
from cfrlab.solvers.oos import OnlineOutcomeSampling, OOSConfig
from cfrlab.solvers.oos.targets import check_targetable
from cfrlab.tree import GameTree, kernels

DEFAULT_SECONDS = 0.5
"""Seconds per move of ``make_agent('oos')``."""
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}
"""The clocks a timed search counts its seconds on: this thread's CPU time, or the wall clock."""
CHUNK = {"generic": 8}
"""Iterations between clock checks of a timed search, by the solver's path (64 on the numba paths)."""


class OOSAgent:
    """Plays by Online Outcome Sampling with ``samples`` traversals or ``seconds`` of search per move (on
    ``clock``: 'cpu', this thread's CPU time, or 'wall');
    ``objective`` ('points' or 'match') and ``table`` (a match table, default the rules' own) for games played
    as matches of rounds (``GameFamily.rounds``, ``Rounds.search``)."""

    def __init__(self, game: Game, *, samples: int | None = None, seconds: float | None = None,
                 clock: str = "cpu", objective: str = "points", table: Any = None, **config: Any) -> None:
        if (samples is None) == (seconds is None):
            raise ValueError("give OOS a budget per move: samples=N or seconds=S (one of them)")
        if samples is not None and samples < 1:
            raise ValueError(f"OOS needs at least one sample per move, got {samples}")
        if seconds is not None and not (seconds > 0.0 and np.isfinite(seconds)):
            raise ValueError(f"OOS needs a positive, finite number of seconds per move, got {seconds}")
        if clock not in CLOCKS:
            raise ValueError(f"the OOS clock is cpu or wall, got {clock!r}")
        if objective not in ("points", "match"):
            raise ValueError(f"the OOS objective is points or match, got {objective!r}")
        self.config = OOSConfig(**config)
        self.game, self.objective = game, objective
        self.samples, self.seconds, self.clock = samples, seconds, clock
        family = family_of(game)
        plan = family.rounds if family is not None else None
        rounds = resolve(plan.search) if plan is not None and plan.search is not None else None
        self.by_round = rounds is not None and rounds.applies(game, objective)
        if objective == "match" and not self.by_round:
            titles = ", ".join(f.title or f.name for f in families() if f.rounds is not None and f.rounds.search)
            raise ValueError(f"the match objective plays {titles} matches (games played in rounds), not {game.spec()}")
        if rounds is not None and self.by_round:  # refuse what the rounds' search cannot do before play starts
            self.rounds = rounds(game, objective, table, self.config)
            self.solver = self.rounds.solver(game.new_initial_state())
        else:
            check_targetable(game, public=self.config.targeting == "pst")
            self.solver = OnlineOutcomeSampling(game, self.config)
            self._empty = self.solver.state_dict()
        self.name = (f"oos:{seconds:g}s" if seconds is not None else f"oos:{samples}") + \
            (":wall" if seconds is not None and clock == "wall" else "") + \
            (":pst" if self.config.targeting == "pst" else "") + (":match" if objective == "match" else "")

    def _round_infoset(self, state: State, key: str) -> str:
        """The round's infoset key of a match infoset ``key``, with a fresh solver at a new round."""
        rkey, fresh = self.rounds.infoset(state, key)
        if fresh:
            self.solver = self.rounds.solver(state)
        return rkey

    def search(self, key: str, player: int, rng: np.random.Generator) -> dict[int, float]:
        """Search at infoset ``key`` of ``player`` for one move's budget; the average strategy there."""
        solver = self.solver
        if solver.target_infoset != (key, player):
            solver.set_target(key, player)
        solver.rng = rng  # the passes' random streams come from the agent's own stream
        per_iteration = self.game.num_players
        if self.samples is not None:
            solver.iterate(-(-self.samples // per_iteration))
        elif self.seconds is not None:
            now = CLOCKS[self.clock]  # CPU seconds by default (as the Koi-Koi search agent's budget): a loaded
            stop = now() + float(self.seconds)  # machine does not shrink the search; wall: what a player waits
            while now() < stop:
                solver.iterate(CHUNK.get(solver.path, 64))  # numba: about 0.5-2 ms between checks
        return solver.policy_at(key)

    def action_probabilities(self, state: State, rng: np.random.Generator) -> dict[int, float]:
        """The average strategy at the acting player's infoset after one move's search (what ``act`` draws from)."""
        player = state.current_player()
        key = state.information_state_key(player)
        return self.search(self._round_infoset(state, key) if self.by_round else key, player, rng)

    def reset(self) -> None:
        """Forget the tables of earlier moves: the next move searches from empty tables, as a game's first does."""
        if self.by_round:
            self.rounds = type(self.rounds)(self.game, self.objective, self.rounds.table, self.config)
        else:
            self.solver.load_state_dict(self._empty)

    def act(self, state: State, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        probs = self.action_probabilities(state, rng)
        p = np.array([max(probs.get(a, 0.0), 0.0) for a in legal])
        if not p.sum() > 0.0:
            return int(legal[int(rng.integers(len(legal)))])
        return int(legal[int(rng.choice(len(legal), p=p / p.sum()))])


def online_policy(game: Game, tree: GameTree, samples: int, seed: int | np.random.Generator = 0,
                  **config: Any) -> TabularPolicy:
    """The strategy OOS plays along matches, ``samples`` traversals per move, at every infoset of ``tree`` (the
    paper's online exploitability is the exploitability of this policy).

    As in a match, a player's search at infoset I continues from the tables its search at its previous infoset
    on the way to I left (memory reused between the moves of one game; perfect recall makes that infoset
    unique), and starts from empty tables at the player's first move. The searches are run depth first over
    each player's infosets; each draws from its own stream, keyed by ``seed`` and the infoset.
    """
    streams = as_generator(seed).integers(0, 2**63 - 1, size=tree.num_infosets)
    parent_seq = np.empty(tree.num_infosets, dtype=np.int64)
    kernels.infoset_parent_sequences(tree.parent, tree.player, tree.parent_sequence, tree.infoset_player,
                                     tree.infoset_node, parent_seq)
    children: list[list[int]] = [[] for _ in range(tree.num_infosets)]
    first_moves: list[int] = []
    for i, s in enumerate(parent_seq):
        (children[int(tree.sequence_infoset[s])] if s >= 0 else first_moves).append(i)
    agent = OOSAgent(game, samples=samples, **config)
    probs = np.zeros((tree.num_infosets, game.max_actions))
    mask = np.zeros_like(probs, dtype=bool)
    empty = agent.solver.state_dict()
    stack = [(i, empty) for i in reversed(first_moves)]
    while stack:
        i, tables = stack.pop()
        agent.solver.load_state_dict(tables)
        key, player = tree.infoset_keys[i], int(tree.infoset_player[i])
        row = agent.search(key, player, np.random.default_rng(int(streams[i])))
        legal = tree.sequence_action[tree.infoset_offset[i]:tree.infoset_offset[i + 1]]
        mask[i, legal] = True
        probs[i, legal] = [row.get(int(a), 0.0) for a in legal] if row else 1.0 / len(legal)
        if children[i]:
            after = agent.solver.state_dict()
            stack.extend((c, after) for c in reversed(children[i]))
    return TabularPolicy(list(tree.infoset_keys), probs, mask)
