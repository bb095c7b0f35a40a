"""Benzene's Hex regression tests against our players: which positions they play right.

    python tools/hex_regress.py BENZENE/regression/endgame.tst [more.tst ...] \\
        --players mcts mcts:mustplay=true --time 5

Benzene (MoHex's and Wolve's project) keeps its engine tests as GTP regression files: a
position (`loadsgf FILE [N]`), a numbered `genmove COLOUR` (or `reg_genmove`), then the
answers it accepts, `#? [REGEX]`, with a trailing `*` when Benzene's own engines are expected to
fail it.  The files and their SGFs are not in this repo: point this tool at a checkout of
Benzene (for example `cgao3/benzene-vanilla-cmake`, its `regression/` directory).  Other
commands (its engines' settings) and other kinds of test (`vc-...`, solver commands) are
skipped.

Each test position is built from the SGF's setup stones (AB, AW, AE) and moves (B, W), the
colour to move is the genmove's, and each player chooses in this process with `--time`
seconds (one core).  Every move is checked by our rules first.  Prints a row per test (the
answers, each player's move, a mark when it is accepted) and each player's total; the same
numbers with `--json FILE`.  Benzene's notes give its engines' marks: in endgame.tst Wolve
passes 22 of 39 and MoHex about 23; in opening.tst MoHex passes about 10 to 13 of 16.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from bots.cmdline import positive
from bots.hex.board import BLACK, EMPTY, WHITE, State, cell_name, parse_cell
from bots.hex.sgf import board_size
from bots.players import make_player, parse_spec
from bots.sgf import nodes, one
from search.budget import Budget

COLOURS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}
_GENMOVE = re.compile(r"^(\d+)\s+(?:reg_)?genmove\s+(\S+)\s*$", re.IGNORECASE)
EXPECT = re.compile(r"^#\?\s*\[(.*)\](\*?)\s*$")  # the answers line `#? [...]` (also read by hex_vc_tests)


class TestFileError(ValueError):
    """A .tst or SGF file this tool cannot read; the message names the file and line."""


def position(sgf_text: str, upto: int | None, to_move: int) -> State:
    """The position of a Benzene test SGF: setup stones and moves (the first `upto` moves
    when given, as GTP's `loadsgf FILE N` loads the position before move N)."""
    tree = nodes(sgf_text)
    width, height = board_size(tree[0])
    board = bytearray(width * height)
    moves, last = 0, None
    for node in tree:
        played = [(key, colour) for key, colour in (("B", BLACK), ("W", WHITE)) if key in node]
        if played and upto is not None and moves + 1 >= upto:
            break  # the position before move `upto`: nothing after it counts
        for key, colour in (("AB", BLACK), ("AW", WHITE), ("AE", EMPTY)):
            for name in node.get(key, ()):
                board[parse_cell(name, width, height)] = colour
        for key, colour in played:
            cell = parse_cell(one(node, key) or "", width, height)
            if board[cell] != EMPTY:
                raise ValueError(f"{key}[{cell_name(cell, width)}] is played on a stone")
            board[cell], last, moves = colour, cell, moves + 1
    stones = sum(1 for b in board if b)
    return State(width, height, bytes(board), to_move, False, stones, last)


def read_tests(path: Path) -> list[dict]:
    """The genmove tests of one .tst file: {id, sgf, upto, colour, answers, expected_fail}."""
    tests: list[dict] = []
    sgf: tuple[Path, int | None] | None = None
    pending: dict | None = None
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        where = f"{path}:{number}"
        if pending is not None:
            m = EXPECT.match(line)
            if m is None:
                raise TestFileError(f"{where}: expected the answers line `#? [...]` after test {pending['id']}")
            pending.update(answers=m.group(1), expected_fail=bool(m.group(2)))
            tests.append(pending)
            pending = None
            continue
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if words[0] == "loadsgf":
            if len(words) not in (2, 3) or (len(words) == 3 and not words[2].isdigit()):
                raise TestFileError(f"{where}: loadsgf takes a file and an optional move number")
            sgf = (path.parent / words[1], int(words[2]) if len(words) == 3 else None)
            continue
        m = _GENMOVE.match(line)
        if m:
            if sgf is None:
                raise TestFileError(f"{where}: genmove before any loadsgf")
            colour = COLOURS.get(m.group(2).lower())
            if colour is None:
                raise TestFileError(f"{where}: {m.group(2)!r} is not a colour")
            pending = {"id": f"{path.stem}-{m.group(1)}", "sgf": sgf[0], "upto": sgf[1], "colour": colour}
    return tests


def run(tests: list[dict], specs: list[str], seconds: float) -> dict:
    """Play every test with every player; print a row per test and the totals; the report."""
    players = [make_player("hex", *parse_spec(spec)) for spec in specs]
    passed = {spec: 0 for spec in specs}
    entries: list[dict] = []
    width = max(12, *(len(s) + 2 for s in specs))
    print(f"{'test':<32}{'accepts':<28}" + "".join(f"{s:<{width}}" for s in specs), flush=True)
    for test in tests:
        try:
            state = position(test["sgf"].read_text(), test["upto"], test["colour"])
            accepts = re.compile(test["answers"], re.IGNORECASE)
        except (OSError, ValueError, re.error) as exc:
            raise TestFileError(f"{test['id']}: {test['sgf']}: {exc}") from None
        cells = []
        entry = {"id": test["id"], "answers": test["answers"], "expected_fail": test["expected_fail"], "moves": {}}
        for spec, player in zip(specs, players, strict=True):
            move = player.choose(state, None, Budget(seconds)).move
            name = state.name(state.check(move))  # our rules first: an illegal move raises here
            ok = accepts.fullmatch(name) is not None
            passed[spec] += ok
            cells.append(f"{name + (' ok' if ok else ''):<{width}}")
            entry["moves"][spec] = {"move": name, "ok": ok}
        entries.append(entry)
        label = test["answers"] + (" (Benzene: hard)" if test["expected_fail"] else "")
        print(f"{test['id']:<32}{label[:27]:<28}" + "".join(cells), flush=True)
    print(f"{'passed':<60}" + "".join(f"{f'{passed[s]} of {len(tests)}':<{width}}" for s in specs))
    return {"time": seconds, "tests": entries, "passed": passed}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("files", nargs="+", type=Path, help="Benzene .tst files")
    p.add_argument("--players", nargs="+", default=["mcts"], help="hex players, NAME or NAME:key=value,... (mcts)")
    p.add_argument("--time", type=positive, default=5.0, help="seconds a move (5)")
    p.add_argument("--json", type=Path, help="write the results here")
    args = p.parse_args(argv)
    try:
        tests = [t for f in args.files for t in read_tests(f)]
        report = run(tests, args.players, args.time)
    except (OSError, TestFileError, ValueError) as exc:
        print(f"hex_regress: {exc}", file=sys.stderr)
        return 2
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
