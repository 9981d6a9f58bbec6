"""Reading a large Gambit ``.efg`` file: cfrlab's reader against pygambit's and OpenSpiel's, in CPU seconds and
peak memory (each reader in a fresh process, its own figures: ``time.process_time`` and ``ru_maxrss``).

The file is ``leduc(ranks=13)`` exported by ``cfrlab export`` (1,179,777 nodes, 42.6 MB), written once into
``--folder``. cfrlab's figure is ``load_game("efg:PATH")`` (the parse and the game's tables), pygambit's
``pygambit.read_efg`` and OpenSpiel's ``pyspiel.load_efg_game`` (each parses the file into its game)::

    PYTHONPATH=. python benchmarks/bench_efg_parse.py --folder /tmp/efgbench --readers cfrlab,pygambit,openspiel
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

SPEC = "leduc(ranks=13)"


def read_with(reader: str, path: str) -> dict[str, float]:
    """Read ``path`` with ``reader`` in this process; its CPU seconds and this process's peak memory."""
    started = time.process_time()
    if reader == "cfrlab":
        from cfrlab.registry import load_game

        tree = load_game(f"efg:{path}").tree
        nodes = getattr(tree, "num_nodes", None) or len(tree.kind)  # the reader before this one had no num_nodes
    elif reader == "pygambit":
        import pygambit

        pygambit.read_efg(path)
        nodes = -1
    elif reader == "openspiel":
        import pyspiel

        text = Path(path).read_text()
        pyspiel.load_efg_game(text)
        nodes = -1
    else:
        raise ValueError(f"unknown reader {reader!r}")
    cpu = time.process_time() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cpu_seconds": round(cpu, 2), "peak_mb": round(peak, 1), "nodes": nodes}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default="/tmp/efgbench")
    parser.add_argument("--readers", default="cfrlab")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    path = Path(options.folder) / "leduc13.efg"
    if options.one:
        print(json.dumps(read_with(options.one, str(path))))
        return 0
    if not path.exists():
        from cfrlab.cli.main import main as cli

        path.parent.mkdir(parents=True, exist_ok=True)
        assert cli(["export", SPEC, "--efg", str(path)]) == 0
    import platform

    print(f"{SPEC} exported: {path.stat().st_size / 1e6:.1f} MB; {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}")
    for reader in options.readers.split(","):
        done = subprocess.run([sys.executable, __file__, "--folder", options.folder, "--one", reader],
                              capture_output=True, text=True, check=False)
        if done.returncode:
            print(f"{reader}: failed: {done.stderr.strip().splitlines()[-1:]}")
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{reader:10s} {result['cpu_seconds']:7.2f} CPU-s  peak {result['peak_mb']:7.1f} MB  "
              f"nodes {result['nodes']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
