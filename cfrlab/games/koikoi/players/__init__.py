"""Koi-Koi agents: the CFR blueprint and the search refined by it (they sit at the eval layer)."""
