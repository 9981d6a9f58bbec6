"""Shared fixtures: small built-in games, built once per test session."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

import pytest
from hypothesis import settings

# CI runs the same examples every time; locally too, so a failure reproduces.
settings.register_profile("cfrlab", derandomize=True, deadline=None)
settings.load_profile("cfrlab")

# Compiled trees are cached per test session, never in the user's cache; the process that made the folder
# (pytest's main process, whose xdist workers inherit the variable) removes it at exit.
if "CFRLAB_CACHE_DIR" not in os.environ:
    os.environ["CFRLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="cfrlab-test-cache-")
    atexit.register(shutil.rmtree, os.environ["CFRLAB_CACHE_DIR"], ignore_errors=True)

from cfrlab.game import Game  # noqa: E402 - after the cache folder is set
from cfrlab.registry import load_game  # noqa: E402


@pytest.fixture(scope="session")
def kuhn() -> Game:
    """Two-player Kuhn poker."""
    return load_game("kuhn")


@pytest.fixture(scope="session")
def kuhn3() -> Game:
    """Three-player Kuhn poker."""
    return load_game("kuhn(players=3)")


@pytest.fixture(scope="session")
def leduc() -> Game:
    """Leduc hold'em (OpenSpiel's leduc_poker)."""
    return load_game("leduc")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """One torch thread per test process: the tests' networks are tiny, and two threads fighting other processes
    over this machine's cores run a training loop 4 times slower (``torch_threads``'s reason, for every test)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's hook, which turns the marks into groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup``, a test module without an ``xdist_group`` mark is a group of its own: its tests run
    on one xdist worker, so that the numba kernels they share compile once, not on both workers at the same time
    (30 s less of a fresh clone's suite)."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__ if item.module else item.nodeid))
