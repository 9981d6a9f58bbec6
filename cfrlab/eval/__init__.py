"""Exact evaluation on compiled trees: best responses, exploitability, NashConv, expected values."""

from cfrlab.eval.metrics import (
                                 action_frequency,
                                 deviation_gains,
                                 expected_values,
                                 exploitability,
                                 exploitability_report,
                                 loss_against,
                                 nash_conv,
                                 tree_of,
)
from cfrlab.tree.best_response import best_response, best_response_values

__all__ = [
    "action_frequency",
    "best_response",
    "best_response_values",
    "deviation_gains",
    "expected_values",
    "exploitability",
    "exploitability_report",
    "nash_conv",
    "loss_against",
    "tree_of",
]
