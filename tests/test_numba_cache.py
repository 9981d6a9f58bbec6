"""The lock around numba's on-disk cache (``cfrlab.numba_cache``): installed in every process, and two processes'
saves of one kernel no longer interleave."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from numba.core.caching import IndexDataCacheFile

from cfrlab.numba_cache import install

STAMP = ("source stamp", 1)


def test_numba_installs_the_lock_in_a_new_process_through_its_entry_point() -> None:
    code = ("import numba\n"
            "numba.njit(lambda x: x + 1)(1)\n"
            "from numba.core.caching import IndexDataCacheFile as F\n"
            "print(getattr(F.save, 'cfrlab_locked', False), getattr(F.load, 'cfrlab_locked', False))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]


def test_two_signatures_saved_at_once_keep_their_own_entries(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race of numba#4807: the first save has read the index and chosen its data file's name when the second
    starts. Unlocked, the second reads the same index, takes the same name, and one signature is lost. Two threads
    stand for the two processes: each save opens the lock file anew, and flock locks conflict between descriptors."""
    install()
    paused, resume = threading.Event(), threading.Event()
    save_index = IndexDataCacheFile._save_index

    def first_pauses(self, overloads):  # type: ignore[no-untyped-def]
        if not paused.is_set():
            paused.set()
            resume.wait(30)
        save_index(self, overloads)

    monkeypatch.setattr(IndexDataCacheFile, "_save_index", first_pauses)
    first = threading.Thread(target=IndexDataCacheFile(str(tmp_path), "kernel", STAMP).save,
                             args=("int64", "code for int64"))
    second = threading.Thread(target=IndexDataCacheFile(str(tmp_path), "kernel", STAMP).save,
                              args=("float64", "code for float64"))
    first.start()
    assert paused.wait(30)
    second.start()
    second.join(0.5)  # unlocked, the second save finishes here, inside the first's
    resume.set()
    first.join(30)
    second.join(30)
    cache = IndexDataCacheFile(str(tmp_path), "kernel", STAMP)
    assert (cache.load("int64"), cache.load("float64")) == ("code for int64", "code for float64")


def test_a_cache_folder_that_does_not_exist_loads_nothing(tmp_path) -> None:
    install()
    assert IndexDataCacheFile(str(tmp_path / "absent"), "kernel", STAMP).load("int64") is None


def test_a_file_system_without_locks_saves_and_loads_as_numba_does(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    install()

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(37, "No locks available")

    monkeypatch.setattr("cfrlab.numba_cache.fcntl.flock", no_locks)
    cache = IndexDataCacheFile(str(tmp_path), "kernel", STAMP)
    cache.save("int64", "code for int64")
    assert cache.load("int64") == "code for int64"
