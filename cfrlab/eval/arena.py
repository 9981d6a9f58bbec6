"""The arena: sampled head-to-head play between two agents with confidence intervals, duplicate deals.

1. For each deal i, a chance seed s_i is spawned from one ``SeedSequence`` (so results never depend on how deals
   are split over workers).
2. With ``duplicate=True`` the deal is played twice, A in seat 0 and then A in seat 1, both times with chance
   drawn from a generator seeded with s_i: the same cards come out whenever the game consumes chance the same way
   (for Koi-Koi the deal and every draw: the draw pile does not depend on the plays). The pair's mean is one
   sample, which removes most of the luck of the cards.
3. Per sample, agent A's return, a win indicator (return > 0) and A's points per round are recorded; the report
   gives their means with normal 95 % intervals (mean +- 1.96 s / sqrt(n)); the win rate, a per-sample score
   in [0, 1], with the Wilson score interval (Wilson 1927) at the effective sample size n p (1 - p) / s^2 (Korn
   and Graubard 1998; n where s = 0 or p is 0 or 1): it stays inside [0, 1], has a width for a handful of samples
   or a rate of 0 or 1, and for many samples is the normal interval, as tight as duplicate deals make it.

Chance nodes are sampled with ``state.sample_chance(rng)`` when the state has it (full Koi-Koi deals), else from
``chance_outcomes()``. ``workers > 1`` runs chunks of deals as Ray tasks (started locally unless ``address``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from math import sqrt
from typing import Any

import numpy as np

from cfrlab.eval.arena_log import ArenaLog
from cfrlab.game import Game, State
from cfrlab.seeding import as_generator

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Interval:
    """A mean with its 95 % normal confidence interval."""

    mean: float
    low: float
    high: float
    stderr: float

    @classmethod
    def of(cls, xs: Sequence[float] | np.ndarray) -> Interval:
        a = np.asarray(xs, dtype=np.float64)
        m = float(a.mean()) if len(a) else float("nan")
        se = float(a.std(ddof=1) / sqrt(len(a))) if len(a) > 1 else float("nan")
        return cls(m, m - Z95 * se, m + Z95 * se, se)

    @classmethod
    def of_rate(cls, xs: Sequence[float] | np.ndarray) -> Interval:
        """The Wilson score interval of scores in [0, 1] (a rate) at the effective sample size (module docstring);
        ``stderr`` is the sample's, as ``of``."""
        a = np.asarray(xs, dtype=np.float64)
        if not len(a):
            return cls.of(a)
        n: float = len(a)
        p = float(a.mean())
        variance = float(a.var(ddof=1)) if len(a) > 1 else 0.0
        if variance > 0.0 and 0.0 < p < 1.0:
            n = n * p * (1.0 - p) / variance
        shrink = 1.0 + Z95**2 / n
        centre = (p + Z95**2 / (2 * n)) / shrink
        half = Z95 * sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / shrink
        return cls(p, max(0.0, centre - half), min(1.0, centre + half), cls.of(a).stderr)

    def __str__(self) -> str:
        return f"{self.mean:+.3f} [{self.low:+.3f}, {self.high:+.3f}]"


@dataclass(frozen=True)
class ArenaResult:
    """Agent A against agent B: returns, win/draw/loss rates and points per round, each with an interval."""

    agent_a: str
    agent_b: str
    game: str
    games: int
    """Games played (2 per deal with duplicate deals)."""
    deals: int
    duplicate: bool
    rounds: int
    """Rounds played in all (a Koi-Koi match counts its rounds)."""
    return_a: Interval
    """A's mean return per game (seat-averaged per deal when duplicate)."""
    win_rate_a: Interval
    draw_rate: float
    loss_rate_a: float
    points_per_round_a: Interval
    seat_returns_a: tuple[float, float]
    """A's mean return when in seat 0 and in seat 1."""
    points_per_deal_a: tuple[float, ...] = ()
    """A's points per round on each deal, in deal order: the samples behind ``points_per_round_a``, so that runs on
    different seeds can be pooled exactly."""
    wins_per_deal_a: tuple[float, ...] = ()
    """A's share of each deal's games won (0, 1/2 or 1 with duplicate deals): the samples behind ``win_rate_a``."""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return d

    def table(self) -> str:
        """A plain-text summary table."""
        rows = [
            ("game", self.game),
            ("deals x seatings", f"{self.deals} x {2 if self.duplicate else 1} = {self.games} games, "
                                 f"{self.rounds} rounds"),
            (f"{self.agent_a} return / game", str(self.return_a)),
            (f"{self.agent_a} points / round", str(self.points_per_round_a)),
            (f"{self.agent_a} win rate", f"{self.win_rate_a.mean:.3f} [{self.win_rate_a.low:.3f}, "
                                         f"{self.win_rate_a.high:.3f}]"),
            ("draw rate", f"{self.draw_rate:.3f}"),
            (f"{self.agent_b} win rate", f"{self.loss_rate_a:.3f}"),
            (f"{self.agent_a} by seat (0, 1)", f"{self.seat_returns_a[0]:+.3f}, {self.seat_returns_a[1]:+.3f}"),
        ]
        width = max(len(k) for k, _ in rows)
        title = f"{self.agent_a} vs {self.agent_b} (95 % intervals)"
        return "\n".join([title, "-" * len(title)] + [f"{k.ljust(width)}  {v}" for k, v in rows])


def sample_chance(state: State, rng: np.random.Generator) -> int:
    """A chance action drawn with its probability (through ``state.sample_chance`` where a game has it)."""
    sampler = getattr(state, "sample_chance", None)
    if sampler is not None:
        return int(sampler(rng))
    outcomes = state.chance_outcomes()
    probs = np.array([p for _, p in outcomes], dtype=np.float64)
    return int(outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0])


def play_game(game: Game, agents: Sequence[Any], chance_rng: np.random.Generator,
              agent_rngs: Sequence[np.random.Generator], observe: Callable[[State], None] | None = None) -> State:
    """One game to its end; chance from ``chance_rng``, seat i's decisions from ``agents[i]``; ``observe`` sees
    every state, the first and the last included (a benchmark's view of the play, e.g. a match's rounds)."""
    state = game.new_initial_state()
    while True:
        if observe is not None:
            observe(state)
        if state.is_terminal():
            return state
        if state.is_chance_node():
            action = sample_chance(state, chance_rng)
        else:
            p = state.current_player()
            action = agents[p].act(state, agent_rngs[p])
        state = state.child(action)


def _rounds_of(state: State) -> int:
    rounds = getattr(state, "rounds_played", None)
    return int(rounds) if rounds else 1


def _play_deals(spec: str, agent_a: Any, agent_b: Any, seeds: Sequence[np.random.SeedSequence],
                duplicate: bool, on_row: Callable[[int, list[Any]], None] | None = None
                ) -> list[tuple[float, float, float, float, int, int]]:
    """Per deal: (A return seat 0, A return seat 1 or nan, A win, A loss, rounds, games); ``on_row(k, [row])``
    after deal k."""
    from cfrlab.registry import load_game

    game = load_game(spec)
    out = []
    for seq in seeds:
        chance_seed, a_seed, b_seed = seq.spawn(3)
        returns, rounds, games, wins, losses = [], 0, 0, 0.0, 0.0
        seatings = [(agent_a, agent_b), (agent_b, agent_a)] if duplicate else [(agent_a, agent_b)]
        for seat_a, agents in enumerate(seatings):
            rngs = [as_generator(a_seed), as_generator(b_seed)]
            if seat_a == 1:
                rngs = rngs[::-1]
            end = play_game(game, agents, as_generator(chance_seed), rngs)
            r = end.returns()[seat_a]
            returns.append(r)
            wins += r > 0
            losses += r < 0
            rounds += _rounds_of(end)
            games += 1
        out.append((returns[0], returns[1] if duplicate else float("nan"), wins / games, losses / games, rounds,
                    games))
        if on_row is not None:
            on_row(len(out) - 1, out[-1:])
    return out


def arena(game: Game | str, agent_a: Any, agent_b: Any, deals: int = 1000, seed: int | None = 0,
          duplicate: bool = True, workers: int = 1, address: str | None = None,
          on_deal: Callable[[int], None] | None = None, log: ArenaLog | None = None) -> ArenaResult:
    """Play ``deals`` deals of ``game`` between ``agent_a`` and ``agent_b`` (each deal from both seats when
    ``duplicate``); ``workers > 1`` or an ``address`` uses Ray. The result is the same for any number of workers.
    ``on_deal(n)`` hears the deals played so far (progress): after each deal, or each batch on Ray. With ``log``
    (``arena_log``), the deals it holds are checked (a sample played again) and not played again, and each new one
    is added as it ends."""
    from cfrlab.registry import load_game

    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    spec = game if isinstance(game, str) else game.spec()
    g = load_game(spec)
    if g.num_players != 2:
        raise ValueError(f"the arena plays two-player games; {spec} has {g.num_players} players")
    seeds = np.random.SeedSequence(seed).spawn(deals)
    rows = _rows(spec, agent_a, agent_b, seeds, duplicate, workers, address, on_deal, log)
    r0 = np.array([r[0] for r in rows])
    r1 = np.array([r[1] for r in rows])
    per_deal = (r0 + r1) / 2 if duplicate else r0
    rounds = np.array([r[4] for r in rows], dtype=np.float64)
    games = np.array([r[5] for r in rows], dtype=np.float64)
    total_a = r0 + (r1 if duplicate else 0.0)
    return ArenaResult(
        agent_a=getattr(agent_a, "name", "A"),
        agent_b=getattr(agent_b, "name", "B"),
        game=spec,
        games=int(games.sum()),
        deals=deals,
        duplicate=duplicate,
        rounds=int(rounds.sum()),
        return_a=Interval.of(per_deal),
        win_rate_a=Interval.of_rate([r[2] for r in rows]),
        draw_rate=float(1.0 - np.mean([r[2] + r[3] for r in rows])),
        loss_rate_a=float(np.mean([r[3] for r in rows])),
        points_per_round_a=Interval.of(total_a / rounds),
        seat_returns_a=(float(r0.mean()), float(r1.mean()) if duplicate else float("nan")),
        points_per_deal_a=tuple(float(x) for x in total_a / rounds),
        wins_per_deal_a=tuple(float(r[2]) for r in rows),
    )


def _rows(spec: str, agent_a: Any, agent_b: Any, seeds: list[np.random.SeedSequence], duplicate: bool,
          workers: int, address: str | None, on_deal: Callable[[int], None] | None, log: ArenaLog | None
          ) -> list[tuple[float, float, float, float, int, int]]:
    """Every deal's row, those ``log`` holds taken from it (after its check) and the rest played and logged."""
    if log is not None:
        log.check(lambda i: _play_deals(spec, agent_a, agent_b, [seeds[i]], duplicate)[0], len(seeds))
    done = {i: row for i, row in (log.done if log is not None else {}).items() if i < len(seeds)}
    todo = [i for i in range(len(seeds)) if i not in done]
    if on_deal is not None and done:
        on_deal(len(done))

    def took(first: int, new: list[Any]) -> None:  # rows of todo[first:first + len(new)], in order
        for k, row in enumerate(new, start=first):
            done[todo[k]] = row
            if log is not None:
                log.add(todo[k], row)
        if on_deal is not None:
            on_deal(len(done))

    chosen = [seeds[i] for i in todo]
    if workers > 1 or address is not None:  # an address means the cluster's workers, even one
        _play_with_ray(spec, agent_a, agent_b, chosen, duplicate, workers, address, took)
    else:
        _play_deals(spec, agent_a, agent_b, chosen, duplicate, took)
    return [done[i] for i in range(len(seeds))]


RAY_BATCHES = 20
"""Batches a Ray arena is played in (each split over the workers), so that progress hears of each."""


def _play_with_ray(spec: str, agent_a: Any, agent_b: Any, seeds: list[np.random.SeedSequence], duplicate: bool,
                   workers: int, address: str | None, took: Callable[[int, list[Any]], None]) -> None:
    """The deals in batches over the workers; ``took(first, rows)`` gets each batch's rows in deal order."""
    from cfrlab.distributed import WorkerPool

    rows: list[Any] = []
    step = max(workers, -(-len(seeds) // RAY_BATCHES))
    with WorkerPool(workers, address=address) as pool:
        for start in range(0, len(seeds), step):
            batch = seeds[start:start + step]
            chunks = [chunk for chunk in (batch[i::workers] for i in range(workers)) if chunk]
            results = pool.map(_play_deals, [(spec, agent_a, agent_b, chunk, duplicate) for chunk in chunks])
            ordered: list[Any] = [None] * len(batch)  # chunk i holds deals i, i + workers, ...
            for i, chunk_rows in enumerate(results):
                for j, row in enumerate(chunk_rows):
                    ordered[i + j * workers] = row
            took(len(rows), ordered)
            rows += ordered
