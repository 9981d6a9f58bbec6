"""numba's on-disk cache made safe (``cfrlab.numba_cache``, ``cfrlab.numba_stamp``): the lock is installed in every
process and two processes' saves of one kernel no longer interleave; a kernel's stamp covers the modules it
imports, so an edited callee is compiled afresh; another package's kernels keep numba's own files and stamps."""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

import cfrlab
from cfrlab.numba_cache import LockedCacheFile, adopt, install
from cfrlab.numba_stamp import STAMP_MARK, import_closure, watch

STAMP = (STAMP_MARK, "source stamp", "closure digest")
"""A cfrlab kernel's stamp: only those caches are locked."""


def test_numba_installs_the_hooks_in_a_new_process_through_its_entry_point() -> None:
    code = ("import numba\n"
            "numba.njit(lambda x: x + 1)(1)\n"
            "from numba.core.caching import Cache as C\n"
            "print(*(getattr(m, 'cfrlab_adopting', False) for m in (C.load_overload, C.save_overload)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]


def test_the_numba_this_relies_on_is_within_the_declared_bound() -> None:
    """numba_cache relies on numba's private cache classes: pyproject bounds numba to the minors tested here."""
    import numba

    text = (Path(cfrlab.__file__).parent.parent / "pyproject.toml").read_text()
    bound = re.search(r'"numba>=([\d.]+),<([\d.]+)"', text)
    assert bound, "pyproject.toml bounds numba from below and above"
    low, high = bound.groups()

    def version(v: str) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", v)[:2])

    assert version(low) <= version(numba.__version__) < version(high)


def test_another_packages_cached_kernel_is_left_as_numba_makes_it(tmp_path) -> None:
    """No lock file beside its index and numba's own stamp in it, though cfrlab's hooks are installed (the entry
    point runs in every process that uses numba)."""
    (tmp_path / "other.py").write_text("import numba\n@numba.njit(cache=True)\ndef f(x):\n    return x + 1\n")
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
            "import other\nprint(other.f(1))\n"
            "from numba.core.caching import InTreeCacheLocator as L\n"
            "print(L.from_function(other.f.py_func, other.__file__).get_source_stamp().hex())\n"
            "from numba.core.caching import Cache\nprint(Cache.load_overload.cfrlab_adopting)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "2" and out[2] == "True"  # compiled and cached with cfrlab's hooks in place
    cache = tmp_path / "__pycache__"
    (index,) = cache.glob("other.f-*.nbi")
    assert not list(cache.glob("*.lock"))
    with index.open("rb") as f:
        pickle.load(f)  # numba's version
        stamp, overloads = pickle.loads(f.read())
    assert stamp.hex() == out[1] and len(overloads) == 1


def test_a_cfrlab_kernel_gets_the_lock_and_the_widened_stamp() -> None:
    from cfrlab.solvers.mccfr import tree_walk as kernels

    install()
    kernel = next(v for v in vars(kernels).values() if getattr(v, "_cache", None) is not None)
    cache = type(kernel._cache)(kernel.py_func)  # a new cache object: the kernel's own may be adopted already
    numbas = cache._cache_file
    adopt(cache)
    ours = cache._cache_file
    assert isinstance(ours, LockedCacheFile) and not isinstance(numbas, LockedCacheFile)
    assert ours._index_path == numbas._index_path  # numba's own files
    assert ours._source_stamp[:2] == (STAMP_MARK, numbas._source_stamp)
    adopt(cache)
    assert cache._cache_file is ours  # once


def test_two_signatures_saved_at_once_keep_their_own_entries(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race of numba#4807: the first save has read the index and chosen its data file's name when the second
    starts. Unlocked, the second reads the same index, takes the same name, and one signature is lost. Two threads
    stand for the two processes: each save opens the lock file anew, and flock locks conflict between descriptors."""
    install()
    paused, resume = threading.Event(), threading.Event()
    save_index = LockedCacheFile._save_index

    def first_pauses(self, overloads):
        if not paused.is_set():
            paused.set()
            resume.wait(30)
        save_index(self, overloads)

    monkeypatch.setattr(LockedCacheFile, "_save_index", first_pauses)
    first = threading.Thread(target=LockedCacheFile(str(tmp_path), "kernel", STAMP).save,
                             args=("int64", "code for int64"))
    second = threading.Thread(target=LockedCacheFile(str(tmp_path), "kernel", STAMP).save,
                              args=("float64", "code for float64"))
    first.start()
    assert paused.wait(30)
    second.start()
    second.join(0.5)  # unlocked, the second save finishes here, inside the first's
    resume.set()
    first.join(30)
    second.join(30)
    cache = LockedCacheFile(str(tmp_path), "kernel", STAMP)
    assert (cache.load("int64"), cache.load("float64")) == ("code for int64", "code for float64")


def test_an_index_naming_a_moved_module_is_a_miss_and_written_anew(tmp_path, monkeypatch) -> None:
    """An index saved before a module moved holds argument types pickled by their old path: loading it must not raise
    (a fresh compile follows), and the next save replaces it."""
    install()
    gone = types.ModuleType("cfrlab_moved_module")
    exec("class Position:\n    pass\n", gone.__dict__)
    gone.Position.__module__ = "cfrlab_moved_module"
    monkeypatch.setitem(sys.modules, "cfrlab_moved_module", gone)
    LockedCacheFile(str(tmp_path), "kernel", STAMP).save((gone.Position(),), "old code")
    monkeypatch.delitem(sys.modules, "cfrlab_moved_module")
    cache = LockedCacheFile(str(tmp_path), "kernel", STAMP)
    assert cache.load("int64") is None
    cache.save("int64", "new code")
    assert cache.load("int64") == "new code"


def test_a_cache_folder_that_does_not_exist_loads_nothing(tmp_path) -> None:
    install()
    assert LockedCacheFile(str(tmp_path / "absent"), "kernel", STAMP).load("int64") is None


def test_a_file_system_without_locks_saves_and_loads_as_numba_does(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    install()

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(37, "No locks available")

    monkeypatch.setattr("cfrlab.numba_cache.fcntl.flock", no_locks)
    cache = LockedCacheFile(str(tmp_path), "kernel", STAMP)
    cache.save("int64", "code for int64")
    assert cache.load("int64") == "code for int64"


def _package(root, files: dict[str, str]):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_import_closure_follows_top_level_imports_only(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = _package(tmp_path / "pkgc", {
        "__init__.py": "",
        "a.py": ("from typing import TYPE_CHECKING\nimport numpy\nfrom pkgc.b import g\n"
                 "if TYPE_CHECKING:\n    from pkgc import e\n"
                 "def later():\n    from pkgc import d\n"),
        "b.py": "try:\n    from pkgc import c as C\nexcept ImportError:\n    C = None\n",
        "sub/__init__.py": "",
        "sub/c.py": "",
        "c.py": "from .sub import c\nfrom . import f\n",
        "d.py": "", "e.py": "", "f.py": "",
    })
    monkeypatch.setattr("cfrlab.numba_stamp._PACKAGES", {})
    watch(pkg, "pkgc")
    names = [os.path.relpath(f, pkg) for f in import_closure(os.path.realpath(pkg / "a.py"))]
    assert names == ["__init__.py", "a.py", "b.py", "c.py", "f.py", os.path.join("sub", "__init__.py"),
                     os.path.join("sub", "c.py")]
    assert import_closure(os.path.realpath(tmp_path / "elsewhere.py")) == ()


def test_cfrlab_kernels_are_stamped_with_the_modules_they_call() -> None:
    install()
    solvers = Path(cfrlab.__file__).parent / "solvers"
    closure = {os.path.relpath(f, solvers) for f in import_closure(os.path.realpath(solvers / "oos" / "tree_walk.py"))}
    assert {"oos/tree_walk.py", "mccfr/tree_walk.py", "mccfr/pass_order.py", "mccfr/arithmetic.py",
            "mccfr/mixture.py", "mccfr/rules.py"} <= closure


def test_an_edited_callee_in_another_module_is_compiled_afresh(tmp_path) -> None:
    """numba#6845: a cached caller keeps the callee's old machine code; stamped with its imports, it does not."""
    pkg = _package(tmp_path / "pkgs", {
        "__init__.py": "",
        "callee.py": "import numba\n@numba.njit(cache=True)\ndef g():\n    return 1\n",
        "caller.py": ("import numba\nfrom pkgs.callee import g\n"
                      "@numba.njit(cache=True)\ndef f():\n    return g() + 10\n"),
    })
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
            f"from cfrlab.numba_stamp import watch; watch({str(pkg)!r}, 'pkgs')\n"
            "from pkgs.caller import f; print(f())\n")

    def run() -> str:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()

    assert run() == "11"
    assert list((pkg / "__pycache__").glob("caller.f-*.nbc"))  # cached: the next run loads it
    assert list((pkg / "__pycache__").glob("caller.f-*.nbi.lock"))  # a watched package's kernel is locked
    (pkg / "callee.py").write_text("import numba\n@numba.njit(cache=True)\ndef g():\n    return 2\n")
    assert run() == "12"
    assert run() == "12"
