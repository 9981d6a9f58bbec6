"""Hold'em agents for the real game: fixed rules (call, raise, strength) and an abstract strategy played on real
cards (eval layer)."""
