"""Limit hold'em's game layer: cards, the hand evaluator, suit symmetry, the betting structure and the game itself."""
