"""The numba kernel against its pure-Python reference: playout speed side by side in one run.

Run it from a checkout (the reference board is test code, not shipped):

    python -m tests.go.speed [seconds per row, default 2]

Rows, in the shape of `bots bench go`: random playouts from the empty 9x9 board (komi 7.5)
with the pure-Python oracle (tests/go/oracle.py `Board.playout`: uniform, no own-eye
filling), the kernel's light playouts (the same policy) and its heavy ones; ratios are
against the pure-Python playouts.
"""

from __future__ import annotations

import random
import sys
import time

from bots.go.bench import PLAYOUTS, kernel_playouts, table
from bots.go.board import empty
from bots.go.players import warm
from tests.go.oracle import Board


def python_playouts(seconds: float) -> float:
    """Pure-Python playouts per second from the empty 9x9 board, for about `seconds`."""
    state, rng = empty(9), random.Random(1)
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        Board(state).playout(rng)
        n += 1
    return n / (time.perf_counter() - start)


def speed(seconds: float = 2.0) -> str:
    warm()
    base = python_playouts(seconds)
    rows = [("playouts, pure Python (reference)", "empty", base, PLAYOUTS),
            ("playouts, kernel light", "empty", kernel_playouts(seconds, False), PLAYOUTS),
            ("playouts, kernel heavy", "empty", kernel_playouts(seconds, True), PLAYOUTS)]
    return table(seconds, rows, base, "Python")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and not _positive(args[0])):
        print(f"usage: python -m tests.go.speed [seconds per row, default 2]; got {args}", file=sys.stderr)
        return 2
    print(speed(float(args[0]) if args else 2.0))
    return 0


def _positive(text: str) -> bool:
    try:
        return float(text) > 0
    except ValueError:
        return False


if __name__ == "__main__":
    raise SystemExit(main())
