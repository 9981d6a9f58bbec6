"""Hold'em agents that play an abstract strategy in the real game (eval layer)."""
