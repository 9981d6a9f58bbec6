"""Hold'em evaluation: Local Best Response and play of abstract strategies in the real game (eval layer)."""
