"""Neural solvers (NFSP and variants, Deep CFR, ...) and their shared parts.

This package imports without torch: ``buffers`` is plain numpy, and the modules that
need torch (``nets``, ``nfsp``, ...) import it themselves.
"""
