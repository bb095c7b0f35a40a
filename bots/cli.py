"""The `bots` command.

    bots demo                                   a local match drawn in the terminal
    bots play twilight --host H --port P        play on a server (or: ... H P, last two)
    bots --game twilight --host H --port P      the same, as `docker run bots ...` passes it
    bots serve twilight --map FILE --port P     our referee with the official semantics
    bots arena twilight --a P --b P --maps ...  a match between two players, with a report
    bots bench twilight                         search speed and depth per player and map
    bots tournament twilight --players A B C    a round robin with ratings, a report, resumable
    bots gtp go [--player mcts]                 a Go engine speaking GTP on stdin/stdout
    bots play go --cgos HOST:PORT --name N      play 9x9 Go on a CGOS server
    bots play hex --a human --b mcts            a game of Hex in the terminal
    bots htp hex [--player mcts]                a Hex engine speaking HTP (HexGui, MoHex)
    bots maps generate W H HOMES [--seed N]     a fair random Twilight map (official XML)
    bots fuzz [--inputs N]                      every wire codec against hostile inputs
    bots soak [--moves 1000]                    four bots of three games share the workers: a table
    bots daemon --config FILE                   every bot of a TOML file, concurrently
    bots status [--url URL]                     what a running daemon's bots are doing
    bots replay FILE [--to-png OUT.png]         step through a game saved with --record DIR
    bots warm [GAME...]                         compile every game's kernels now (an image, a service)

Every `play` and `arena` takes `human` as a player: you, at this terminal (bots.human).
`play`, `arena`, `bench` and `tournament` are built from each game's hooks (bots.registry).

Exit codes: 0 done (or a person typed quit), 1 a failure while running (e.g. server
unreachable), 2 bad input (arguments, map, config), 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

import structlog

from . import log as logsetup
from . import registry
from .cmdline import UsageFailure, count, page, positive, whole
from .human import Quit
from .loop import Stopped
from .loop import run as _run
from .players import PlayerError


# -- commands that every game shares ----------------------------------------------------------


def cmd_daemon(args: argparse.Namespace) -> int:
    from . import daemon, settings

    path = args.check or args.config
    try:
        config = settings.load(path)
    except settings.SettingsError as exc:
        raise UsageFailure(str(exc)) from None
    if args.check:
        bots = ", ".join(f"{b.bot.name} ({b.game} on {b.bot.address})" for b in config.bots)
        page = f"; status page on {config.status.host}:{config.status.port}" if config.status else ""
        print(f"{path}: OK: {len(config.bots)} bot(s): {bots}{page}")
        return 0
    logsetup.setup(args.log_format or config.log_format, config.log_level)
    return _run(daemon.run(config, path))


def cmd_status(args: argparse.Namespace) -> int:
    from . import status_cli

    return status_cli.run(args.url, args.token_env, args.json)


def cmd_soak(args: argparse.Namespace) -> int:
    from . import soak

    known = [name for name, game in registry.games().items() if game.has_server]
    unknown = [g for g in args.bots if g not in known]
    if unknown:
        raise UsageFailure(f"no practice server for game {unknown[0]!r} in --bots (known: {', '.join(known)})")
    if args.page:
        try:
            soak.browser()
        except OSError as exc:
            raise UsageFailure(str(exc)) from None
    print(soak.run(tuple(args.bots), args.moves, args.workers, args.move_time, args.log_format or "auto",
                   args.neighbours, args.page), flush=True)
    return 0


def cmd_warm(args: argparse.Namespace) -> int:
    import time

    from . import cache

    names = args.games or list(registry.names())
    for name in names:
        try:
            registry.get(name)  # before anything compiles
        except registry.UnknownGame as exc:
            raise UsageFailure(str(exc)) from None
    directory = cache.configure_numba()
    print(f"kernel cache: {directory or 'none (nothing can be written)'}" + (f" ({cache.NOTE})" if cache.NOTE else ""))
    print(f"{'game':<10} {'seconds':>8}")
    for name in names:
        started = time.monotonic()
        registry.get(name).warm()
        print(f"{name:<10} {time.monotonic() - started:>8.1f}", flush=True)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    import os

    from . import plotting, replay

    if args.to_png:
        try:
            plotting.require("--to-png")
        except ImportError as exc:
            raise UsageFailure(str(exc)) from None
    if args.to_png and os.path.lexists(args.to_png):
        raise UsageFailure(f"{args.to_png} already exists; name another --to-png file (nothing is overwritten)")
    try:
        game = replay.load(args.file)
        move = replay.move_number(game, args.move)
    except replay.ReplayError as exc:
        raise UsageFailure(str(exc)) from None
    if not args.to_png:
        replay.browse(game, move if args.move is not None else 0)
        return 0
    try:
        replay.to_png(game, move, args.to_png)
    except OSError as exc:
        raise UsageFailure(f"cannot write {args.to_png}: {exc.strerror or exc}") from None
    print(f"{args.to_png}: {replay.caption(game, move).splitlines()[0]}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    print(registry.get(args.game).module("bench").run(args), flush=True)
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    from .fuzz import run

    table, findings = run(args.inputs, args.seed, args.codecs)
    print(table)
    return 1 if findings else 0


# -- parser ---------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    """Bad input is one line on stderr and exit status 2, never a usage dump or a traceback."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"bots: error: {message} (see: {self.prog} --help)\n")


# Commands whose second word is a game (or a server, or an engine) from the registry: what each
# does, and examples across the games.
PER_GAME = {
    "play": ("GAME", "play on a server: one bot, as the daemon plays it (Hex: a game in the terminal)",
             ["bots play twilight --host 127.0.0.1 --port 5555", "bots play go --cgos yss-aya.com:6809 --name N "
              "--password PW", "bots play hex --a human --b mcts"]),
    "serve": ("SERVER", "run our server (official semantics) for practice and tests",
              ["bots serve twilight --map map8 --port 5555", "bots serve gnd --game gopher --random"]),
    "arena": ("GAME", "a match between two players, with a report",
              ["bots arena twilight --a planner --b greedy --maps map8",
               "bots arena hex --a human --b mcts --games 1"]),
    "bench": ("GAME", "search speed and depth per player and position",
              ["bots bench go", "bots bench twilight --maps map8 --players planner"]),
    "gtp": ("GAME", "an engine speaking GTP on stdin/stdout", ["bots gtp go --player mcts"]),
    "htp": ("GAME", "an engine speaking HTP (Hex's dialect of GTP) on stdin/stdout", ["bots htp hex"]),
    "tournament": ("GAME", "a round robin or gauntlet of many participants, with ratings and a report",
                   ["bots tournament gopher --players alphabeta mcts random --report out/"]),
}
COMMANDS = (*PER_GAME, "daemon", "status", "demo", "maps", "fuzz", "soak", "replay", "warm")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="bots", description="Plays board games against tournament servers.",
                    formatter_class=argparse.RawDescriptionHelpFormatter,
                    epilog="examples:\n" + __doc__.split("\n\n")[1])
    parser.add_argument("--log-format", choices=("auto", "console", "json"), default=None,
                        help="log format on stderr (default: console on a terminal, JSON otherwise)")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"),
                        help="the least important log lines shown (info)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    targets = {}
    for command, (metavar, text, examples) in PER_GAME.items():
        p = page(sub, command, text, examples)
        targets[command] = p.add_subparsers(dest="game", required=True, metavar=metavar, parser_class=Parser)
    from . import arena, playing
    from .tournament import command as tournament

    added: set = set()
    for game in registry.games().values():  # the hooks of every game, then what each game alone has
        if game.has_server:
            playing.add_parser(targets["play"], game)
        arena.add_parser(targets["arena"], game)
        tournament.add_parser(targets["tournament"], game)
        bench = page(targets["bench"], game.name, f"{game.name} search speed, a table", [f"bots bench {game.name}"],
                     f"{game.name.capitalize()} search speed: a table of playouts, iterations or nodes per second, "
                     "and depths, measured side by side in one run on one core.")
        game.module("bench").add_arguments(bench, game.name)
        bench.set_defaults(func=cmd_bench)
        for (command, target), add in game.module("commands").commands(game.name).items():
            if (command, target) not in added:
                added.add((command, target))
                add(targets[command] if target else sub)

    d = page(sub, "daemon", "run every bot of a config file",
             ["bots daemon --config config/bots.toml", "bots daemon --check config/bots.toml",
              "kill -HUP $(pidof -s bots)    # or: systemctl reload bots@NAME"],
             "Runs every [[bot]] of a TOML config on one event loop, sharing one pool of search workers: each "
             "bot plays its server's games, a server that is down or drops is retried with backoff, garbage "
             "from a server stops only that bot.  SIGTERM or Ctrl-C stops them all.  SIGHUP re-reads the "
             "config: new bots start, removed bots stop after their game in progress, changed bots restart "
             "after it, the others are not touched; a config with an error is refused (one log line) and "
             "the bots go on.  With a [status] table it serves a live status page, /metrics and /healthz.")
    which = d.add_mutually_exclusive_group(required=True)
    which.add_argument("--config", help="a TOML file (see config/bots.toml)")
    which.add_argument("--check", metavar="CONFIG",
                       help="only check CONFIG: print its bots and exit 0, or its first error and exit 2")
    d.set_defaults(func=cmd_daemon)

    st = page(sub, "status", "what a running daemon's bots are doing, from its status page",
              ["bots status", "bots status --url http://10.0.0.5:8765 --token-env BOTS_STATUS_TOKEN"],
              "Prints a line per bot of a running daemon (state, today's games, the game in progress, the "
              "latest error) and one for its worker pool, from the status page's JSON (the config's "
              "[status] listen).  Exit status: 0 all bots healthy, 1 a bot is failing, 3 the page cannot "
              "be reached.")
    st.add_argument("--url", default="http://127.0.0.1:8765", help="the status page (http://127.0.0.1:8765)")
    st.add_argument("--token-env", default=None, metavar="VARIABLE",
                    help="the environment variable holding the page's token (needed off loopback)")
    st.add_argument("--json", action="store_true", help="print the page's JSON instead of the table")
    st.set_defaults(func=cmd_status)

    f = page(sub, "fuzz", "every wire codec against hostile inputs (random, mutated, huge numbers)",
             ["bots fuzz --inputs 100000 --codecs twilight"],
             "Feeds every wire codec random, mutated and oversized inputs and prints a table per codec; any "
             "input that raises something other than the codec's ProtocolError is a finding (exit 1).")
    f.add_argument("--inputs", type=count, default=1_000_000, help="inputs per codec (1000000)")
    f.add_argument("--seed", type=whole, default=1, help="random seed, to replay a finding (1)")
    f.add_argument("--codecs", nargs="+", default=None, help="only codecs whose name contains one of these words")
    f.set_defaults(func=cmd_fuzz)

    r = page(sub, "replay", "step through a recorded game (--record DIR) in the terminal, or draw it",
             ["bots replay games/20261126T120000Z-twilight-map8-planner-vs-greedy-0.json",
              "bots replay game.sgf --to-png final.png"],
             description="Rebuilds every position of a game record (JSON, or SGF for Go and Hex) with our rules "
                         "and steps through it: Enter or n next, p previous, a number jumps to that move, q quits.  "
                         "Commands are read line by line when stdin is not a terminal.")
    r.add_argument("file", metavar="FILE", help="a record written with --record DIR (.json or .sgf)")
    r.add_argument("--to-png", default=None, metavar="OUT.png", help="draw the final board (or --move N) as a PNG")
    r.add_argument("--move", type=whole, default=None, metavar="N",
                   help="the move to start at, or to draw with --to-png (0 = the start; default: the start, "
                        "or the last move for --to-png)")
    r.set_defaults(func=cmd_replay)

    w = page(sub, "warm", "compile (or load) the games' search kernels into the cache now", ["bots warm go hex"],
             description="Compiles every named game's numba kernels (default: every game) into the kernel cache, "
                         "so that no later start compiles them: run it once after an install, in an image's build, "
                         "or before a service starts.  Engines and clients never wait for this: they answer at "
                         "once and compile in the background.  Prints the cache directory and the seconds per game.")
    w.add_argument("games", nargs="*", metavar="GAME",
                   help=f"games to warm (default: all of {', '.join(registry.names())})")
    w.set_defaults(func=cmd_warm)

    k = page(sub, "soak", "bots of several games share the workers, each on a local server of ours; a table of "
                          "moves, fallbacks and latency per bot", ["bots soak --moves 1000 --neighbours 2"])
    k.add_argument("--moves", type=count, default=1000, help="stop after this many moves of the four bots (1000)")
    k.add_argument("--workers", type=count, default=2, help="search processes shared by the bots (2)")
    k.add_argument("--move-time", type=positive, default=2.0, help="Twilight seconds per move (2)")
    k.add_argument("--neighbours", type=whole, default=0, metavar="N",
                   help="busy processes competing for the cores meanwhile, at our priority (0)")
    k.add_argument("--bots", nargs="+", default=["twilight", "twilight", "go", "gopher"], metavar="GAME",
                   help="one bot per game named, each on its own local server (twilight twilight go gopher)")
    k.add_argument("--page", action="store_true",
                   help="serve the daemon's status page for these bots and keep it open in headless Chromium "
                        "meanwhile (what the page costs)")
    k.set_defaults(func=cmd_soak)
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
    if extra and getattr(args, "address", None) == [] and len(extra) == 2 and not extra[0].startswith("-"):
        args.address = extra  # the course convention after options: ... --player P HOST PORT
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


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
    except (UsageFailure, PlayerError) as exc:  # bad input found once the command ran
        print(f"bots: error: {exc}", file=sys.stderr)
        return 2
    except Stopped:
        structlog.get_logger("bots").info("stopped by SIGTERM")
        return 0
    except Quit:  # a person at the keyboard typed quit, or ended the input (bots.human)
        print("\nGame left unfinished.", flush=True)
        return 0
    except KeyboardInterrupt:
        structlog.get_logger("bots").info("stopped by Ctrl-C")
        return 130


if __name__ == "__main__":  # python -m bots.cli: run the imported module, so that its exception
    from bots.cli import main as _main  # classes are the ones the game commands raise

    sys.exit(_main())
