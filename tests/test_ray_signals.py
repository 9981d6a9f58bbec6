"""A SIGTERM (a timeout, a wrapper's Ctrl-C) stops a Ray run cleanly: no worker left behind, no stack lines."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]  # one xdist worker runs every Ray test

pytest.importorskip("ray")


def _descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid`` (from /proc), with its command line."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = {}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found[child] = _command(child)
            todo.append(child)
    return found


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_sigterm_after_ray_is_ready_leaves_no_worker_and_prints_no_stack(tmp_path: Path) -> None:
    env = {**os.environ, "RAY_ADDRESS": "local"}  # a Ray of its own, never a cluster another run started
    command = [sys.executable, "-c", "import sys; from cfrlab.cli.main import main; sys.exit(main())",
               "solve", "leduc", "--algo", "external", "--batch", "4000", "--workers", "2", "-n", "1000000",
               "--no-eval", "--checkpoint-every", "0", "--out", str(tmp_path / "s.npz")]
    err = tmp_path / "stderr"
    with err.open("w") as stderr:
        run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, env=env)
    workers: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and run.poll() is None:
            workers.update(_descendants(run.pid))
            if "Ray is ready" in err.read_text() and any("ray::" in c for c in workers.values()):
                break
            time.sleep(0.5)
        assert run.poll() is None, err.read_text()
        assert any("ray::" in c for c in workers.values()), (err.read_text(), workers)
        time.sleep(2)  # the replicas at work
        workers.update(_descendants(run.pid))
        run.send_signal(signal.SIGTERM)
        assert run.wait(timeout=120) == 128 + signal.SIGTERM
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.5)
        assert [workers[pid] for pid in workers if _alive(pid)] == []
        text = err.read_text()
        assert "SIGTERM received" not in text and "logging.cc" not in text and "Traceback" not in text, text
    finally:
        if run.poll() is None:
            run.kill()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
