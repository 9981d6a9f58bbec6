"""The fictitious-play family: XFP, batch FSP (table lookup), FSP with softmax regression.

Fictitious play averages best responses: pi^{t+1} = (1 - a_t) pi^t + a_t beta^{t+1}, with
beta^{t+1} a best response to pi^t. The *average* profile pi converges to a Nash equilibrium in
two-player zero-sum games (and potential games); in N-player games we measure its NashConv.

* ``xfp``: full-width extensive-form fictitious play on a compiled tree (seed 004 eq. 13-15).
* ``batch``: batch fictitious self-play with pluggable learners (seed 001 Alg. 5-6) and its
  table-lookup instance (Alg. 7).
* ``softmax``: FSP with softmax regression (seed 004 sec. 4.2) in the anticipatory loop that
  NFSP also runs (``cfrlab.solvers.neural.anticipatory``).
"""

from cfrlab.solvers.fictitious.batch import FSP, FSPConfig, TableFSP
from cfrlab.solvers.fictitious.softmax import SoftmaxFSP
from cfrlab.solvers.fictitious.xfp import XFP, XFPConfig

__all__ = ["XFP", "XFPConfig", "FSP", "FSPConfig", "TableFSP", "SoftmaxFSP"]
