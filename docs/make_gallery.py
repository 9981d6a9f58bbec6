"""Make docs/gallery.md and its pictures from cfrlab's own commands, so the gallery shows what a user sees.

    python docs/make_gallery.py          # or: make gallery
    python docs/make_gallery.py --only terminal,browser   # those parts alone (seconds, not minutes)

Runs, from this checkout: the `make run` solve with its convergence plot; a comparison of algorithms on Leduc
(`cfrlab solve --log` for each, then `cfrlab plot`); the web page in play (the headless-Chromium tests in
tests/web/test_browser.py, which save screenshots into CFRLAB_SCREENSHOT_DIR); and transcripts of the terminal
game (`cfrlab play` fed from a script; Koi-Koi against a player who reads the screen and plays sensibly). Takes a
few minutes; the browser pictures need Debian's chromium.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "gallery"
COMPARED = (("cfr+", 1000), ("dcfr", 1000), ("pcfr+", 1000), ("linear-cfr", 1000), ("cfr", 1000),
            ("external", 100_000), ("xfp", 300))
"""(algorithm, iterations) drawn on the Leduc comparison."""


def cfrlab(*args: str, feed: str | None = None) -> str:
    """Run the CLI of this checkout; its stdout."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    proc = subprocess.run([sys.executable, "-m", "cfrlab.cli.main", *args], input=feed, capture_output=True,
                          text=True, env=env, cwd=ROOT, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"cfrlab {' '.join(args)} failed:\n{proc.stderr}")
    return proc.stdout


def convergence() -> str:
    table = cfrlab("solve", "leduc", "--algo", "cfr+", "--iterations", "1000", "--log", "docs/gallery/leduc-cfr+.jsonl",
                   "--plot", "docs/gallery/leduc-cfr+.png", "-q")
    return "\n".join(line for line in table.splitlines() if not line.startswith("log: "))


def comparison() -> None:
    logs = []
    for algo, iterations in COMPARED:
        log = OUT / f"compare-{algo}.jsonl"
        cfrlab("solve", "leduc", "--algo", algo, "-n", str(iterations), "--log", str(log), "-q")
        logs.append(str(log))
    cfrlab("plot", *logs, "-o", str(OUT / "leduc-algorithms.png"), "--title", "Algorithms on Leduc hold'em")


def browser() -> bool:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CFRLAB_SCREENSHOT_DIR": str(OUT)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                           "tests/web/test_browser.py"], env=env, cwd=ROOT, capture_output=True, text=True)
    print(proc.stdout[-2000:])
    return (OUT / "koikoi-decision.png").exists()


KIND_VALUE = {"bright": 4, "animal": 3, "ribbon": 2, "chaff": 1}
SHOWN_CARD = re.compile(r"(?:\[(\d+)\] )?([^,\[]+?) \((\w{3}) (\w+)\)")
"""A card as the terminal shows it: ``[3] Pine Crane (Jan bright)`` (the number only in a list to choose from)."""


def screen_player(screen: list[str]) -> Callable[[str], str]:
    """A person at the terminal who reads ``screen`` (what the game printed) and answers sensibly: ``h`` first (the
    rules), then a card that captures the best field card (else the least valuable card), the best card to take,
    and STOP as soon as a yaku scores. Each answer is written after its prompt, as a terminal shows it."""

    def last(prefix: str) -> list[tuple[str, str, str, str]]:
        line = next(line for line in reversed(screen) if line.startswith(prefix))
        return SHOWN_CARD.findall(line.removeprefix(prefix))

    def answer(prompt: str) -> str:
        if not any(line.startswith(("Play which", "Take which", "Your score rose")) for line in screen):
            text = "h"
        elif prompt.startswith("Your score rose"):
            text = "s"
        elif prompt.startswith("Take which"):
            text = max(last("  Take which: "), key=lambda c: KIND_VALUE[c[3]])[0]
        else:
            field = {month: max(KIND_VALUE[k] for _, _, m, k in last("  Field: ") if m == month)
                     for _, _, month, _ in last("  Field: ")}
            hand = last("  Your hand: ")
            captures = [c for c in hand if c[2] in field]
            text = (max(captures, key=lambda c: field[c[2]] + KIND_VALUE[c[3]]) if captures
                    else min(hand, key=lambda c: KIND_VALUE[c[3]]))[0]
        screen.append(prompt + text)
        return text

    return answer


def koikoi_transcript() -> str:
    """`cfrlab play koikoi(rounds=1) --seed 2` (the greedy opponent) played by ``screen_player``."""
    sys.path.insert(0, str(ROOT))
    from cfrlab.games.koikoi.ui.terminal import run_play

    screen: list[str] = []
    run_play("koikoi(rounds=1)", "greedy", seed=2, input_fn=screen_player(screen), print_fn=screen.append)
    return "\n".join(screen)


def terminal() -> tuple[str, str]:
    leduc = cfrlab("play", "leduc", "--hands", "2", "--seed", "4", feed="2\n" * 20)
    return leduc, koikoi_transcript()


def terminal_section(leduc: str, koikoi: str) -> str:
    return f"""## The terminal game

`cfrlab play leduc --hands 2` (input: always 2, bet or call):

```
{leduc.rstrip()}
```

`cfrlab play koikoi` played from the screen: `h` (the rules and the yaku table) first, then a card that captures
the best field card (else the least valuable one), the best card to take, and STOP at the first yaku:

```
{koikoi.rstrip()}
```
"""


def only(parts: list[str]) -> None:
    """Remake the given parts alone: ``terminal`` (its section of gallery.md), ``browser`` (the screenshots)."""
    if "browser" in parts:
        browser()
        for name in ("koikoi-end.png", "koikoi-play.png", "leduc-play.png"):
            (OUT / name).unlink(missing_ok=True)
    if "terminal" in parts:
        page = ROOT / "docs" / "gallery.md"
        text = page.read_text()
        start = text.index("## The terminal game")
        page.write_text(text[:start] + terminal_section(*terminal()))
    print(f"remade {', '.join(parts)}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Make docs/gallery.md and its pictures.")
    parser.add_argument("--only", help="comma-separated parts to remake alone: terminal, browser")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.only:
        parts = args.only.split(",")
        unknown = sorted(set(parts) - {"terminal", "browser"})
        if unknown:
            raise SystemExit(f"--only takes terminal and browser, not {', '.join(unknown)}")
        only(parts)
        return
    table = convergence()
    comparison()
    pictures = browser()
    leduc, koikoi = terminal()
    for leftover in [*OUT.glob("*.jsonl"), *(OUT / name for name in ("koikoi-end.png", "koikoi-play.png",
                                                                      "leduc-play.png"))]:
        leftover.unlink(missing_ok=True)
    web = ("![Koi-Koi match: the STOP / KOI-KOI decision](gallery/koikoi-decision.png)\n\n"
           "![Koi-Koi match over](gallery/koikoi-match-end.png)\n\n"
           "![Leduc hold'em at a showdown](gallery/leduc-end.png)\n" if pictures else
           "(not made here: the browser pictures need Debian's chromium, `make browser`)\n")
    text = f"""# Gallery

What cfrlab shows, made by `make gallery` (`python docs/make_gallery.py`) from the project's own commands and
tests, so the pictures stay true. Machine: whatever ran the command last; the seconds are solver seconds.

## The convergence plot of `make run`

`cfrlab solve leduc --algo cfr+ --iterations 1000 --log ... --plot ...`: exploitability against iterations and
against solver seconds (kernel compilation and evaluation are counted apart), both log-log.

![CFR+ on Leduc hold'em](gallery/leduc-cfr+.png)

```
{table.rstrip()}
```

## Algorithms compared on Leduc hold'em

`cfrlab solve leduc --algo A -n N --log A.jsonl` for {", ".join(f"{a} ({n:,} iterations)" for a, n in COMPARED)},
then `cfrlab plot *.jsonl`.

![Algorithms on Leduc hold'em](gallery/leduc-algorithms.png)

## The web page in play

`cfrlab serve koikoi --rounds 12` and `cfrlab serve leduc` (screenshots taken by the headless-Chromium tests
in `tests/web/test_browser.py`).

{web}
{terminal_section(leduc, koikoi)}"""
    (ROOT / "docs" / "gallery.md").write_text(text)
    print(f"wrote {ROOT / 'docs' / 'gallery.md'} and {OUT}/")


if __name__ == "__main__":
    main()
