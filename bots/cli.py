"""The `bots` command.

    bots demo                                   a local match drawn in the terminal
    bots play twilight --host H --port P        play on a server (or: ... H P, last two)
    bots --game twilight --host H --port P      the same, as `docker run bots ...` passes it
    bots serve twilight --map FILE --port P     our referee with the official semantics
    bots arena twilight --a P --b P --maps ...  a match between two players, with a report
    bots bench twilight                         search speed and depth per player and map
    bots gtp go [--player mcts]                 a Go engine speaking GTP on stdin/stdout
    bots play go --cgos HOST:PORT --name N      play 9x9 Go on a CGOS server
    bots maps generate W H HOMES [--seed N]     a fair random Twilight map (official XML)
    bots fuzz [--inputs N]                      every wire codec against hostile inputs
    bots daemon --config FILE                   every bot of a TOML file, concurrently

Exit codes: 0 done, 1 a failure while running (e.g. server unreachable), 2 bad input
(arguments, map, config).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from typing import Any, Sequence

import structlog

from . import log as logsetup
from .loop import Stopped
from .loop import run as _run
from .players import PlayerError, make_player, parse_spec, player_table
from .twilight.maps import MapError

GAMES = ("twilight", "gopher", "dodo", "go")
GND = ("gopher", "dodo")


class UsageFailure(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


def output_file(path: str | None, mode: str = "w") -> Any:
    """A file the user named for output, opened before any work: UsageFailure if it cannot be."""
    if not path:
        return None
    try:
        return open(path, mode)
    except OSError as exc:
        raise UsageFailure(f"cannot write {path}: {exc.strerror or exc}") from None


async def listening(start: Any, host: str, port: int | None) -> Any:
    """Await a server's start(); a port in use (or not ours to take) is bad input, not a crash."""
    try:
        return await start
    except OSError as exc:
        raise UsageFailure(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def player_spec(text: str) -> tuple[str, tuple]:
    """'expecti' or 'expecti:max_depth=5,max_groups=2' -> (name, sorted params)."""
    try:
        name, params = parse_spec(text)
    except PlayerError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name, tuple(sorted(params.items()))


def _checked_player(game: str, spec: tuple[str, tuple], extra: Sequence[str] = ()) -> tuple[str, tuple]:
    name, params = spec
    merged = dict(params)
    for pair in extra:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UsageFailure(f"--param {pair!r} is not key=value")
        merged[key] = value
    try:
        player = make_player(game, name, merged)
    except PlayerError as exc:
        raise UsageFailure(str(exc)) from None
    # Keep typed values so workers do not parse strings again.
    typed = {k: getattr(player, k) for k in merged}
    return name, tuple(sorted(typed.items()))


def _clear_screen() -> str:
    return "\033[H\033[2J" if sys.stdout.isatty() else ""


def _shower(render=None):
    """A callback drawing each state it gets (`render`: the game's, default Twilight's)."""
    if render is None:
        from .twilight.display import render

    def show(state) -> None:
        print(_clear_screen() + render(state, colour=sys.stdout.isatty()), flush=True)

    return show


# -- commands -------------------------------------------------------------------------------


def cmd_play(args: argparse.Namespace) -> int:
    if args.game == "go":
        from .go import commands as go

        return go.play(args)
    if args.game in GND:
        from .gnd import commands

        return commands.play(args)
    from protocol.twilight import ProtocolError

    from .runner import SearchRunner
    from .twilight.session import TwilightBot, play

    host, port = args.host, args.port
    if args.address:
        if len(args.address) != 2:
            raise UsageFailure("the server address is the last two arguments: HOST PORT")
        try:
            host, port = args.address[0], _port(args.address[1])
        except argparse.ArgumentTypeError as exc:
            raise UsageFailure(f"the server's port: {exc}") from None
    if port is None:
        raise UsageFailure("no server port: give --port P or HOST PORT as the last two arguments")
    name, params = _checked_player("twilight", args.player, args.param)
    try:
        bot = TwilightBot(name=args.name, host=host, port=port, player=name, params=params,
                          move_time=args.move_time, overhead=args.overhead)
    except (ValueError, PlayerError) as exc:
        raise UsageFailure(str(exc)) from None

    async def main() -> int:
        async with SearchRunner(args.workers, games=["twilight"]) as runner:
            try:
                games = await play(bot, runner, on_state=_shower() if args.show else None)
            except ProtocolError as exc:
                structlog.get_logger("bots").error("server sent garbage; leaving", error=str(exc))
                return 1
            except OSError as exc:
                structlog.get_logger("bots").error("cannot play on the server", server=f"{host}:{port}",
                                                   error=str(exc) or type(exc).__name__)
                return 1
        for g in games:
            print(json.dumps(g), flush=True)
        return 0

    return _run(main())


def cmd_serve(args: argparse.Namespace) -> int:
    if args.game == "cgos":
        from .go import commands as go

        return go.serve(args)
    if args.game == "gnd":
        from .gnd import commands

        return commands.serve(args)
    if not args.map:
        raise UsageFailure("bots serve twilight needs --map FILE (or a shipped map name)")
    from .twilight.maps import MapError, load_map
    from .twilight.referee import Referee, RefereeConfig

    try:
        state = load_map(args.map, args.max_plies)
    except MapError as exc:
        raise UsageFailure(str(exc)) from None
    config = RefereeConfig(state, args.map, args.move_timeout, args.max_plies, args.seed, args.games)

    def record(game: dict) -> None:
        print(json.dumps(game), flush=True)

    async def main() -> int:
        referee = Referee(config, on_game=record, on_ply=_shower() if args.show else None)
        port = await listening(referee.start(args.host, 5555 if args.port is None else args.port), args.host,
                               args.port)
        structlog.get_logger("bots").info("referee listening", host=args.host, port=port, map=args.map,
                                          move_timeout=args.move_timeout, games=args.games)
        try:
            await asyncio.Event().wait()  # until Ctrl-C / SIGTERM
        finally:
            await referee.close()
        return 0

    try:
        return _run(main())
    except KeyboardInterrupt:
        return 0


def cmd_arena(args: argparse.Namespace) -> int:
    if args.game == "go":  # a side may be an external GTP engine: go parses its own sides
        from .go import commands as go

        return go.arena(args)
    try:
        args.a, args.b = player_spec(args.a), player_spec(args.b)
    except argparse.ArgumentTypeError as exc:
        raise UsageFailure(str(exc)) from None
    if args.game in GND:
        from .gnd import commands

        return commands.arena(args)
    from .runner import SearchRunner
    from .matches import Side, report
    from .twilight.arena import run_arena
    from .twilight.maps import MapError, load_map, shipped_maps

    maps = args.maps or sorted(shipped_maps())
    for m in maps:
        try:
            load_map(m)
        except MapError as exc:
            raise UsageFailure(str(exc)) from None
    a = Side("A", *_checked_player("twilight", args.a))
    b = Side("B", *_checked_player("twilight", args.b))
    out = output_file(args.json)

    def note(record: dict) -> None:
        if out:
            out.write(json.dumps(record) + "\n")
            out.flush()
        if args.verbose:
            print(f"{record['map']} game {record['game']}: {record['players']} winner {record['winner_name']}"
                  f" ({record['reason']}, {record['plies']} plies)", flush=True)

    async def main() -> list[dict]:
        async with SearchRunner(args.workers, games=["twilight"]) as runner:
            return await run_arena(a, b, maps, args.games, args.move_time, args.overhead, runner,
                                   parallel=args.parallel, max_plies=args.max_plies, seed=args.seed,
                                   on_game=note, on_state=_shower() if args.show else None)

    records = _run(main())
    if out:
        out.close()
    print(report(a, b, records, maps))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.game == "go":
        from .go import commands as go

        return go.bench(args)
    if args.game in GND:
        from .gnd import commands

        return commands.bench(args)
    from .twilight.bench import bench, scaling

    if args.scaling:
        print(scaling(args.players, args.time))
    else:
        print(bench(args.maps, args.players, args.time))
    return 0


def cmd_gtp(args: argparse.Namespace) -> int:
    from .go import commands as go

    return go.gtp(args)


def cmd_daemon(args: argparse.Namespace) -> int:
    from . import daemon, settings

    try:
        config = settings.load(args.config)
    except settings.SettingsError as exc:
        raise UsageFailure(str(exc)) from None
    logsetup.setup(args.log_format or config.log_format, config.log_level)
    return _run(daemon.run(config))


def cmd_demo(args: argparse.Namespace) -> int:
    from .runner import SearchRunner
    from .matches import Side, report
    from .twilight.arena import run_arena
    from .twilight.maps import load_map

    load_map(args.map)  # a bad map is one line, before any worker starts
    us = Side("A", *_checked_player("twilight", args.player))
    them = Side("B", *_checked_player("twilight", args.opponent))
    print(f"Demo: {us.player} (A) against {them.player} (B) on {args.map}, our referee on a free local port,"
          f" {args.move_time} s per move. A plays vampires (V).", flush=True)

    async def main() -> list[dict]:
        async with SearchRunner(args.workers, games=["twilight"]) as runner:
            return await run_arena(us, them, [args.map], 1, args.move_time, args.overhead, runner,
                                   on_state=_shower())

    records = _run(main())
    r = records[0]
    print(f"\nResult: {r['winner_name'] or 'nobody'} wins ({r['reason']}, {r['plies']} plies,"
          f" final population {r.get('population')})")
    print(report(us, them, records, [args.map]))
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    from .fuzz import run

    table, findings = run(args.inputs, args.seed, args.codecs)
    print(table)
    return 1 if findings else 0


# -- parser ---------------------------------------------------------------------------------


def _number(text: str, kind: type = float) -> Any:
    """A finite number of `kind` (int or float) from the command line, or the reason it is not."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _port(text: str) -> int:
    value = _number(text, int)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port {value} is outside 0..65535")
    return value


def _positive(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def _nonnegative(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def _count(text: str) -> int:
    value = _number(text, int)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _whole(text: str) -> int:
    value = _number(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


class Parser(argparse.ArgumentParser):
    """Bad input is one line on stderr and exit status 2, never a usage dump or a traceback."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"bots: error: {message} (see: {self.prog} --help)\n")


COMMANDS = ("play", "serve", "arena", "bench", "gtp", "daemon", "demo", "maps", "fuzz")
PLAY_EPILOG = """examples:
  bots play twilight --host 127.0.0.1 --port 5555 --name towelie
  bots play twilight --player expecti:max_depth=5 127.0.0.1 5555
  bots play gopher --server http://localhost:8080/ --group 12 --name toto --password totovelo --games 4
  bots play go --cgos yss-aya.com:6809 --name bots-mcts --password secret --games 0
"""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="bots", description="Plays board games against tournament servers.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n")[1])
    parser.add_argument("--log-format", choices=("auto", "console", "json"), default=None,
                        help="log format on stderr (default: console on a terminal, JSON otherwise)")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"),
                        help="the least important log lines shown (info)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    players = "; ".join(f"{game}: {', '.join(sorted(player_table(game)))}" for game in GAMES)

    p = sub.add_parser("play", help="play on a server", epilog=PLAY_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", choices=GAMES)
    p.add_argument("--host", default="127.0.0.1", help="twilight: the server's host (127.0.0.1)")
    p.add_argument("--port", type=_port, default=None, help="twilight: the server's port")
    p.add_argument("--server", default=None, help="gopher/dodo: the gnd server's URL, e.g. http://localhost:8080/")
    p.add_argument("--group", type=_whole, default=0, help="gopher/dodo: the group number sent to /register")
    p.add_argument("--cgos", default=None, metavar="HOST:PORT", help="go: the CGOS server (9x9: yss-aya.com:6809)")
    p.add_argument("--password", default=None,
                   help="gopher/dodo: the group's password (or $BOTS_GND_PASSWORD); go: the CGOS password"
                        " (or $BOTS_CGOS_PASSWORD)")
    p.add_argument("--games", type=_whole, default=1, help="gopher/dodo/go: games to play, 0 = forever (1)")
    p.add_argument("--name", default="bots", help="the name sent to the server (gnd: Members)")
    p.add_argument("--player", type=player_spec, default=None,
                   help="NAME or NAME:key=value,... (default: planner; gopher/dodo: the best for the game;"
                        " go: mcts)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="a player option (repeatable)")
    p.add_argument("--move-time", type=_positive, default=2.0, help="twilight: the server's seconds per move (2)")
    p.add_argument("--overhead", type=_nonnegative, default=None,
                   help="seconds kept back per move for the network (twilight 0.3, gnd 0.1, go 0.2)")
    p.add_argument("--workers", type=_count, default=None, help="search processes (default: all cores)")
    p.add_argument("--show", action="store_true", help="draw the board before each of our moves")
    p.add_argument("address", nargs="*", metavar="HOST PORT", help="the course convention: server last")
    p.set_defaults(func=cmd_play)

    s = sub.add_parser("serve", help="run our server (official semantics): twilight, gnd (Gopher/Dodo) or cgos (Go)")
    s.add_argument("game", choices=("twilight", "gnd", "cgos"))
    s.add_argument("--map", default=None, help="twilight: a map file (official XML) or a shipped map name")
    s.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1)")
    s.add_argument("--port", type=_port, default=None, help="twilight 5555, gnd 8080, cgos 6809; 0 picks a free port")
    s.add_argument("--game", dest="gnd_game", choices=GND, default=None, help="gnd: the game played")
    s.add_argument("--size", type=_count, default=None, help="gnd: the hexagon's side (6); cgos: the board (9)")
    s.add_argument("--time", type=_positive, default=None,
                   help="gnd: each player's clock (180 gopher, 360 dodo); cgos: seconds per side (300)")
    s.add_argument("--komi", type=_number, default=None, help="cgos: komi (7.0, as CGOS 9x9); arena go: 7.5")
    s.add_argument("--random", action="store_true",
                   help="gnd: pair every client with a random player; cgos: play random moves against a lone client")
    s.add_argument("--rcolor", choices=("red", "blue"), default=None,
                   help="gnd: the random player's colour (default: alternate)")
    s.add_argument("--layout", default="gnd", help="gnd: Dodo starting layout, gnd or steere (gnd)")
    s.add_argument("--penalty", type=_nonnegative, default=0.0, help="gnd: seconds lost per illegal action (0)")
    s.add_argument("--move-timeout", type=_positive, default=2.0, help="twilight: seconds per move (2)")
    s.add_argument("--max-plies", type=_count, default=200, help="twilight: plies per game (200)")
    s.add_argument("--seed", type=_whole, default=None, help="seed of the random battles")
    s.add_argument("--games", type=_count, default=1, help="games per pair of connections (species swap)")
    s.add_argument("--show", action="store_true", help="draw the board after every ply")
    s.set_defaults(func=cmd_serve)

    a = sub.add_parser("arena", help="a match between two players through our server")
    a.add_argument("game", choices=GAMES)
    a.add_argument("--a", required=True, metavar="PLAYER",
                   help=f"NAME[:k=v,...] ({players}; go also gtp:COMMAND, an external GTP engine)")
    a.add_argument("--b", required=True, metavar="PLAYER", help="the other side, as --a")
    a.add_argument("--maps", nargs="+", default=None, help="twilight: maps (default: every shipped map)")
    a.add_argument("--games", type=_count, default=None, help="twilight: games per map (10); gnd, go: games (10)")
    a.add_argument("--move-time", type=_positive, default=None, help="seconds per move (twilight 0.5, go 2)")
    a.add_argument("--size", type=_count, default=None, help="gnd: the hexagon's side (6); go: the board (9)")
    a.add_argument("--komi", type=_number, default=None, help="go: komi (7.5)")
    a.add_argument("--sgf", default=None, metavar="DIR", help="go: write one SGF file per game here")
    a.add_argument("--time", type=_positive, default=None,
                   help="gnd: each player's clock per game (the tournament's / 10: gopher 18, dodo 36)")
    a.add_argument("--layout", default="gnd", help="gnd: Dodo starting layout (gnd)")
    a.add_argument("--overhead", type=_nonnegative, default=None,
                   help="seconds kept back per move (twilight 0.15, gnd 0.1)")
    a.add_argument("--max-plies", type=_count, default=200, help="twilight: plies per game (200)")
    a.add_argument("--parallel", type=_count, default=1, help="maps played at once (1)")
    a.add_argument("--seed", type=_whole, default=1, help="seed of the random battles (1)")
    a.add_argument("--workers", type=_count, default=None, help="search processes (default: all cores)")
    a.add_argument("--json", default=None, help="write every game's record to this file (JSON lines)")
    a.add_argument("--verbose", "-v", action="store_true", help="a line per game")
    a.add_argument("--show", action="store_true", help="draw the board after every ply")
    a.set_defaults(func=cmd_arena)

    b = sub.add_parser("bench", help="search speed and depth per player and position")
    b.add_argument("game", choices=GAMES)
    b.add_argument("--maps", nargs="+", default=None, help="twilight: maps")
    b.add_argument("--sizes", nargs="+", type=_count, default=[4, 6], help="gnd: board sizes (4 6)")
    b.add_argument("--players", nargs="+", default=None,
                   help=f"players to measure ({players}); default twilight: alphabeta expecti planner, "
                        "gnd: alphabeta mcts")
    b.add_argument("--time", type=_positive, default=None, help="seconds per position (twilight 2, gnd 1, go 2)")
    b.add_argument("--scaling", action="store_true",
                   help="twilight: depth and latency on generated 10x10, 20x20, 30x30 maps with 10, 25, 40 camps "
                        "(the players of --players)")
    b.set_defaults(func=cmd_bench)

    g = sub.add_parser("gtp", help="a GTP engine on stdin/stdout (for gogui, twogtp, GNU Go matches, ...)")
    g.add_argument("game", choices=("go",))
    g.add_argument("--player", type=player_spec, default=None, help="NAME or NAME:key=value,... (mcts)")
    g.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="a player option (repeatable)")
    g.add_argument("--workers", type=_count, default=None, help="search processes (default: all cores)")
    g.set_defaults(func=cmd_gtp)

    d = sub.add_parser("daemon", help="run every bot of a config file")
    d.add_argument("--config", required=True, help="a TOML file (see config/bots.toml)")
    d.set_defaults(func=cmd_daemon)

    m = sub.add_parser("demo", help="a local match on our referee, drawn in the terminal")
    m.add_argument("--map", default="map8", help="a map file or a shipped map name (map8)")
    m.add_argument("--player", type=player_spec, default=("planner", ()), help="our player, NAME[:k=v,...] (planner)")
    m.add_argument("--opponent", type=player_spec, default=("greedy", ()), help="the other side (greedy)")
    m.add_argument("--move-time", type=_positive, default=0.5, help="seconds per move (0.5)")
    m.add_argument("--overhead", type=_nonnegative, default=0.15, help="seconds kept back per move (0.15)")
    m.add_argument("--workers", type=_count, default=None, help="search processes (default: all cores)")
    m.set_defaults(func=cmd_demo)

    f = sub.add_parser("fuzz", help="every wire codec against hostile inputs (random, mutated, huge numbers)")
    f.add_argument("--inputs", type=_count, default=1_000_000, help="inputs per codec (1000000)")
    f.add_argument("--seed", type=_whole, default=1, help="random seed, to replay a finding (1)")
    f.add_argument("--codecs", nargs="+", default=None, help="only codecs whose name contains one of these words")
    f.set_defaults(func=cmd_fuzz)

    from .twilight import mapgen

    mapgen.add_parser(sub)  # bots maps generate ...: mapgen.cmd_maps
    return parser


GLOBAL_OPTIONS = ("--log-format", "--log-level")


def _normalise(argv: list[str]) -> list[str]:
    """`bots --game twilight --host H --port P ...` is `bots play twilight --host H ...`, with
    --game anywhere among the options (the global --log-* options stay in front)."""
    game = None
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in COMMANDS and game is None:
            return argv  # a subcommand was named; its own --game (bots serve gnd --game) stays
        if arg == "--game" and i + 1 < len(argv) and game is None:
            game, i = argv[i + 1], i + 2
            continue
        if arg.startswith("--game=") and game is None:
            game, i = arg.split("=", 1)[1], i + 1
            continue
        if arg in GLOBAL_OPTIONS and i + 1 < len(argv):
            front += argv[i:i + 2]
            i += 2
            continue
        (front if arg.split("=", 1)[0] in GLOBAL_OPTIONS else rest).append(arg)
        i += 1
    return argv if game is None else front + ["play", game] + rest


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse a command line, including both short forms of `play` (see _normalise)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(_normalise(list(argv)))
    if extra and args.command == "play" and not args.address and len(extra) == 2 and not extra[0].startswith("-"):
        args.address = extra  # the course convention after options: ... --player P HOST PORT
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    _game_defaults(args)
    return args


# Defaults that depend on the game (None in the parser means "the game's default").
DEFAULTS = {
    ("play", "twilight"): {"player": ("planner", ()), "overhead": 0.3},
    ("play", "gnd"): {"overhead": 0.1},
    ("arena", "twilight"): {"overhead": 0.15, "move_time": 0.5, "games": 10},
    ("arena", "gnd"): {"overhead": 0.1, "games": 10, "size": 6},
    ("arena", "go"): {"games": 10, "move_time": 2.0, "size": 9, "komi": 7.5},
    ("serve", "gnd"): {"size": 6},
    ("serve", "cgos"): {"size": 9, "komi": 7.0, "time": 300.0},
    ("bench", "go"): {"time": 2.0},
    ("bench", "twilight"): {"players": ["alphabeta", "expecti", "planner"], "time": 2.0},
    ("bench", "gnd"): {"players": ["alphabeta", "mcts"], "time": 1.0},
}


def _game_defaults(args: argparse.Namespace) -> None:
    game = getattr(args, "game", None)
    for key, value in DEFAULTS.get((args.command, "gnd" if game in GND else game), {}).items():
        if getattr(args, key, None) is None:
            setattr(args, key, value)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageFailure as exc:
        print(f"bots: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # argparse: --help, or its one-line error (Parser.error)
        return exc.code if isinstance(exc.code, int) else 2
    if args.command != "daemon":
        logsetup.setup(args.log_format or "auto", args.log_level)
    try:
        return args.func(args)
    except (UsageFailure, PlayerError, MapError) as exc:  # bad input found once the command ran
        print(f"bots: error: {exc}", file=sys.stderr)
        return 2
    except Stopped:
        structlog.get_logger("bots").info("stopped by SIGTERM")
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # python -m bots.cli: run the imported module, so that its exception
    from bots.cli import main as _main  # classes are the ones the game commands raise

    sys.exit(_main())
