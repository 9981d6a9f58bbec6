"""``cfrlab eval`` of hold'em strategies: an abstract strategy's exact exploitability by the vectorised best
response, and LBR, the real game's exact exploitability and head-to-head play in the real game (``--lbr``,
``--real-exact``, ``--versus``); the hold'em family registers ``RealGamePlay`` as its ``evaluation``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfrlab.cli.common import console, emit_json, file_heading, fmt, stdout
from cfrlab.cli.progress import tracker
from cfrlab.games.holdem.ui.build import prepare_abstraction

if TYPE_CHECKING:
    from cfrlab.game import Game
    from cfrlab.games.holdem.eval.lbr_log import DealLog
    from cfrlab.policy import TabularPolicy


def agent_names(text: str | None) -> list[str]:
    """``--versus``'s agents: ``call,raise,strength`` -> their names."""
    if text is None:
        return []
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise ValueError(f"--versus takes agent names separated by commas, e.g. call,raise,strength; got {text!r}")
    return names


class RealGamePlay:
    """What ``cfrlab eval --lbr``, ``--real-exact`` and ``--versus`` ask for, run on the strategy's real hold'em
    game (the family's ``evaluation``)."""

    def __init__(self, *, lbr: int | None = None, lbr_log: Path | None = None, real_exact: bool = False,
                 rollouts: int | None = None, versus: str | None = None, hands: int | None = None, workers: int = 1,
                 address: str | None = None, seed: int = 0, exact: bool = True,
                 versus_log: Path | None = None) -> None:
        for flag, value, needs, paired in (("--rollouts", rollouts, "--lbr", lbr), ("--lbr-log", lbr_log, "--lbr", lbr),
                                           ("--hands", hands, "--versus", versus),
                                           ("--versus-log", versus_log, "--versus", versus)):
            if value is not None and paired is None:
                raise ValueError(f"{flag} {value} sets what {needs} plays; give {needs} too")
        self.lbr, self.real_exact, self.rollouts = lbr, real_exact, rollouts or 200
        self.versus, self.hands = agent_names(versus), hands or 1000
        if versus_log is not None and len(self.versus) != 1:
            raise ValueError(f"--versus-log keeps the deals of one agent; --versus names {len(self.versus)}: give one "
                             "agent per run")
        self.versus_log = versus_log
        self.exact = exact
        self.lbr_log = lbr_log
        self._log: DealLog | None = None
        self.workers, self.address, self.seed = workers, address, seed

    def evaluate_file(self, path: Path, game_spec: str | None, json_out: bool) -> bool:
        """Evaluate an abstract strategy file (``holdem_ehs2``) here, with what was asked; False for another."""
        from cfrlab.policy_file import read_policy_meta

        if not (game_spec or read_policy_meta(path)["game"]).startswith("holdem_ehs2"):
            return False
        evaluate_abstract(path, game_spec, json_out, self)
        return True

    @property
    def wanted(self) -> bool:
        return self.lbr is not None or self.real_exact or bool(self.versus)

    def check(self, game: Game, policy: TabularPolicy) -> None:
        """Refuse a strategy of another game, unknown agents and an ``--lbr-log`` of another run (before the exact
        evaluation's work)."""
        from cfrlab.agents import make_agent
        from cfrlab.distributed import check_local_workers

        if game.name not in ("holdem", "holdem_ehs2"):
            raise ValueError(f"--lbr, --real-exact and --versus take a limit hold'em strategy; this one is for "
                             f"{game.spec()}")
        for name in self.versus:
            make_agent(name, getattr(game, "real_game", game))
        check_local_workers(self.workers, self.address)
        self._log = self._deal_log(game, policy)

    def run(self, game: Game, policy: TabularPolicy, quiet: bool = False) -> dict[str, Any]:
        """Play what was asked; print it unless ``quiet``; return it for ``--json`` (mb/h intervals)."""
        if not self.wanted:
            return {}
        from cfrlab.games.holdem.eval.real_game import (
            RealGameStrategy,
            exact_real_exploitability,
            lbr_in_real_game,
            verify_deals,
            versus,
        )

        strategy = RealGameStrategy(game, policy)
        out: dict = {}
        if self.real_exact:
            chips = exact_real_exploitability(strategy)
            out["real_exploitability"] = chips
            out["real_mbb_per_hand"] = chips * strategy.real.milli_bets_per_chip
            if not quiet:
                stdout.print(f"exploitability in the real game (exact): {out['real_mbb_per_hand']:.1f} mb/h")
        if self.lbr is not None:
            log = self._log if self._log is not None else self._deal_log(game, policy)
            verify_deals(strategy, log, self.lbr, self.rollouts, self.seed)  # refused before it is announced
            if log is not None and log.done and not quiet:
                console.print(f"LBR: {len([i for i in log.done if i < self.lbr])} of {self.lbr} deals already in "
                              f"{str(self.lbr_log)!r}; playing the others")
            with tracker("LBR", self.lbr, "deals", quiet=quiet, transient=True) as bar:
                try:
                    interval = lbr_in_real_game(strategy, self.lbr, self.rollouts, self.seed, self.workers,
                                                self.address, on_deal=bar.update, log=log)
                except KeyboardInterrupt:
                    if log is None:
                        raise
                    print(f"interrupted: {len(log.done)} deals kept in {str(self.lbr_log)!r}; the same command "
                          "continues them", file=sys.stderr)
                    raise SystemExit(130) from None
            out["lbr_mbb_per_hand"] = strategy.milli_bets(interval)
            if not quiet:
                stdout.print(f"LBR (lower bound on the real exploitability, {self.lbr} deals x 2 seats): "
                             f"{format_interval(out['lbr_mbb_per_hand'])} mb/h")
        if self.versus:
            with tracker(f"vs {self.versus[0]}", self.hands, "deals", quiet=quiet, transient=True) as bar:
                def heard(name: str, done: int) -> None:
                    if name != bar.label.removeprefix("vs "):
                        bar.restart(f"vs {name}", self.hands)
                    bar.update(done)

                try:
                    results = versus(strategy, self.versus, self.hands, self.seed, self.workers, self.address,
                                     on_deal=heard, log_path=self.versus_log)
                except KeyboardInterrupt:
                    if self.versus_log is None:
                        raise
                    print(f"interrupted: the deals played are kept in {str(self.versus_log)!r}; the same command "
                          "continues them", file=sys.stderr)
                    raise SystemExit(130) from None
            out["versus_mbb_per_hand"] = {name: strategy.milli_bets(r) for name, r in results.items()}
            if not quiet:
                for name, mbb in out["versus_mbb_per_hand"].items():
                    stdout.print(f"strategy vs {name} ({self.hands} duplicate deals): {format_interval(mbb)} mb/h")
        return out

    def _deal_log(self, game: Game, policy: TabularPolicy) -> DealLog | None:
        """``--lbr-log``'s deals: those of an earlier run of this strategy, seed and rollouts, and the appender."""
        if self.lbr_log is None:
            return None
        from cfrlab.games.holdem.eval.lbr_log import DealLog, log_meta

        return DealLog(self.lbr_log, log_meta(game.spec(), policy.probs, self.seed, self.rollouts))


def evaluate_abstract(path: Path, game_spec: str | None, json_out: bool, play: RealGamePlay) -> None:
    """Exact exploitability of an abstract hold'em strategy by the vectorised best response (no tree compiled),
    unless ``--no-exact``; then what ``play`` was asked for in the real game."""
    from cfrlab.policy import TabularPolicy
    from cfrlab.policy_file import read_policy_meta
    from cfrlab.registry import load_game

    file_game = load_game(read_policy_meta(path)["game"])
    the_game = load_game(game_spec) if game_spec else file_game
    policy, meta = TabularPolicy.load(path, file_game if in_other_table(file_game, the_game) else the_game)
    if play.wanted:
        play.check(the_game, policy)
    prepare_abstraction(the_game, console)
    result = {"game": the_game.spec(), "solver": meta.get("solver"), "iterations": meta.get("iterations"),
              **(_exact_values(the_game, policy) if play.exact else {}), "abstraction_table": the_game.table_note()}
    if json_out:
        emit_json({**result, **play.run(the_game, policy, quiet=True)})
        return
    stdout.print(file_heading(path, result))
    if play.exact:
        br = result["best_response_values"]
        stdout.print(f"value for player 0 {fmt(result['value'])}   best-response values {fmt(br[0])}, {fmt(br[1])}")
        stdout.print(f"exploitability {fmt(result['exploitability'])} chips = {result['mbb_per_hand']:.2f} mb/h in "
                     "the abstract game")
    stdout.print(result["abstraction_table"], soft_wrap=True)
    play.run(the_game, policy)


def in_other_table(file_game: Game, game: Game) -> bool:
    """Whether ``game`` (``eval --game``) is the file's abstraction with another joint table (``table=exact``
    against the sampled one): the same real game, buckets and rows, so the strategy plays there as it is (how much
    a strategy owes to its table's noise). Any other game is checked by ``TabularPolicy.load`` as usual."""
    if game is file_game or game.fingerprint() == file_game.fingerprint() or game.name != "holdem_ehs2" \
            or file_game.name != "holdem_ehs2":
        return False
    real, other = game.real_game, file_game.real_game  # type: ignore[attr-defined]
    return bool(real.fingerprint() == other.fingerprint() and game.infoset_rows() == file_game.infoset_rows())


def _exact_values(the_game: Game, policy: TabularPolicy) -> dict[str, Any]:
    """The abstract game's exploitability (chips and mb/h), value and best-response values."""
    from cfrlab.games.holdem.solvers.cfr import Layout

    layout = Layout(the_game)  # type: ignore[arg-type]
    table = layout.table_from_policy(policy)
    br = layout.best_response_values(table)
    chips = (br[0] + br[1]) / 2
    return {"exploitability": chips, "mbb_per_hand": chips * the_game.milli_bets_per_chip,  # type: ignore[attr-defined]
            "value": layout.expected_value(table), "best_response_values": list(br)}


def format_interval(mbb: dict[str, float]) -> str:
    return f"{mbb['mean']:+.1f} [{mbb['low']:+.1f}, {mbb['high']:+.1f}] (95 %)"
