"""Koi-Koi training: self-play data, datasets, the torch networks and their fitting, and the training loops."""
