"""Seconds spent compiling numba kernels, kept apart from the seconds spent solving.

The first call of a ``@njit`` kernel compiles it (or loads it from numba's on-disk cache), which can take
seconds before the first iteration. ``CompileTimer`` listens to numba's compiler events (``numba.core.event``,
numba >= 0.52) while it is active: ``seconds`` is the time spent holding numba's compiler lock (compiling or
loading cached machine code), ``compiled`` whether anything was compiled from scratch (a cold cache), and
``on_compile`` is called once, when the first kernel starts compiling, so progress output can say so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def kernel(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit(cache=True, **options)`` without the C-callable wrapper numba adds to every kernel for its use
    as a first-class function value, which cfrlab never makes: each kernel compiles faster (0.5 of the 8.6
    CPU-seconds of a first external-sampling solve, ``benchmarks/bench_first_compile.py``)."""
    from numba import njit

    jit = njit(**{"cache": True, "no_cfunc_wrapper": True, **options})
    return jit if fn is None else jit(fn)


class CompileTimer:
    """Context manager measuring numba compile time; nesting-safe, cumulative over several ``with`` blocks."""

    def __init__(self, on_compile: Callable[[], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.seconds = 0.0
        self.compiled = False
        self.on_compile = on_compile
        self._depth = 0
        self._start = 0.0
        self._listeners: list[tuple[str, Any]] = []

    def __enter__(self) -> CompileTimer:
        try:
            from numba.core import event
        except ImportError:  # numba missing: nothing compiles
            return self
        timer = self

        class _Lock(event.Listener):
            def on_start(self, _event: Any) -> None:
                if timer._depth == 0:
                    timer._start = timer.clock()
                timer._depth += 1

            def on_end(self, _event: Any) -> None:
                timer._depth -= 1
                if timer._depth == 0:
                    timer.seconds += timer.clock() - timer._start

        class _Compile(event.Listener):
            def on_start(self, _event: Any) -> None:
                if not timer.compiled:
                    timer.compiled = True
                    if timer.on_compile is not None:
                        timer.on_compile()

            def on_end(self, _event: Any) -> None:
                pass

        self._listeners = [("numba:compiler_lock", _Lock()), ("numba:compile", _Compile())]
        for kind, listener in self._listeners:
            event.register(kind, listener)
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self._listeners:
            return
        from numba.core import event

        for kind, listener in self._listeners:
            event.unregister(kind, listener)
        self._listeners = []

    def describe(self) -> str:
        """One line for people: ``kernels compiled in 1.2 s (cached next time)``, or ``''``."""
        return describe_compile(self.seconds, self.compiled)


def describe_compile(seconds: float, compiled: bool) -> str:
    """``kernels compiled in 1.2 s (cached next time)``, ``kernels loaded from cache in 0.1 s`` or ``''``."""
    if compiled:
        return f"kernels compiled in {seconds:.1f} s (cached next time)"
    if seconds >= 0.05:
        return f"kernels loaded from cache in {seconds:.1f} s"
    return ""
