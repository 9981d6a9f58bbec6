"""The ``netsearch`` Koi-Koi agent: a policy learned from self-play outcomes inside the search, lever by lever.

Method: the determinized search of ``players.search`` (Long et al. 2010) with a network written by ``cfrlab train
koikoi --method dmc|ppo`` (the ``net`` agent's file: a Q head or a policy head, ``neural.act``) in any of three
places, named on their own so that each one's gain can be measured alone (BENCHMARKS.md):

* ``playout``: both seats of every playout play by the network's policy (``neural.playout``: the largest action
  value, or a draw from the softmax) over what the mover sees there, instead of the greedy rule;
* ``prior``: the root keeps the ``PRIOR_KEEP`` actions the action head ranks first
  (``NetEvaluator.prune``) and shares the budget among them by sequential halving (``SearchConfig.halving``;
  Karnin et al. 2013), the policy as a prior that narrows the search (AlphaGo's, Silver et al. 2016);
* ``cut``: the playouts stop ``neural.CUTOFF`` half-turns after the root and take the value head's
  V(s) there, the mover's expected round points under the training policy (``neural.cut``);
* ``blend``: the root ranks its actions by ``1 - BLEND`` times their playouts' mean plus ``BLEND`` times the
  network's own value of each (``SearchConfig.blend``: a Q or afterstate points file), two estimates with
  different errors mixed, as AlphaGo mixes its value network and its rollouts (Silver et al. 2016).

Levers combine (``netsearch:20ms:playout:cut:DIR``). ``netsearch:oos[:SECONDS][:PATH]`` is Online Outcome
Sampling (``oos:SECONDS``) whose passes follow the network's policy beyond the stored tree instead of the uniform
one (``solvers.oos_walk``'s ``Round.follow``).

Specification in cfrlab: ``netsearch[:N|:Tms][:points|match][:playout][:prior][:cut][:blend][:PATH]`` (no lever:
``playout``; PATH default the shipped ``net`` weights; ``net:PATH``'s files and folders), e.g.
``netsearch:20ms:prior:run/``.
Koi-koi/stop decisions under the match objective keep full greedy playouts valued by the match table.
A file trained for the match (``--objective match``) plays and ranks by its match-win probability (``neural.act``)
and cuts by its first output, the round's points; ``netsearch:oos`` refuses it (OOS has no match context).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from cfrlab.agents.names import parse_agent
from cfrlab.agents.spec import AgentSpec
from cfrlab.games.koikoi.neural.act import HEAD_AFTER_MATCH
from cfrlab.games.koikoi.neural.cut import NetEvaluator
from cfrlab.games.koikoi.players.net import load_net
from cfrlab.games.koikoi.players.neural import CUTOFF, DEFAULT_SECONDS, NetOOSAgent
from cfrlab.games.koikoi.players.search import DEFAULT_ROLLOUTS, SearchAgent, SearchConfig
from cfrlab.games.koikoi.players.spec import configured

PRIOR_KEEP = 4
"""Root actions the ``prior`` lever keeps (a hand holds up to 8 cards)."""
BLEND = 0.5
"""The network's share in the ``blend`` lever's ranking of the root actions (AlphaGo's mixing constant, Silver et
al. 2016)."""


def make_guided_agent(game: Any, spec: AgentSpec | str = "netsearch") -> Any:  # a Koi-Koi game and agent
    """The ``netsearch`` or ``netsearch:oos`` agent of ``spec`` for ``game`` (module docstring)."""
    if not game.name.startswith("koikoi"):
        raise ValueError(f"the netsearch agent plays Koi-Koi only, not {game.spec()}")
    spec = parse_agent(spec, game) if isinstance(spec, str) else spec
    if spec.path is not None and not spec.path.strip():
        raise ValueError(f"{spec.usage} needs a path, got {spec.name!r}")
    net = load_net(spec.path, spec.name)
    if spec.kind == "netsearch:oos":
        if net.head == HEAD_AFTER_MATCH:
            raise ValueError(f"{spec.name}: OOS searches a round's points with no match context, so it cannot follow "
                             "a network trained for the match (--objective match); use netsearch[:...]:PATH")
        agent = NetOOSAgent(game, net.weights, spec.seconds or DEFAULT_SECONDS, cut=False, follow=net.head)
        agent.name = spec.name
        return agent
    levers = set(spec.words) or {"playout"}
    config = dataclasses.replace(configured(spec, SearchConfig(rollouts=DEFAULT_ROLLOUTS)),
                                 cutoff=CUTOFF if "cut" in levers else None,
                                 prune=PRIOR_KEEP if "prior" in levers else None, halving="prior" in levers,
                                 blend=BLEND if "blend" in levers else 0.0)
    evaluator = NetEvaluator(net.weights, playout=net.head if "playout" in levers else None, head=net.head,
                             rules=game.rules)
    return SearchAgent(game.rules, config, name=spec.name, evaluator=evaluator)
