"""Make docs/gallery.md and its pictures from cfrlab's own commands, so the gallery shows what a user sees.

    python docs/make_gallery.py          # or: make gallery

Runs, from this checkout: the `make run` solve with its convergence plot; a comparison of algorithms on Leduc
(`cfrlab solve --log` for each, then `cfrlab plot`); the web page in play (the headless-Chromium tests in
tests/web/test_browser.py, which save screenshots into CFRLAB_SCREENSHOT_DIR); and transcripts of the terminal
game (`cfrlab play` fed from a script). Takes a few minutes; the browser pictures need Debian's chromium.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def terminal() -> tuple[str, str]:
    leduc = cfrlab("play", "leduc", "--hands", "2", "--seed", "4", feed="2\n" * 20)
    koikoi = cfrlab("play", "koikoi(rounds=1)", "--seed", "2", feed="h\n" + "1\n" * 30 + "s\n" * 3)
    return leduc, koikoi


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
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
## The terminal game

`cfrlab play leduc --hands 2` (input: always 2, bet or call):

```
{leduc.rstrip()}
```

`cfrlab play koikoi` with `h` (the rules and the yaku table), then always the first card and STOP:

```
{koikoi.rstrip()}
```
"""
    (ROOT / "docs" / "gallery.md").write_text(text)
    print(f"wrote {ROOT / 'docs' / 'gallery.md'} and {OUT}/")


if __name__ == "__main__":
    main()
