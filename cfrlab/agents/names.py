"""Agents by name: the kinds a game offers (the generic ones and its family's), a name read once into an
``AgentSpec`` with its kind's grammar (``cfrlab.agents.spec``), the agent built from the spec, and a command's
options set as fields of the specs (``fill_agents``).

The generic kinds (``GENERIC_AGENTS``): ``random``, ``oos[:SECONDS][:cpu|wall][:ist|pst][:points|match]`` (Online
Outcome Sampling, ``cfrlab.agents.oos``) and ``policy:PATH`` (a strategy file of the game). A game family adds its
own (``cfrlab.registry.GameFamily.agents``), asked first and free to override a generic one (hold'em's
``policy:PATH`` plays an abstract strategy on real cards).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cfrlab.agents.spec import SAYS, WHAT, WORDS, AgentSpec, read, usage
from cfrlab.registry import AgentKind, GameFamily, families, family_of, resolve

if TYPE_CHECKING:
    from cfrlab.game import Game

GENERIC_AGENTS: dict[str, AgentKind] = {
    "random": AgentKind("cfrlab.agents.base:random_agent", about="uniform over the legal actions"),
    "oos": AgentKind("cfrlab.agents.base:oos_agent", takes=("SECONDS", "cpu|wall", "ist|pst", "points|match"),
                     fills=("objective",), usage="oos[:SECONDS]",
                     about="Online Outcome Sampling: SECONDS per move (default 0.5) of CPU time, or of wall-clock "
                           "time with wall; information-set (ist) or public-state (pst) targeting"),
    "policy": AgentKind("cfrlab.agents.base:policy_agent", takes=("PATH",), required=("PATH",),
                        about="a strategy file of the game, written by `cfrlab solve --out`"),
}
"""The agents every game has, by kind; a game family adds its own (``GameFamily.agents``) and may override these."""
KindLike = str | Any  # a game, a game's name or spec, or None


def _entry(kind: str, game: KindLike) -> AgentKind | None:
    family = family_of(game) if game is not None else None
    own = family.agent_kind(kind) if family is not None else None
    if own is not None or kind in GENERIC_AGENTS:
        return own or GENERIC_AGENTS[kind]
    return next((e for f in families() if (e := f.agent_kind(kind)) is not None), None)


def kind_of(name: str, game: KindLike = None) -> tuple[str, AgentKind] | None:
    """The kind ``name`` is of, with its entry: the game's family's first, then the generic ones, then any family's;
    the longest kind that fits (``neural:oos:0.1`` is of kind ``neural:oos``). None for a name of no kind."""
    parts = name.split(":")
    for end in range(len(parts), 0, -1):
        kind = ":".join(parts[:end])
        entry = _entry(kind, game)
        if entry is not None:
            return kind, entry
    return None


def parse_agent(name: str, game: KindLike = None) -> AgentSpec:
    """``name`` read by its kind's grammar (of ``game``'s family when given: a game, its name or spec); a
    ``ValueError`` in one line for a malformed name or one of no kind."""
    found = kind_of(name, game)
    if found is None:
        raise ValueError(f"unknown agent {name!r}" + (f"; choose {agent_choices(game)}" if game is not None else ""))
    return read(name, *found)


def make_agent(name: str | AgentSpec, game: Game) -> Any:
    """An agent by name or spec, ``KIND[:OPTIONS]``: a generic kind (``GENERIC_AGENTS``) or one of the game's
    family (``GameFamily.agents``, asked first: e.g. Koi-Koi's ``greedy``, ``search[:N|:Tms]``, ``cfr``). A
    ``ValueError`` with the agents ``game`` has, for a name it has not."""
    spec = name if isinstance(name, AgentSpec) else parse_agent(name, game)
    family = family_of(game)
    entry = family.agent_kind(spec.kind) if family is not None else None
    if entry is not None:
        agent = resolve(entry.factory)(spec, game)
        if agent is not None:
            return agent
    if spec.kind in GENERIC_AGENTS:
        return resolve(GENERIC_AGENTS[spec.kind].factory)(spec, game)
    raise ValueError(f"no {spec.kind} agent for game {game.name!r}: the {spec.kind} agent plays "
                     f"{plays_only(spec.kind)} only; agents: {agent_choices(game)}")


def offered(game: KindLike) -> dict[str, AgentKind]:
    """The kinds ``game`` offers, as a user meets them: random, its family's, then oos and policy."""
    family = family_of(game) if game is not None else None
    own = {k: _as_kind(e) for k, e in (family.agents if family is not None else {}).items()}
    first, *rest = GENERIC_AGENTS
    return {first: own.get(first, GENERIC_AGENTS[first]), **{k: e for k, e in own.items() if k not in GENERIC_AGENTS},
            **{k: own.get(k, GENERIC_AGENTS[k]) for k in rest}}


def _as_kind(entry: Any) -> AgentKind:
    return entry if isinstance(entry, AgentKind) else AgentKind(entry)


def written(kind: str, entry: AgentKind, short: bool = False) -> str:
    """How kind ``kind`` is written: its full form, or with ``short`` its short one (``oos[:SECONDS]``)."""
    return (short and entry.usage) or usage(kind, entry.takes, entry.required)


def agent_choices(game: KindLike) -> str:
    """The agents ``game`` has, as a user writes them: ``random, greedy, ..., oos[:SECONDS] or policy:PATH``."""
    usages = [written(kind, entry, short=True) for kind, entry in offered(game).items()]
    return ", ".join(usages[:-1]) + " or " + usages[-1]


def plays_only(kind: str) -> str | None:
    """The games agent ``kind`` plays when a game family offers it and no generic agent does (``full Koi-Koi``);
    None for a kind no family offers."""
    if kind in GENERIC_AGENTS:
        return None
    for family in families():
        entry = family.agent_kind(kind)
        if entry is not None:
            return entry.plays or family.title or family.name
    return None


def fill_agents(specs: Sequence[AgentSpec], options: Mapping[str, tuple[str, Any]],
                refuse: bool = True) -> list[AgentSpec]:
    """Each spec with a command's options (spec field -> (flag, value); value None when not given) set where its
    kind takes them from a command (``AgentKind.fills``) and its name leaves them out. With ``refuse``, refused
    when the options given change no agent: they would be silently ignored."""
    given = {key: pair for key, pair in options.items() if pair[1] is not None}
    for key, (flag, value) in given.items():
        choices = next((o.split("|") for o, k in WORDS.items() if k == key), None)
        if choices is not None and value not in choices:
            raise ValueError(f"{flag} must be {' or '.join(choices)}, got {value!r}")
    filled = [spec.filled(**{key: value for key, (_, value) in given.items() if key in spec.fills}) for spec in specs]
    if refuse and given and filled == list(specs):
        said = " and ".join(f"{flag} {value}" for flag, value in given.values())
        why = "; ".join(f"{flag} sets the {WHAT[key]} of an agent that leaves it out ({_filling(key)})"
                        for key, (flag, _) in given.items())
        raise ValueError(f"{said} would change no agent of {', '.join(s.name for s in specs)}: {why}")
    return filled


def _filling(key: str) -> str:
    kinds = {k: e for f in families() for k, e in f.agents.items()} | GENERIC_AGENTS
    return ", ".join(k for k, e in kinds.items() if key in _as_kind(e).fills) or "none"


def wall_clock(spec: AgentSpec) -> AgentSpec:
    """``spec`` timed on the wall clock where its kind takes a clock and it names none: a person playing it
    waits the seconds it asks for, however loaded the machine."""
    return spec.filled(clock="wall") if "cpu|wall" in spec.takes else spec


def on_wall_clock(name: str) -> str:
    """``wall_clock`` on a name (``oos:0.5`` -> ``oos:0.5:wall``); a name of no kind is returned as given."""
    return name if kind_of(name) is None else wall_clock(parse_agent(name)).name


def with_search_options(name: str, rollouts: int | None = None, objective: str | None = None) -> str:
    """The name of ``name``'s spec with a command's ``--rollouts`` and ``--objective`` filled in where the agent
    leaves them out (``fill_agents``): ``oos:0.5`` becomes ``oos:0.5:match``, ``search`` ``search:400``."""
    if kind_of(name) is None:
        return name
    return fill_agents([parse_agent(name)], _search_options(rollouts, objective), refuse=False)[0].name


def with_search_options_for(names: list[str], rollouts: int | None, objective: str | None) -> list[str]:
    """``fill_agents`` on the names of a command's agents; refused when the options fill in nothing."""
    return [spec.name for spec in fill_agents([parse_agent(n) for n in names], _search_options(rollouts, objective))]


def _search_options(rollouts: int | None, objective: str | None) -> dict[str, tuple[str, Any]]:
    return {"count": ("--rollouts", rollouts), "objective": ("--objective", objective)}


def describe_agents(game: KindLike, family: GameFamily | None = None) -> list[dict[str, Any]]:
    """The agents ``game`` offers: each kind's form, what it plays, its options and the command options that fill
    them (``cfrlab agents GAME``)."""
    family = family or (family_of(game) if game is not None else None)
    flags = [o for o in (family.options if family is not None else ()) if o.sets.startswith("agent.")]
    rows = []
    for kind, entry in offered(game).items():
        fills = {o.flag: o.sets.removeprefix("agent.") for o in flags if o.sets.removeprefix("agent.") in entry.fills}
        rows.append({"kind": kind, "usage": written(kind, entry), "about": entry.about,
                     "options": [SAYS.get(o, f"{o} (one of these words)") for o in entry.takes],
                     "filled_by": [f"{flag} ({WHAT[key]})" for flag, key in fills.items()]})
    return rows
