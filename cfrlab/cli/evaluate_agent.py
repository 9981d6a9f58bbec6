"""``cfrlab eval GAME --agent SPEC``: the exact exploitability of any agent, its moves tabulated on every infoset."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from cfrlab.cli.common import console, emit_json, fmt, stdout
from cfrlab.cli.progress import tracker

HOW = {"probabilities": "by its action probabilities at each infoset",
       "sampled": "by the action it chose on one call per infoset, seeded (a pure strategy)"}
"""What the output says of how the agent's moves were read (``cfrlab.agents.tabulate``)."""


def evaluate_agent(spec: str, agent_name: str, seed: int, json_out: bool, workers: int = 1,
                   address: str | None = None, agent_log: Path | None = None) -> None:
    """Tabulate agent ``agent_name`` on every infoset of game ``spec`` (over ``workers`` Ray workers; each row kept
    in ``agent_log`` as it is computed, and those already there taken) and print its exact exploitability,
    NashConv and each player's value and best-response value; refused (``ValueError``) for a game whose tree
    cannot be enumerated and for an agent the game does not have."""
    from cfrlab import distributed
    from cfrlab.agents import make_agent
    from cfrlab.agents.tabulate import table_rows, tabulation
    from cfrlab.agents.tabulate_log import RowLog, log_meta
    from cfrlab.distributed import check_local_workers
    from cfrlab.driver import DEFAULT_MAX_EVAL_NODES
    from cfrlab.eval import best_response_values, expected_values
    from cfrlab.policy_tabulate import legal_mask, policy_from_rows
    from cfrlab.registry import load_game
    from cfrlab.tree import load_tree

    game = load_game(spec)
    agent = make_agent(agent_name, game)  # an unknown agent, or one of another game, is told before the tree
    check_local_workers(workers, address)
    tree = load_tree(game, max_nodes=DEFAULT_MAX_EVAL_NODES, or_none=True)
    if tree is None:
        raise ValueError(f"{game.spec()} cannot be enumerated (a tree of more than {DEFAULT_MAX_EVAL_NODES:,} nodes, "
                         "or chance outcomes that are not listed): an agent's exact exploitability needs a small "
                         "variant, e.g. a mini game")
    how = tabulation(agent)
    log = None if agent_log is None else RowLog(agent_log, log_meta(game.spec(), agent_name, seed, tree.num_infosets,
                                                                    tree.max_actions), legal_mask(tree),
                                                _recompute(game, tree, agent, seed))
    done = {} if log is None else dict(log.done)
    if log is not None and done and not json_out:
        console.print(f"{len(done):,} of {tree.num_infosets:,} infosets already in {str(agent_log)!r}; "
                      "tabulating the others")
    start = time.perf_counter()
    with tracker(f"{agent.name} on {game.spec()}", tree.num_infosets, "infosets", quiet=json_out) as bar:
        bar.update(len(done))
        count = [len(done)]

        def heard(indices: list[int], rows: Any) -> None:
            if log is not None:
                log.add(indices, rows)
            count[0] += len(indices)
            bar.update(count[0])

        distributed.set_status_callback(None if json_out else bar.say)  # starting Ray, its workers
        try:
            rows = table_rows(game, tree, agent, agent_name, seed, workers, address, done, heard)
        finally:
            distributed.set_status_callback(None)
    policy = policy_from_rows(tree, rows)
    seconds = time.perf_counter() - start
    sigma = policy.to_sequences(tree)
    values, br = expected_values(tree, sigma), best_response_values(tree, sigma)
    gains = br - values
    result: dict[str, Any] = {
        "game": game.spec(), "agent": agent_name, "infosets": tree.num_infosets, "tabulated": how, "seed": seed,
        "exploitability": float(gains.clip(min=0).sum() / tree.num_players),
        "nash_conv": float(gains.clip(min=0).sum()),
        "values": [float(v) for v in values], "best_response_values": [float(v) for v in br],
        "gains": [float(g) for g in gains], "tabulate_seconds": seconds,
    }
    if json_out:
        emit_json(result)
        return
    _print(result, tree.num_players)


def _recompute(game: Any, tree: Any, agent: Any, seed: int) -> Any:
    """Row ``i`` of the agent's table made again (``agent_row``): what a resumed log's rows are checked against."""
    from cfrlab.agents.tabulate import agent_row
    from cfrlab.tree.states import infoset_states

    states: list[Any] = []

    def row(i: int) -> Any:
        if not states:
            states.extend(infoset_states(game, tree))
        return agent_row(agent, states[i], i, seed, tree.max_actions)

    return row


def _print(result: dict[str, Any], players: int) -> None:
    from rich.table import Table

    table = Table(title=f"{result['agent']} on {result['game']}, moves tabulated on its {result['infosets']:,} "
                        "infosets")
    for column in ("player", "value", "best-response value", "gain"):
        table.add_column(column, justify="right")
    for p in range(players):
        table.add_row(str(p), fmt(result["values"][p]), fmt(result["best_response_values"][p]),
                      fmt(result["gains"][p]))
    stdout.print(table)
    stdout.print(f"exploitability {fmt(result['exploitability'])}   NashConv {fmt(result['nash_conv'])}")
    stdout.print(f"tabulated {HOW[result['tabulated']]} (--seed {result['seed']}); each infoset shown one real deal "
                 f"consistent with it; {result['tabulate_seconds']:.1f} s", highlight=False)
