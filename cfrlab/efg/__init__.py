"""Gambit's extensive-form format: ``EfgGame`` reads a ``.efg`` file as a game, ``write_efg`` writes a game."""

from cfrlab.efg.game import EfgGame
from cfrlab.efg.parse import EfgFormatError
from cfrlab.efg.write import write_efg

__all__ = ["EfgFormatError", "EfgGame", "write_efg"]
