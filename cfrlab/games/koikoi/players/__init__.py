"""Koi-Koi agents (eval layer): greedy, the determinized search, the CFR blueprint and the search refined by it,
the search with the learned evaluator, OOS round by round, and the agent names that build them (``by_name``)."""
