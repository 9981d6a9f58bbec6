"""Ray as people use it: a cluster started with ``ray start --head`` on this machine (loopback, a free port,
its own temp folder, token authentication as Ray sets it up by default), joined without ``--address``, by
``HOST:PORT`` and by ``ray://``; the test stops exactly the processes of its cluster."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

from cfrlab.distributed import WorkerPool, small_batch_warning  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]  # one xdist worker runs every Ray test


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cluster_processes(root: Path) -> list[psutil.Process]:
    """The processes of the cluster whose temp folder is ``root`` (their command lines name it)."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline"]):
        try:
            if proc.pid != os.getpid() and any(str(root) in arg for arg in proc.info["cmdline"] or ()):
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


STOP_GRACE_SECONDS = 3
"""How long the cluster's processes get to end after SIGTERM before SIGKILL (a raylet waited out all of 15 s,
twice a suite)."""


def _stop(root: Path) -> None:
    procs = _cluster_processes(root)
    for proc in procs:
        try:
            proc.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(procs, timeout=STOP_GRACE_SECONDS)
    for proc in alive:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass


class Head:
    def __init__(self, root: Path, port: int, client_port: int) -> None:
        self.root, self.port, self.client_port = root, port, client_port


@pytest.fixture(scope="module")
def head() -> Iterator[Head]:
    """``ray start --head`` on 127.0.0.1, stopped (only its own processes) when the module ends."""
    ray_bin = shutil.which("ray", path=os.path.dirname(sys.executable)) or shutil.which("ray")
    if ray_bin is None:
        pytest.skip("the ray command is not installed")
    root = Path(tempfile.mkdtemp(prefix="rh-", dir="/tmp"))  # short: Ray's socket paths are limited in length
    port, client_port = _free_port(), _free_port()
    # the cluster's workers import this module's functions by reference, as the test process does
    repo = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "RAY_TMPDIR": str(root),
           "PYTHONPATH": os.pathsep.join(p for p in (repo, os.environ.get("PYTHONPATH", "")) if p)}
    env.pop("RAY_ADDRESS", None)
    try:
        subprocess.run([ray_bin, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
                        f"--ray-client-server-port={client_port}", "--num-cpus=2", "--include-dashboard=false",
                        "--disable-usage-stats"], env=env, check=True, timeout=240, capture_output=True)
        yield Head(root, port, client_port)
    finally:
        if ray.is_initialized():
            ray.shutdown()
        _stop(root)
        shutil.rmtree(root, ignore_errors=True)
    assert not _cluster_processes(root), "the test's Ray cluster is still running"


@pytest.fixture()
def clean_env(head: Head, monkeypatch: pytest.MonkeyPatch) -> Head:
    """This test process sees the cluster as a user who ran ``ray start`` would, and no Ray settings."""
    for name in ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(head.root))
    if ray.is_initialized():
        ray.shutdown()
    return head


def _double(x: int) -> int:
    return 2 * x


def _uses_cluster(head: Head, pool: WorkerPool) -> None:
    assert pool.map(_double, [(1,), (2,), (3,)]) == [2, 4, 6]
    assert ray.get_runtime_context().gcs_address.endswith(f":{head.port}")


def test_workers_without_an_address_join_the_running_cluster(clean_env: Head) -> None:
    messages: list[str] = []
    with WorkerPool(2, on_status=messages.append) as pool:
        _uses_cluster(clean_env, pool)
    assert not ray.is_initialized()
    assert any("already running" in m for m in messages)
    assert _cluster_processes(clean_env.root)  # leaving the pool leaves the cluster running


def test_host_and_port_of_a_cluster_with_token_authentication(clean_env: Head) -> None:
    with WorkerPool(2, address=f"127.0.0.1:{clean_env.port}") as pool:
        _uses_cluster(clean_env, pool)


@pytest.mark.parametrize("client", [False, True], ids=["host-port", "ray-client"])
def test_the_cli_given_an_address_prints_no_ray_log_line(clean_env: Head, client: bool) -> None:
    """As a user runs it, in its own process (Ray's loggers write to the terminal there, not to pytest)."""
    address = f"ray://127.0.0.1:{clean_env.client_port}" if client else f"127.0.0.1:{clean_env.port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH") and k != "RAY_ADDRESS"}
    run = subprocess.run([sys.executable, "-m", "cfrlab.cli.main", "solve", "kuhn", "--algo", "external",
                          "--batch", "8", "--workers", "2", "--address", address, "-n", "2", "--no-eval"],
                         env=env, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    assert "Ray is ready" in run.stderr
    for ray_line in ("Token authentication", "WARNING", "INFO"):
        assert ray_line not in run.stdout + run.stderr


def test_ray_client_address(clean_env: Head) -> None:
    pytest.importorskip("grpc")
    with WorkerPool(2, address=f"ray://127.0.0.1:{clean_env.client_port}") as pool:
        assert pool.map(_double, [(1,), (2,), (3,)]) == [2, 4, 6]


def test_mccfr_on_the_cluster_gives_the_in_process_result(clean_env: Head) -> None:
    from cfrlab.driver import make_solver

    alone = make_solver("kuhn", "external", batch=8, seed=3).iterate(3)
    spread = make_solver("kuhn", "external", batch=8, seed=3, workers=2, address=f"127.0.0.1:{clean_env.port}")
    spread.iterate(3)
    np.testing.assert_array_equal(alone.average_policy().probs, spread.average_policy().probs)
    spread.close()


class _FlakyClientRay:
    """Stands for Ray whose client server fails to start ``failures`` times (ray-project/ray#63202)."""

    def __init__(self, failures: int, error: type[Exception] = ConnectionAbortedError) -> None:
        self.failures, self.error, self.calls = failures, error, []

    def init(self, address: str, **_: object) -> None:
        self.calls.append("init")
        if self.calls.count("init") <= self.failures:
            raise self.error("Initialization failure from server")

    def shutdown(self) -> None:
        self.calls.append("shutdown")


def test_a_client_server_that_dies_while_starting_is_tried_again_and_every_failure_is_shut_down() -> None:
    from cfrlab.distributed import CLIENT_ATTEMPTS

    pool, messages = WorkerPool(1), []
    pool.on_status = messages.append
    flaky = _FlakyClientRay(CLIENT_ATTEMPTS - 1)
    pool._connect_client(flaky, "ray://127.0.0.1:1", {})
    assert flaky.calls == ["init", "shutdown"] * (CLIENT_ATTEMPTS - 1) + ["init"]
    assert len(messages) == CLIENT_ATTEMPTS - 1 and "trying again" in messages[0]

    hopeless = _FlakyClientRay(CLIENT_ATTEMPTS)
    with pytest.raises(ConnectionAbortedError):
        pool._connect_client(hopeless, "ray://127.0.0.1:1", {})
    assert hopeless.calls == ["init", "shutdown"] * CLIENT_ATTEMPTS

    unreachable = _FlakyClientRay(1, ConnectionError)  # a wrong address: not tried again, still shut down
    with pytest.raises(ConnectionError):
        pool._connect_client(unreachable, "ray://127.0.0.1:1", {})
    assert unreachable.calls == ["init", "shutdown"]


@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1", "no-port", "host:99999", "ray://host"])
def test_an_address_where_no_cluster_answers_is_one_line_and_exit_2(address: str,
                                                                    capfd: pytest.CaptureFixture[str]) -> None:
    from cfrlab.cli.main import main

    code = main(["solve", "kuhn", "--algo", "external", "--batch", "8", "--workers", "2", "--address", address,
                 "-n", "2", "--no-eval"])
    err = capfd.readouterr().err
    assert code == 2
    assert [line for line in err.splitlines() if line.startswith("error:")] == [err.splitlines()[-1]]
    assert "Traceback" not in err and address in err


def test_more_replicas_than_the_clusters_cpus_are_refused_not_left_waiting(clean_env: Head,
                                                                          capfd: pytest.CaptureFixture[str]) -> None:
    from cfrlab.cli.main import main

    code = main(["solve", "kuhn", "--algo", "external", "--batch", "8", "--workers", "3", "--address",
                 f"127.0.0.1:{clean_env.port}", "-n", "2", "--no-eval"])  # the test cluster has 2 CPUs
    err = capfd.readouterr().err
    assert code == 2 and err.splitlines()[-1] == ("error: 3 workers each hold one CPU of the Ray cluster, which "
                                                  "has 2: use --workers 2 or fewer")


HOLDEM = ["holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],max_raises=[1,1,1])",
          "--abstraction", "ehs2:2,3,2", "--algo", "vector-cfr+", "-n", "2", "--no-eval"]


@pytest.mark.parametrize("address", ["127.0.0.1:1", "no-port"])
def test_vector_cfr_plus_refuses_a_wrong_address_in_one_line(address: str, capfd: pytest.CaptureFixture[str]) -> None:
    from cfrlab.cli.main import main

    code = main(["solve", *HOLDEM, "--workers", "12", "--address", address])
    err = capfd.readouterr().err
    assert code == 2 and err.splitlines()[-1].startswith("error: ") and address in err.splitlines()[-1]
    assert "Traceback" not in err
    assert "3 betting sequences to share, so 3 workers run" in err  # told before the run starts


def test_vector_cfr_plus_refuses_more_workers_than_the_clusters_cpus(clean_env: Head,
                                                                    capfd: pytest.CaptureFixture[str]) -> None:
    from cfrlab.cli.main import main

    code = main(["solve", *HOLDEM, "--workers", "3", "--address", f"127.0.0.1:{clean_env.port}"])  # 3 subtrees
    err = capfd.readouterr().err
    assert code == 2 and err.splitlines()[-1] == ("error: 3 workers each hold one CPU of the Ray cluster, which "
                                                  "has 2: use --workers 2 or fewer")


def test_small_batches_are_warned_about() -> None:
    assert "--workers 1" in (small_batch_warning(2, 64) or "")
    assert small_batch_warning(1, 64) is None
    assert small_batch_warning(4, 10**6) is None


def test_the_cli_says_what_it_waits_for_and_keeps_ray_quiet(clean_env: Head, capfd: pytest.CaptureFixture[str]) -> None:
    from cfrlab.cli.main import main

    code = main(["solve", "kuhn", "--algo", "external", "--batch", "8", "--workers", "2", "-n", "2", "--no-eval"])
    out, err = capfd.readouterr()
    assert code == 0, err
    assert "connecting to the Ray cluster already running on this machine" in err
    assert "--workers 1" in err  # 4 traversals per worker: told that one worker is faster
    for ray_line in ("INFO worker.py", "Token authentication", "gcs_client", "Started a local Ray", "(raylet)"):
        assert ray_line not in out + err
