"""numba's on-disk cache made safe for processes that compile one kernel at the same time.

``numba.core.caching.IndexDataCacheFile.save`` reads a kernel's index, picks the first data-file name the index
does not list, writes the index, then the data; ``load`` reads the index, then the data it names. Nothing orders
these steps across processes (numba#4807, numba#10128). Two processes that compile different signatures of one
kernel at once (pytest-xdist workers, Ray workers, two runs side by side) can therefore both pick the same name:
an entry is lost, or one signature's entry names the file that received the other's machine code. After a
kernel's source changes, a process can also read a stale data file that another has just listed.

``install`` serialises both steps per kernel with an advisory lock (``fcntl.flock``) on a file beside the index:
exclusive while saving, shared while loading. numba calls it through its ``numba_extensions`` entry point
(``pyproject.toml``) in every process, before its first kernel is made. Where ``fcntl`` is missing (Windows), or
the lock file cannot be opened or locked, numba's own behaviour is kept.

``install`` also has each cfrlab kernel's cache stamped with the modules its file imports (``numba_stamp``), so
an edit to a kernel it calls from another module is not missed.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

from cfrlab.numba_stamp import restamp, watch

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".lock"


@contextlib.contextmanager
def index_lock(index_path: str, exclusive: bool) -> Iterator[None]:
    """Hold the lock of the kernel whose index is ``index_path`` (exclusive or shared) for the ``with`` block."""
    try:
        fd = os.open(index_path + LOCK_SUFFIX, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:  # a read-only or absent cache folder: numba only loads from it, or finds nothing
        fd = -1
    if fd < 0:
        yield
        return
    try:
        with contextlib.suppress(OSError):  # a file system without locks: numba's own behaviour
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _locked(method: Callable[..., Any], exclusive: bool) -> Callable[..., Any]:
    @functools.wraps(method)
    def locked(self: Any, *args: Any) -> Any:
        with index_lock(self._index_path, exclusive):
            return method(self, *args)

    locked.cfrlab_locked = True  # type: ignore[attr-defined]
    return locked


def _restamped(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def restamped(self: Any, *args: Any) -> Any:
        restamp(self)
        return method(self, *args)

    restamped.cfrlab_restamped = True  # type: ignore[attr-defined]
    return restamped


def install() -> None:
    """Lock numba's cache index around each save (exclusive) and load (shared), and widen the source stamps of
    cfrlab's kernels before their first load or save (``numba_stamp``); calling it again does nothing."""
    from numba.core.caching import Cache, IndexDataCacheFile

    if not getattr(Cache.load_overload, "cfrlab_restamped", False):
        watch(os.path.dirname(os.path.abspath(__file__)), __name__.partition(".")[0])
        # numba offers no hook around its cache files: the methods are wrapped in place
        Cache.load_overload = _restamped(Cache.load_overload)  # type: ignore[method-assign]
        Cache.save_overload = _restamped(Cache.save_overload)  # type: ignore[method-assign]
    if fcntl is None or getattr(IndexDataCacheFile.save, "cfrlab_locked", False):
        return
    IndexDataCacheFile.save = _locked(IndexDataCacheFile.save, exclusive=True)  # type: ignore[method-assign]
    IndexDataCacheFile.load = _locked(IndexDataCacheFile.load, exclusive=False)  # type: ignore[method-assign]
