"""Games by name: ``load_game("kuhn(players=3)")`` or ``load_game("leduc", ranks=4)``; game families that plug in.

Games sit in a table of lazy ``"module:attr"`` strings, so listing games imports
nothing heavy and no game module imports this one. ``openspiel:NAME(...)`` wraps
any pyspiel game, and ``efg:PATH`` (or a bare ``PATH.efg``) reads a Gambit file,
through the same table (``PREFIXES``). ``register_game`` adds a
game at run time.

A game family (``GameFamily``) is a package that brings its games and, above the
game layer, what it adds: agents by name (``AgentKind``), options of the generic
commands (``CommandOption``), a web view, a terminal loop, CLI commands, solvers,
evaluations, the opponent a person meets by default. Every part is a lazy
``"module:attr"`` string (or the object itself), so declaring a family imports
nothing heavy. The built-in families (Kuhn, Leduc, Koi-Koi, hold'em) are declared
in their own packages and named in ``FAMILIES``; a package of yours registers one
the same way, with ``register_family`` or the ``cfrlab.families`` entry point.
Generic code asks ``family_of(game)`` and never names a game.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfrlab.game import Game

Factory = str | Callable[..., "Game"]
# cfrlab.game (and numpy with it) is imported where a game is loaded, not here: `cfrlab --help` reads the families.

_REGISTRY: dict[str, Factory] = {
    "random_game": "cfrlab.games.random_game:RandomGame",
}
PREFIXES: dict[str, str] = {
    "openspiel": "cfrlab.games.openspiel:OpenSpielGame",  # called as OpenSpielGame(NAME, **params)
    "efg": "cfrlab.efg:EfgGame",  # efg:PATH, or a bare PATH ending in .efg: a Gambit file
}


@dataclass(frozen=True)
class AgentKind:
    """An agent a family offers by name: ``factory(spec, game) -> Agent`` built from the name read as a
    ``cfrlab.agents.spec.AgentSpec`` (None: the generic agent of that kind plays); the options the name takes, in
    order (``takes``: ``N``, ``Tms``, ``N|Tms``, ``SECONDS``, ``cpu|wall``, ``ist|pst``, ``points|match``, ``PATH``
    or a kind's own ``a|b`` words; ``required``: those it must give); the fields a command's options may fill where
    the name leaves them out (``fills``: ``count``, ``seconds``, ``objective``, ...); one line on what it plays
    (``about``, listed by ``cfrlab agents GAME``), a short form for lists of choices (``usage``; default the full
    one) and which games it plays (``plays``, for the refusal on another game; default: the family's title)."""

    factory: str | Callable[..., Any]
    takes: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    fills: tuple[str, ...] = ()
    about: str = ""
    usage: str = ""
    plays: str = ""


@dataclass(frozen=True)
class CommandOption:
    """An option a family adds to generic commands (``play``, ``serve``, ``arena``, ``eval``, ``solve``): listed
    by their ``-h``, honoured for the family's games and refused in one line for another game's.

    * ``flag`` (``--rounds``) and the ``commands`` that take it; ``help``; ``type``: ``text``, ``int``,
      ``float``, ``path`` or ``switch`` (a flag without a value); ``low`` and ``high`` bound a number.
    * ``sets``, where its value goes: ``agent.FIELD``, a field of each agent of the command whose kind takes it
      from a command (``AgentKind.fills``: ``agent.count``, ``agent.objective``); ``game.PARAM``, a parameter of
      the game (``game.rounds``); ``params``, the game's parameters through ``apply(name, params, value) ->
      params`` (a whole match); ``game``, the game itself through ``apply(game, value) -> Game`` (a card
      abstraction); empty (the default): a keyword of the family's own code for the command (``terminal`` for
      ``play``, ``evaluation`` for ``eval``).

    Families that declare the same flag for a command share one option (typed as the first one declares it; its
    help joins theirs), and each game's family decides what the value does.
    """

    flag: str
    commands: tuple[str, ...]
    help: str = ""
    type: str = "text"
    low: float | None = None
    high: float | None = None
    sets: str = ""
    apply: str | Callable[..., Any] | None = None

    @property
    def key(self) -> str:
        """The option's name in code: ``--lbr-log`` -> ``lbr_log``."""
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Views:
    """How a person plays a family's games, as lazy ``"module:attr"``.

    * ``web``: a ``cfrlab.web.view_base.TableView`` class built as ``view(game)`` (the web page and, without
      ``terminal``, ``cfrlab play``).
    * ``terminal``: ``play(spec, opponent, strategy, *, seat, seed, hands, **options)`` for ``cfrlab play``
      (``opponent`` a name, an ``AgentSpec`` or None), where ``options`` are the family's own options of ``play``
      that were given (Koi-Koi's rules, rounds).
    * ``default_opponent``: the agent a person meets without ``--opponent`` (the page and ``cfrlab play``), or
      several names, strongest first: the first that plays the game (``cfrlab.agents.opponents.default_opponent``).
    * ``play_default``: the game ``cfrlab play`` plays when given none (the first family that names one).
    * ``text``: ``text(state, seat) -> str``, what ``seat`` sees of ``state`` as the family's terminal shows it
      (the environments' ``render()``); None: the web view's data as ``cfrlab play`` prints it.
    """

    web: str | Callable[..., Any] | None = None
    terminal: str | Callable[..., Any] | None = None
    default_opponent: str | tuple[str, ...] = "random"
    play_default: str | None = None
    text: str | Callable[..., Any] | None = None


@dataclass(frozen=True)
class Solvers:
    """What a family adds to solving, as lazy ``"module:attr"``.

    * ``modules``: modules that register the family's solver extensions when imported (an Online Outcome Sampling
      back end: ``cfrlab.solvers.oos.stores.register_oos_backend``), imported when such a solver is built.
    * ``algorithms``: ``"module:Class"`` references of the family's own solvers (hold'em's vector CFR), listed and
      run with cfrlab's (``cfrlab.solvers``), their ``algorithm`` and ``citation`` read from source as theirs.
    * ``refusal``: ``refusal(game, algo) -> str | None``, why ``cfrlab solve`` cannot solve ``game`` with
      ``algo`` and what to do instead, asked before any work (Koi-Koi: a sampled deal too large to enumerate);
      None when it can. Any family whose games outgrow the solvers in a way it can explain gives one.
    """

    modules: tuple[str, ...] = ()
    algorithms: tuple[str, ...] = ()
    refusal: str | Callable[..., Any] | None = None


@dataclass(frozen=True)
class Rounds:
    """How a family's games are played as a match of rounds that deal again (a card game's hands scored to a
    match total: Koi-Koi's 12 rounds), as lazy ``"module:attr"``. A family without matches leaves
    ``GameFamily.rounds`` None, and ``match=True``, ``arena --match`` and the ``match`` objective refuse its games.

    * ``match``: ``match(name, params) -> params``, the parameters of game ``name`` made a whole match
      (``registry.match_params``: the environments' ``match=True``; a family's own ``--match`` option).
    * ``search``: the class an online search agent (``cfrlab.agents.oos``) uses to search the round in play as a
      game of its own rather than the whole match: ``applies(game, objective)``, then built as
      ``(game, objective, table, config)`` with ``solver(state)`` and ``infoset(state, key) -> (key, fresh)``
      (a fresh round's solver when ``fresh``); None: the agent searches the game as it is.
    """

    match: str | Callable[..., Any]
    search: str | Callable[..., Any] | None = None


@dataclass(frozen=True)
class GameFamily:
    """A game family that plugs in: its games and what any family may add above the game layer, each part a lazy
    ``"module:attr"`` or the object itself.

    * ``games``: game name -> factory, registered as ``register_game`` would.
    * ``agents``: agent kind (the first word or words of an agent's name: ``search``, ``neural:oos``) ->
      ``AgentKind`` (its factory, options and help) or a factory alone; asked before the generic kinds.
    * ``options``: ``CommandOption`` s the family adds to the generic commands (Koi-Koi's ``play --rules``,
      ``arena --match``; hold'em's ``eval --lbr``, ``solve --abstraction``).
    * ``views``: how a person plays its games (``Views``: web page, terminal loop, default opponent and game).
    * ``solvers``: what it adds to solving (``Solvers``: back ends, algorithms, a refusal).
    * ``rounds``: how its games are played as matches of rounds (``Rounds``: the match's parameters, the
      round-by-round search); None for games that are not.
    * ``prepare``: ``prepare(game, console)`` builds what ``game`` precomputes before a command's work and its
      time limit (hold'em's card abstraction; any table a game needs built once), saying so on the rich
      ``console`` when that takes long. Called by ``solve``, ``eval``, and for agents' games by ``play``,
      ``serve`` and ``arena`` (``cli.common``).
    * ``evaluation``: what ``cfrlab eval`` adds for the family's strategy files beyond the exact evaluation,
      built from the family's own options of ``eval`` that were given (``CommandOption`` with no ``sets``) and
      ``workers``, ``address``, ``seed``, ``exact``: ``wanted`` (an option asked for it), ``check(game)``,
      ``run(game, policy, quiet)``, and ``evaluate_file(path, spec, json_out)`` for files it evaluates itself
      (hold'em: LBR, games against fixed agents and the real game's exact value of an abstract strategy).
    * ``observation``: ``observation(game) -> Encoding``, the tensor the reinforcement-learning environments
      (``cfrlab.envs``) observe: ``name``, ``size``, bounds ``low`` / ``high`` and ``encode(state, player)``, from
      ``player``'s information state only (``cfrlab.envs.encoding``); None: the game's own tensor or its keys.
    * ``commands``: modules that add commands to ``cfrlab.cli.app.app`` when imported (``cfrlab train``).
    """

    name: str
    title: str = ""
    games: Mapping[str, Factory] = field(default_factory=dict)
    agents: Mapping[str, AgentKind | str | Callable[..., Any]] = field(default_factory=dict)
    options: tuple[CommandOption, ...] = ()
    views: Views = Views()
    solvers: Solvers = Solvers()
    rounds: Rounds | None = None
    prepare: str | Callable[..., Any] | None = None
    observation: str | Callable[..., Any] | None = None
    evaluation: str | Callable[..., Any] | None = None
    commands: tuple[str, ...] = ()

    def agent_kind(self, kind: str) -> AgentKind | None:
        """The family's entry for ``kind``, as an ``AgentKind``; None when it offers none."""
        entry = self.agents.get(kind)
        if entry is None or isinstance(entry, AgentKind):
            return entry
        return AgentKind(entry)


FAMILIES: list[GameFamily | str] = [
    "cfrlab.games.families:KUHN",
    "cfrlab.games.families:LEDUC",
    "cfrlab.games.koikoi.family:FAMILY",
    "cfrlab.games.holdem.family:FAMILY",
]
"""The registered families, lazy until first asked for (built-ins, then ``register_family``'s and entry points')."""
_families_loaded: dict[str, GameFamily] = {}
_family_of_game: dict[str, str] = {}


def register_game(name: str, factory: Factory) -> None:
    """Register ``factory`` (a callable or a lazy ``"module:attr"``) under ``name``."""
    _REGISTRY[name] = factory


def register_family(family: GameFamily | str) -> None:
    """Register a game family (or a lazy ``"module:attr"`` naming one): its games, agents, views and commands."""
    FAMILIES.append(family)
    if _entry_points_loaded:
        _load_families()


ENTRY_POINT_GROUP = "cfrlab.games"
"""Packages register games under this entry-point group: ``rps = "my_games:RockPaperScissors"``."""
FAMILY_ENTRY_POINT_GROUP = "cfrlab.families"
"""Packages register game families under this entry-point group: ``toy = "my_games.family:FAMILY"``."""
_entry_points_loaded = False


def _load_families() -> None:
    while FAMILIES:
        entry = FAMILIES.pop(0)
        family = _resolve(entry) if isinstance(entry, str) else entry
        if not isinstance(family, GameFamily):
            from cfrlab.game import GameDefinitionError

            raise GameDefinitionError(f"{entry!r} is not a cfrlab.registry.GameFamily")
        _families_loaded[family.name] = family
        for name, factory in family.games.items():
            _REGISTRY[name] = factory
            _family_of_game[name] = family.name


def list_games() -> list[str]:
    """Names of all registered games: the built-ins, entry points of installed packages, imported modules'."""
    global _entry_points_loaded
    if not _entry_points_loaded:
        _entry_points_loaded = True
        from importlib.metadata import entry_points

        FAMILIES.extend(ep.value for ep in entry_points(group=FAMILY_ENTRY_POINT_GROUP))
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            _REGISTRY.setdefault(ep.name, ep.value)
    _load_families()
    return sorted(_REGISTRY)


def families() -> list[GameFamily]:
    """Every registered game family."""
    list_games()
    return list(_families_loaded.values())


def play_default() -> str | None:
    """The game ``cfrlab play`` plays when given none: the first registered family's ``play_default``."""
    return next((family.views.play_default for family in families() if family.views.play_default), None)


def family_of(game: Game | str) -> GameFamily | None:
    """The family ``game`` (a game, or a game's name or spec) belongs to; None for a game of no family."""
    list_games()
    if isinstance(game, str):
        from cfrlab.game_spec import parse_spec

        game_name = parse_spec(game)[0]
    else:
        game_name = game.name
    owner = _family_of_game.get(game_name)
    return _families_loaded[owner] if owner is not None else None


def match_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` of game ``name`` made a whole match by its family's ``Rounds.match`` (``cfrlab arena --match``, the
    environments' ``match=True``); ``ValueError`` for a game not played in matches of rounds."""
    family = family_of(name)
    if family is None or family.rounds is None:
        titles = ", ".join(f.title or f.name for f in families() if f.rounds is not None)
        raise ValueError(f"{name} is not played in matches of rounds; matches apply to {titles} games")
    updated: dict[str, Any] = resolve(family.rounds.match)(name, params)
    return updated


def resolve(entry: Any) -> Any:
    """The object a lazy ``"module:attr"`` string names (imported now); any other value as it is."""
    return _resolve(entry)


def import_game_module(name: str) -> None:
    """Import a module that registers games: a dotted name (looked up from the current folder too) or a .py path."""
    import importlib.util
    import os
    import sys
    from pathlib import Path

    from cfrlab.game import GameDefinitionError

    path = Path(name)
    try:
        if name.endswith(".py"):
            if not path.is_file():
                raise GameDefinitionError(f"game module file {name!r} does not exist")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
            return
        if os.getcwd() not in sys.path:
            sys.path.append(os.getcwd())
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise GameDefinitionError(f"cannot import game module {name!r}: {exc}") from None
    except (SystemExit, KeyboardInterrupt) as exc:  # else the command ended with exit 0 and no word
        raise GameDefinitionError(f"game module {name!r} stopped while it was imported ({type(exc).__name__}"
                                  f"{f': {exc}' if str(exc) else ''}); a game module must only define and register "
                                  "games") from None


def game_class(name: str) -> Callable[..., Game]:
    """The factory registered as ``name`` (imported on first use); ``GameDefinitionError`` if unknown."""
    if name not in list_games():
        from cfrlab.game import GameDefinitionError

        raise GameDefinitionError(
            f"unknown game {name!r}; known games: {', '.join(list_games())} (or openspiel:NAME, or a Gambit file: "
            "efg:PATH or PATH.efg); "
            "a game of your own: --game-module MODULE (see README, 'Your own game')"
        )
    return _resolve(_REGISTRY[name])


def describe_games() -> list[dict[str, Any]]:
    """Every registered game: name, first docstring paragraph, and its parameters with defaults, help and bounds
    (``Game.parameter_bounds``: [low, high] of a number or each entry of a list; None where the game names none)."""
    rows = []
    for name in list_games():
        factory = game_class(name)
        defaults = dict(getattr(factory, "default_params", {}) or {})
        helps = dict(getattr(factory, "parameter_help", {}) or {})
        bounds = dict(getattr(factory, "parameter_bounds", {}) or {})
        params = [{"name": key, "default": _format_default(defaults.get(key)), "help": helps.get(key, ""),
                   "bounds": list(bounds[key]) if key in bounds else None}
                  for key in list(defaults) + [k for k in helps if k not in defaults]]
        doc = (factory.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ").replace("``", "")
        rows.append({"name": name, "description": doc, "parameters": params})
    return rows


def _format_default(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(str(v) for v in value) + "]"
    return value


def _resolve(factory: Factory) -> Callable[..., Game]:
    if isinstance(factory, str):
        module, attr = factory.split(":")
        return getattr(importlib.import_module(module), attr)
    return factory


def load_game(spec: str, **params: Any) -> Game:
    """Build a game from its spec string, with ``params`` overriding those in the string."""
    from cfrlab.game_spec import parse_spec

    name, parsed = parse_spec(spec)
    parsed.update(params)
    prefix, _, rest = name.partition(":")
    if rest and prefix in PREFIXES:
        return _resolve(PREFIXES[prefix])(rest, **parsed)
    return game_class(name)(**parsed)
