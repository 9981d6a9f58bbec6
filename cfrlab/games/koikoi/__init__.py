"""Koi-Koi (こいこい): cards, rule sets, scoring, the pure engine, the cfrlab Game adapter and a batched simulator.

Importing this package is cheap; ``KoiKoiGame`` loads from ``cfrlab.games.koikoi.game``.
"""
