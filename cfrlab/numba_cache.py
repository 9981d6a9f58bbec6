"""numba's on-disk cache made safe for processes that compile one kernel at the same time.

``numba.core.caching.IndexDataCacheFile.save`` reads a kernel's index, picks the first data-file name the index
does not list, writes the index, then the data; ``load`` reads the index, then the data it names. Nothing orders
these steps across processes (numba#4807, numba#10128). Two processes that compile different signatures of one
kernel at once (pytest-xdist workers, Ray workers, two runs side by side) can therefore both pick the same name:
an entry is lost, or one signature's entry names the file that received the other's machine code. After a
kernel's source changes, a process can also read a stale data file that another has just listed.

``install`` serialises both steps per cfrlab kernel with an advisory lock (``fcntl.flock``) on a file beside the
index: exclusive while saving, shared while loading. numba calls it through its ``numba_extensions`` entry point
(``pyproject.toml``) in every process, before its first compile. Where ``fcntl`` is missing (Windows), or the lock
file cannot be opened or locked, numba's own behaviour is kept.

``install`` also has each cfrlab kernel's cache stamped with the modules its file imports (``numba_stamp``), so
an edit to a kernel it calls from another module is not missed.

Only cfrlab's kernels (and those of a package a test ``watch``-es) are changed: before a kernel's first cache
load or save, a cfrlab kernel's cache file is replaced by a ``LockedCacheFile`` with the widened stamp; any other
package's kernel goes straight to numba's own code, with its own stamp and no lock file. numba offers no hook
there, so this relies on its private ``Cache`` and ``IndexDataCacheFile``: hence the upper bound on numba in
``pyproject.toml``, tested by ``tests/test_numba_cache.py``.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

from numba.core.caching import IndexDataCacheFile

from cfrlab.numba_stamp import closure_stamp, watch

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".lock"


@contextlib.contextmanager
def index_lock(index_path: str, exclusive: bool) -> Iterator[None]:
    """Hold the lock of the kernel whose index is ``index_path`` (exclusive or shared) for the ``with`` block."""
    try:
        fd = -1 if fcntl is None else os.open(index_path + LOCK_SUFFIX, os.O_RDWR | os.O_CREAT, 0o666)
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


STALE = (ImportError, AttributeError)
"""What unpickling an index written by an earlier cfrlab raises when its signatures name a module or class that has
since moved (a kernel's argument types are pickled by their module's path): a cache miss, not an error."""


class LockedCacheFile(IndexDataCacheFile):
    """numba's index and data files of one cfrlab kernel, each save and load under the kernel's lock."""

    def save(self, key: Any, data: Any) -> None:  # numba's key and data
        with index_lock(self._index_path, exclusive=True):
            try:
                super().save(key, data)
            except STALE:  # the index names a module that has moved: it is written anew
                with contextlib.suppress(OSError):
                    os.remove(self._index_path)
                super().save(key, data)

    def load(self, key: Any) -> Any:
        with index_lock(self._index_path, exclusive=False):
            try:
                return super().load(key)
            except STALE:
                return None


def adopt(cache: Any) -> None:  # a numba ``Cache``
    """Give a watched package's kernel a ``LockedCacheFile`` with the widened stamp, once; leave others alone."""
    if isinstance(cache._cache_file, LockedCacheFile):
        return
    stamp = closure_stamp(cache)
    if stamp is not None:
        cache._cache_file = LockedCacheFile(cache._cache_path, cache._impl.filename_base, stamp)


def _adopting(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def adopting(self: Any, *args: Any) -> Any:
        adopt(self)
        return method(self, *args)

    adopting.cfrlab_adopting = True  # type: ignore[attr-defined]
    return adopting


def install() -> None:
    """Lock the cache of each cfrlab kernel and widen its stamp (``adopt``) before its first load or save; calling
    it again does nothing."""
    from numba.core.caching import Cache

    if getattr(Cache.load_overload, "cfrlab_adopting", False):
        return
    watch(os.path.dirname(os.path.abspath(__file__)), __name__.partition(".")[0])
    # numba offers no hook around its cache files: the two entry points are wrapped, and pass others' kernels on
    Cache.load_overload = _adopting(Cache.load_overload)  # type: ignore[method-assign]
    Cache.save_overload = _adopting(Cache.save_overload)  # type: ignore[method-assign]
