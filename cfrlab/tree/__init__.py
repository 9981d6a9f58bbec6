"""Games enumerated once into flat arrays (``GameTree``), cached on disk by fingerprint."""

from cfrlab.tree.arrays import GameTree
from cfrlab.tree.cache import load_tree
from cfrlab.tree.compile import COMPILER_VERSION, TreeTooLarge, compile_tree

__all__ = ["GameTree", "TreeTooLarge", "compile_tree", "load_tree", "COMPILER_VERSION"]
