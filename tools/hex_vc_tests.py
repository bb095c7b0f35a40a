"""Benzene's virtual-connection tests against our H-search: which connections it finds.

    python tools/hex_vc_tests.py BENZENE/regression/vc.tst --work 50000 1000000

Benzene's `vc.tst` builds a colour's connections in a position (`loadsgf FILE`, then
`vc-build COLOUR`, after any `play COLOUR CELL`) and asks which points a point is connected to:
`N vc-connected-to POINT COLOUR 0` (VCs) or `... 1` (SCs), a point being a cell or an edge
(`north`, `south` are Black's, `west`, `east` White's).  The answer line lists the points that
must be there, `#? [.*a3.*north.*]`, or one that must not, `#? [!.*south.*]`, with a trailing
`*` when Benzene's own builder is expected to fail.  Each test is answered by
bots.hex.vc.hsearch for that colour at each `--work` limit, with the AND rule joining through
the edges (as the solver's H-search does) and never through them (as the must-play's and the
tree's knowledge do).  Prints a row per test and the totals.  The files and their SGFs stay in
a Benzene checkout (`regression/`); other commands in them are skipped.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

from bots.hex import kernel as K
from bots.hex import vc as V
from bots.hex.board import BLACK, WHITE, State, parse_cell
from hex_regress import COLOURS, EXPECT, TestFileError, position

EDGES = {"north": (BLACK, 0), "south": (BLACK, 1), "west": (WHITE, 0), "east": (WHITE, 1)}  # hsearch's points 0, 1
_QUERY = re.compile(r"^(\d+)\s+vc-connected-to\s+(\S+)\s+(\S+)\s+([01])\s*$", re.IGNORECASE)


def read_tests(path: Path) -> list[dict]:
    """The vc-connected-to tests of a .tst file: {id, sgf, plays, colour, point, semi, names,
    absent, expected_fail}; `names` are the points the answer must hold (or, if `absent`, not)."""
    tests: list[dict] = []
    sgf: Path | None = None
    plays: list[tuple[int, str]] = []
    lines = path.read_text().splitlines()
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        where = f"{path}:{number}"
        words = line.split()
        if not words or line.startswith("#"):
            continue
        if words[0] == "loadsgf":
            sgf, plays = path.parent / words[1], []
        elif words[0] == "play" and len(words) == 3 and words[1].lower() in COLOURS:
            plays.append((COLOURS[words[1].lower()], words[2]))
        m = _QUERY.match(line)
        if m is None:
            continue
        if sgf is None:
            raise TestFileError(f"{where}: vc-connected-to before any loadsgf")
        answer = EXPECT.match(lines[number].strip()) if number < len(lines) else None
        colour = COLOURS.get(m.group(3).lower())
        if answer is None or colour is None:
            raise TestFileError(f"{where}: expected a colour and then the answers line `#? [...]`")
        absent = answer.group(1).startswith("!")
        names = [n for n in answer.group(1).lstrip("!").split(".*") if n]
        tests.append({"id": f"{path.stem}-{m.group(1)}", "sgf": sgf, "plays": list(plays), "colour": colour,
                      "point": m.group(2).lower(), "semi": m.group(4) == "1", "names": names,
                      "absent": absent, "expected_fail": bool(answer.group(2))})
    return tests


def test_state(test: dict) -> State:
    """The test's position: the SGF's, then the `play` commands before the test."""
    state = position(test["sgf"].read_text(), None, test["colour"])
    board = bytearray(state.board)
    for colour, name in test["plays"]:
        board[parse_cell(name, state.width, state.height)] = colour
    return State(state.width, state.height, bytes(board), test["colour"], False, sum(1 for b in board if b), None)


def passes(state: State, test: dict, work: int, edges: bool) -> bool:
    """Whether hsearch answers the test: every named point connected to the test's point (or,
    for an `absent` test, none of them)."""
    pos = K.to_kernel(state)
    n, pid, _, _, nvc, _, nsc = V.hsearch(pos, test["colour"], work, np.bool_(edges))

    def point(name: str) -> int:
        if name in EDGES:
            colour, p = EDGES[name]
            if colour != test["colour"]:
                raise TestFileError(f"{test['id']}: {name} is not an edge of the colour built")
            return p
        return int(pid[K.padded(parse_cell(name, state.width, state.height), state.width)])

    def joined(a: int, b: int) -> bool:
        if n < 0 or a == b:  # the colour's edges are joined already, or the same point
            return True
        if a < 0 or b < 0:  # a cell of the other colour
            return False
        pair = min(a, b) * n + max(a, b)
        return bool((nsc if test["semi"] else nvc)[pair] > 0)

    here = point(test["point"])
    return all(joined(here, point(name)) != test["absent"] for name in test["names"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("files", nargs="+", type=Path, help="Benzene .tst files with vc-connected-to tests")
    p.add_argument("--work", nargs="+", type=int, default=[V.WORK], help=f"AND steps, one column each ({V.WORK})")
    args = p.parse_args(argv)
    columns = [(w, e) for w in args.work for e in (True, False)]
    try:
        tests = [t for f in args.files for t in read_tests(f)]
        print(f"{'test':<12}{'asks':<28}" + "".join(f"{f'{w:,}' + (' edges' if e else ' no edge'):>18}"
                                                     for w, e in columns))
        passed = [0] * len(columns)
        for test in tests:
            state = test_state(test)
            marks = [passes(state, test, w, e) for w, e in columns]
            passed = [a + b for a, b in zip(passed, marks, strict=True)]
            asks = f"{test['point']} {'!' if test['absent'] else ''}{','.join(test['names'])}"
            asks += " (SC)" if test["semi"] else ""
            asks += " *" if test["expected_fail"] else ""
            print(f"{test['id']:<12}{asks[:27]:<28}" + "".join(f"{'ok' if m else '-':>18}" for m in marks))
        print(f"{'passed':<40}" + "".join(f"{f'{k} of {len(tests)}':>18}" for k in passed))
    except (OSError, TestFileError, ValueError) as exc:
        print(f"hex_vc_tests: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
