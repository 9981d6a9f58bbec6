"""The first build of a ``holdem_ehs2`` game's card abstraction, said before it starts and followed on a progress
bar: the hold'em family's ``prepare``, run by ``solve`` and ``eval`` (and ``play``, ``serve`` and ``arena`` with an
abstract strategy) before their work. Cached tables are read without a word."""

from __future__ import annotations

import time
from typing import Any

from cfrlab.cli.progress import duration, tracker


def prepare_abstraction(game: Any, console: Any) -> None:
    """Read or build the card abstraction of a ``holdem_ehs2`` game; a build says first what it will take
    (``AbstractHoldem.build_estimate``: time, peak memory, temporary disk) and shows each stage's progress."""
    if getattr(game, "name", "") != "holdem_ehs2":
        return
    if game.tables_cached():
        game.load_tables()
        return
    from cfrlab.games.holdem.rules.evaluator import tables_dir

    real = game.real_game
    console.print(f"building the E[HS^2] abstraction of {real.spec()}, buckets {game.buckets} (once: it is cached in "
                  f"{tables_dir()}): {game.build_estimate().text()} ...", highlight=False, soft_wrap=True)
    started = time.perf_counter()
    with tracker("E[HS^2] tables", transient=False) as bar:
        stage: list[str] = []

        def heard(name: str, done: int, total: int, unit: str) -> None:
            if stage != [name]:
                stage[:] = [name]
                bar.restart(f"E[HS^2] tables: {name}", total, unit)
            bar.update(done)

        game.load_tables(heard)
    console.print(f"abstraction built in {duration(time.perf_counter() - started)}", highlight=False)
