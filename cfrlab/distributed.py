"""Parallel work on Ray, local by default or on an existing cluster (``address``).

``WorkerPool(workers, address).map(fn, items)`` runs ``fn(*item)`` for every
item and returns the results *in item order*. Items are split into at most
``workers`` contiguous groups, one Ray task each (few, large tasks: the
per-task overhead of Ray is milliseconds). Randomness never comes from the pool:
callers seed each item (e.g. MCCFR's per-traversal streams), so results do not
depend on the number of workers. ``put`` shares a large read-only object (a
game tree, a regret table) with all tasks once per call.

``actors(cls, *args)`` starts ``workers`` long-lived replicas ``cls(*args)``
(Ray actors; ``args`` travel once, through the object store) that keep state
between calls, so a caller ships per call only what changed (MCCFR sends the
regret rows updated since the last pass, not the whole table).
``ActorGroup.call(method, items, common)`` calls ``method(*common, *items[j])``
on replica ``j`` and returns the results in replica order; ``common`` is put
in the object store once for all replicas.

With ``workers == 1`` and no address, everything runs in process without
importing Ray. Ray is imported lazily. Without an address, a pool joins the
cluster a user started on this machine with ``ray start`` (found as Ray finds
it: ``RAY_ADDRESS``, then Ray's record of the last ``ray start``), else starts a
local one (about 20 s). ``HOST:PORT`` addresses get the token authentication
Ray's own ``auto`` lookup gives (a token in ``RAY_AUTH_TOKEN``,
``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``); ``ray://HOST:PORT`` goes
through Ray Client (the ``ray[client]`` extra), tried again when the cluster's client server dies while
starting (a known Ray fault). An explicit address where nothing answers is one line at once, not Ray's
minutes of retries. Ray's own log lines stay out of
the terminal; what the pool is waiting for goes to ``on_status`` (default: the
callback given to ``set_status_callback``, which the CLI points at its progress
output). Closing a pool disconnects; only a local Ray it started is shut down.
Used by mini-batch MCCFR (seed 000 sec. 7.1: each worker fills its own
buffers, summed after) and meant for self-play and arena jobs as well.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

_REMOTE: Any = None
_ACTOR_CLASSES: dict[type, Any] = {}
_STATUS: Callable[[str], None] | None = None
MIN_TRAVERSALS_PER_WORKER = 2000
"""Below this many traversals per worker and pass, Ray's per-pass overhead (milliseconds) and its start-up
(about 20 s) outweigh the work, so one worker in process is faster."""
CLIENT_ATTEMPTS = 4
"""Connections tried through Ray Client before giving up (see ``WorkerPool._connect_client``)."""


_STARTUP_SECONDS = [0.0]


def startup_seconds() -> float:
    """Seconds this process has spent starting or joining Ray (``WorkerPool``): set-up, which the driver counts
    apart from solving (about 10-20 s for a local Ray, paid inside the first iteration)."""
    return _STARTUP_SECONDS[0]


_SIGNALLED: list[int] = []


def signal_exit_code() -> int | None:
    """128 + the signal that stopped this process's Ray work (143 for SIGTERM, 129 for SIGHUP), or None: the exit
    status a command returns, since Ray's ``get`` turns the ``SystemExit`` it was waiting in into one of status 1."""
    return 128 + _SIGNALLED[0] if _SIGNALLED else None


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    _SIGNALLED.append(signum)
    raise SystemExit(128 + signum)


def _stop_cleanly_on_sigterm() -> None:
    """SIGTERM (a timeout, a wrapper's Ctrl-C) raises ``SystemExit(143)`` (SIGHUP: 129) in the main thread, so
    that ``finally`` blocks close the pools and Ray's own exit hook shuts a local Ray down with its workers. Ray's
    C++ failure handler would print a stack trace and abort instead, leaving a worker behind with no parent; it is
    switched off before Ray is imported (``RAY_DISABLE_FAILURE_SIGNAL_HANDLER``)."""
    if threading.current_thread() is threading.main_thread():
        for stop in (signal.SIGTERM, signal.SIGHUP):  # SIGHUP: the terminal closed
            signal.signal(stop, _exit_on_sigterm)


def set_status_callback(fn: Callable[[str], None] | None) -> None:
    """Where pools say what they are waiting for (starting or joining Ray) when not given ``on_status``."""
    global _STATUS
    _STATUS = fn


def small_batch_warning(workers: int, batch: int | None, flag: str = "--batch") -> str | None:
    """A sentence advising one worker when ``batch`` traversals per pass (option ``flag``) are too few to share,
    else None."""
    if workers <= 1 or batch is None or batch / workers >= MIN_TRAVERSALS_PER_WORKER:
        return None
    return (f"--workers {workers} with {flag} {batch} gives each worker {batch // workers} traversals per pass: "
            f"Ray's start-up (about 20 s) and per-pass overhead will cost more than they save; use --workers 1, "
            f"or a batch of at least {MIN_TRAVERSALS_PER_WORKER * workers}")


def running_cluster() -> str | None:
    """The address of a Ray cluster started with ``ray start`` on this machine, found as ``ray.init()`` finds
    it (``RAY_ADDRESS``, then Ray's record of the last ``ray start``), or None."""
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:  # pragma: no cover - Ray moved its helper: start a local Ray as before
        return None
    try:
        # Ray annotates the argument str; None asks for the address of the cluster running on this machine.
        return canonicalize_bootstrap_address(None)  # type: ignore[arg-type]
    except (ConnectionError, ValueError):
        return None


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Raise ``ConnectionError`` with one readable line when nothing listens at ``[ray://]HOST:PORT``.

    Ray itself retries an unreachable address for minutes, printing its own warnings meanwhile.
    """
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"a Ray address is HOST:PORT (the GCS port `ray start` printed, 6379 by default) or "
                         f"ray://HOST:PORT (Ray Client, 10001 by default), got {address!r}")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ConnectionError(f"no Ray cluster answers at {address} ({exc.strerror or exc}): start one with "
                              f"'ray start --head' or check the address") from None


def check_local_workers(workers: int, address: str | None = None) -> None:
    """Refuse more workers than this machine's CPUs where they would run on a local Ray (no ``address`` and no
    cluster running here), before any work: ``WorkerPool`` refuses them when it starts Ray."""
    if address is None and running_cluster() is None:
        _refuse_more_than_cpus(workers)


def _refuse_more_than_cpus(workers: int) -> None:
    """A local Ray starts a process per CPU it is given: thousands hang the machine."""
    cpus = os.cpu_count() or 1
    if workers > cpus:
        raise ValueError(f"{workers} workers on this machine, which has {cpus} CPUs: use --workers "
                         f"{cpus} or fewer, or --address of a Ray cluster with more")


def _use_token_if_available() -> None:
    """Token authentication for an explicit ``HOST:PORT``, as Ray's ``auto`` lookup enables it."""
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # pragma: no cover - a Ray without token authentication
        return
    setup_log = logging.getLogger(maybe_enable_token_auth_if_token_available.__module__)
    level = setup_log.level
    setup_log.setLevel(logging.ERROR)  # its notice that the token is used is Ray's log line, not ours
    try:
        maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
    finally:
        setup_log.setLevel(level)


def _run_group(fn: Callable[..., T], shared: Any, group: Sequence[tuple]) -> list[T]:
    """Run one group of items in a worker (``shared`` arrives resolved by Ray)."""
    return [fn(*(shared if isinstance(a, _SharedMarker) else a for a in item)) for item in group]



def split_evenly(items: list[T], parts: int) -> list[list[T]]:
    """``parts`` contiguous runs of ``items``, sizes differing by at most one (some may be empty)."""
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for g in range(parts):
        stop = start + size + (1 if g < extra else 0)
        out.append(items[start:stop])
        start = stop
    return out

class _SharedMarker:
    """Stands for the object given to ``put`` inside items (resolved in the worker)."""

    def __repr__(self) -> str:
        return "<shared>"


_SHARED = _SharedMarker()


class ActorGroup:
    """Long-lived replicas of one class: Ray actors, or a single instance in process."""

    def __init__(self, ray: Any, handles: list[Any]) -> None:
        self._ray = ray
        self._handles = handles

    @property
    def size(self) -> int:
        """Number of replicas (``call`` takes one item per replica)."""
        return len(self._handles)

    def call(self, method: str, items: Sequence[tuple], common: tuple = ()) -> list[Any]:
        """``[replica_j.method(*common, *items[j]) for j]``, the replicas running in parallel, in replica order."""
        if len(items) != len(self._handles):
            raise ValueError(f"call needs one item per replica ({len(self._handles)}), got {len(items)}")
        if self._ray is None:
            return [getattr(h, method)(*common, *item) for h, item in zip(self._handles, items)]
        refs = tuple(self._ray.put(c) for c in common) if len(self._handles) > 1 else common
        return self._ray.get([getattr(h, method).remote(*refs, *item) for h, item in zip(self._handles, items)])

    def close(self) -> None:
        """Stop the replicas (Ray actors are killed; their state is lost)."""
        if self._ray is not None:
            for h in self._handles:
                self._ray.kill(h)
        self._handles = []


class WorkerPool:
    """Map functions over seeded work items on local or remote Ray workers."""

    def __init__(self, workers: int = 1, address: str | None = None,
                 on_status: Callable[[str], None] | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = int(workers)
        self.address = address
        self.on_status = on_status
        self._ray: Any = None
        self._started = False
        self._shared: Any = None
        self._groups: list[ActorGroup] = []
        if workers > 1 or address is not None:
            started = time.perf_counter()
            try:
                self._start()
            finally:
                _STARTUP_SECONDS[0] += time.perf_counter() - started

    def _start(self) -> None:
        global _REMOTE
        os.environ.setdefault("RAY_DISABLE_FAILURE_SIGNAL_HANDLER", "1")  # read when Ray is first imported
        import ray  # without the ray extra: the CLI's install hint (cfrlab.extras)
        if not ray.is_initialized():
            quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
            address = self.address or running_cluster()
            if address is not None and address not in ("auto", "local"):
                try:
                    check_reachable(address)
                except ConnectionError:
                    if self.address is not None:
                        raise
                    address = None  # Ray's record of a cluster that has stopped since
            if address is None:
                _refuse_more_than_cpus(self.workers)
                self._say(f"starting Ray on this machine for {self.workers} workers (about 20 s) ...")
                ray.init(address="local", num_cpus=self.workers, include_dashboard=False,
                         _node_ip_address="127.0.0.1", **quiet)  # a local Ray stays on loopback
            elif address.startswith("ray://"):
                self._say(f"connecting to the Ray cluster at {address} (Ray Client) ...")
                _use_token_if_available()
                self._connect_client(ray, address, quiet)
            else:
                how = "the Ray cluster already running on this machine" if self.address is None else "the Ray cluster"
                self._say(f"connecting to {how} at {address} ...")
                _use_token_if_available()
                ray.init(address=address, **quiet)
            _stop_cleanly_on_sigterm()  # after ray.init, which sets a handler of its own
            self._say("Ray is ready")
            self._started = True
        if _REMOTE is None:
            _REMOTE = ray.remote(num_cpus=1)(_run_group)
        self._ray = ray

    def _connect_client(self, ray: Any, address: str, quiet: dict[str, Any]) -> None:
        """``ray.init(ray://...)``, tried again when the cluster's Ray Client server dies while it starts.

        Ray's client proxy forks one server per connection, and that fork intermittently dies in gRPC
        or turns zombie before Ray reads its command line (ray-project/ray#63202, more often on a loaded
        head node); a new connection gets a new server.
        Every failed attempt is shut down, or Ray stays in client mode and a later ``init`` by ``HOST:PORT``
        in this process fails.
        """
        for attempt in range(1, CLIENT_ATTEMPTS + 1):
            try:
                ray.init(address=address, **quiet)
                return
            except Exception as exc:
                ray.shutdown()
                # only a failed server start is tried again (a wrong address is a ConnectionError)
                if not isinstance(exc, ConnectionAbortedError) or attempt == CLIENT_ATTEMPTS:
                    raise
                self._say(f"the cluster's Ray Client server failed to start; trying again ({attempt + 1} of "
                          f"{CLIENT_ATTEMPTS}) ...")

    def _say(self, message: str) -> None:
        notify = self.on_status or _STATUS
        if notify is not None:
            notify(message)

    @property
    def parallel(self) -> bool:
        """Whether work goes to Ray (False: in process)."""
        return self._ray is not None

    def put(self, obj: Any) -> Any:
        """Share ``obj`` with the next ``map``; use the returned marker inside items in its place."""
        self._shared = self._ray.put(obj) if self._ray is not None else obj
        return _SHARED

    def map(self, fn: Callable[..., T], items: Sequence[tuple]) -> list[T]:
        """``[fn(*item) for item in items]``, computed by up to ``workers`` parallel tasks, in item order."""
        items = list(items)
        if self._ray is None:
            return _run_group(fn, self._shared, items)
        n = min(self.workers, len(items))
        if n == 0:
            return []
        groups = split_evenly(list(items), n)
        refs = [_REMOTE.remote(fn, self._shared, group) for group in groups]
        return [r for part in self._ray.get(refs) for r in part]

    def actors(self, cls: type, *args: Any) -> ActorGroup:
        """Start ``workers`` replicas ``cls(*args)`` (one in process when the pool is not parallel).

        ``cls`` must be importable by the workers (module level). Each replica
        reserves one CPU (more replicas than the cluster's CPUs are refused); ``close`` stops them.
        """
        if self._ray is None:
            group = ActorGroup(None, [cls(*args)])
        else:
            cpus = int(self._ray.cluster_resources().get("CPU", 0))
            if self.workers > cpus:  # Ray would keep the extra replicas pending, and the caller wait, forever
                raise ValueError(f"{self.workers} workers each hold one CPU of the Ray cluster, which has {cpus}: "
                                 f"use --workers {cpus} or fewer")
            remote = _ACTOR_CLASSES.get(cls)
            if remote is None:
                remote = _ACTOR_CLASSES[cls] = self._ray.remote(num_cpus=1)(cls)
            self._say(f"starting {self.workers} workers ({cls.__name__}) ...")
            refs = [self._ray.put(a) for a in args]  # once for all replicas
            group = ActorGroup(self._ray, [remote.remote(*refs) for _ in range(self.workers)])
        self._groups.append(group)
        return group

    def close(self) -> None:
        """Stop the actors of this pool; shut Ray down if this pool started it."""
        for group in self._groups:
            group.close()
        self._groups = []
        if self._started and self._ray is not None:
            self._ray.shutdown()
        self._ray = None
        self._started = False

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
