"""The Hex terminal player (bots.hex.human on the shared bots.human dialogue): scripted streams,
then a real pseudo-terminal."""

from __future__ import annotations

import io
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from protocol.errors import UsageError
from search.budget import Budget

from bots.hex import board as B
from bots.hex.human import Human
from bots.human import Quit

REPO = Path(__file__).resolve().parents[2]


def ask(state, script):
    out = io.StringIO()
    move = Human().streams(io.StringIO(script), out).choose(state, None, Budget(0.0)).move
    return move, out.getvalue()


def test_a_cell_name_and_the_board_drawn_the_seed_way():
    s = B.from_moves(5, ["a1"])
    move, out = ask(s, "c2\n")
    assert move == B.parse_cell("c2", 5, 5)
    assert B.render(s) in out and "Last move: a1." in out
    assert "White (left to right), your move" in out and "from 0 like the seed" in out


def test_the_seeds_x_then_y():
    s = B.empty(5, 4)  # 5 columns, 4 rows: x (the row) 0-3, y (the column) 0-4
    move, out = ask(s, "3 4\n")
    assert move == B.from_seed(3, 4, 5) == B.parse_cell("e4", 5, 4)
    assert "X the row 0-3" in out and "Y the column 0-4" in out
    assert ask(s, "1,2\n")[0] == B.from_seed(1, 2, 5)


def test_bad_input_is_explained_and_asked_again():
    s = B.from_moves(5, ["b2"])
    script = "\n".join(["", "z9", "a9", "5 0", "0 -1", "1 2 3", "hello", "b2", "1 1", "swap", "d4"]) + "\n"
    move, out = ask(s, script)
    assert move == B.parse_cell("d4", 5, 5)
    assert out.count("your move") == 11  # the first prompt and ten explanations later
    assert "Type a move" in out
    assert "'z9' is not a cell" in out
    assert "'a9' is off the 5x5 board" in out
    assert "(5, 0) is off the board" in out and "(0, -1) is off the board" in out
    assert "'1 2 3' is not a move" in out and "'hello' is not a cell" in out
    assert out.count("This cell is not free: b2 is taken.") == 2  # by name and as 1 1
    assert "A swap is not possible now" in out


def test_swap_when_legal():
    s = B.from_moves(5, ["b2"], swap=True)
    move, out = ask(s, "swap\n")
    assert move == B.SWAP and ", or swap" in out
    assert "or swap" not in ask(B.empty(5, swap=True), "a1\n")[1]  # not on the first move


@pytest.mark.parametrize("script", ["", "a9\n", "quit\n"])
def test_end_of_input_or_quit_raises_quit(script):
    with pytest.raises(Quit):
        ask(B.empty(3), script)


def test_ctrl_c_raises_quit():
    class Interrupted(io.StringIO):
        def readline(self, *args):
            raise KeyboardInterrupt

    with pytest.raises(Quit, match="Ctrl-C"):
        Human().streams(Interrupted(), io.StringIO()).choose(B.empty(3), None, Budget(0.0))


def test_no_move_on_a_finished_game():
    s = B.from_moves(2, ["a1", "b1", "a2"])
    assert s.is_terminal()
    with pytest.raises(UsageError):
        Human().streams(io.StringIO("b2\n"), io.StringIO()).choose(s, None, Budget(0.0))


def test_the_budget_does_not_hurry_a_person():
    class Slow(io.StringIO):
        def readline(self, *args):
            time.sleep(0.05)
            return "a1\n"

    result = Human().streams(Slow(), io.StringIO()).choose(B.empty(3), None, Budget(0.0))
    assert result.move == 0 and result.elapsed >= 0.05


# -- a real terminal ---------------------------------------------------------------------------

CHILD = """
import sys
from bots.hex.board import from_moves
from bots.hex.human import Human
from bots.human import Quit
from search.budget import Budget
state = from_moves(5, ["a1"])
print("TTY:", sys.stdin.isatty() and sys.stdout.isatty(), flush=True)
try:
    move = Human(colour=False).choose(state, None, Budget(0.0)).move
except Quit as exc:
    print("QUIT:", exc, flush=True)
    sys.exit(3)
print("MOVE:", state.name(move), flush=True)
"""


class Terminal:
    """The child script on the slave side of a new pseudo-terminal (its controlling tty)."""

    def __init__(self):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child
            try:
                # A shell gives its foreground command Ctrl-C's default; pytest may have been started with
                # SIGINT ignored (a background job), and an ignored signal stays ignored across exec.
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.chdir(REPO)
                os.execve(sys.executable, [sys.executable, "-c", CHILD], env)
            finally:
                os._exit(127)
        self.seen = ""

    def expect(self, text, timeout=20.0):
        end = time.monotonic() + timeout
        while text not in self.seen:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} not seen; the terminal showed:\n{self.seen}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"{text!r} not seen before the end; the terminal showed:\n{self.seen}")
                self.seen += chunk.decode(errors="replace").replace("\r\n", "\n")
        return self.seen

    def send(self, data: bytes):
        os.write(self.fd, data)

    def status(self):
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def test_through_a_pseudo_terminal():
    t = Terminal()
    t.expect("your move")
    assert "TTY: True" in t.seen
    assert " 1 B - - - -" in t.seen  # the seed's board with a1 taken
    t.send(b"0 0\n")
    t.expect("This cell is not free: a1 is taken.")
    t.send(b"1 2\n")
    t.expect("MOVE: c2")
    assert t.status() == 0


@pytest.mark.parametrize("key,why", [(b"\x04", "end of input"), (b"\x03", "interrupted (Ctrl-C)")])
def test_ctrl_d_and_ctrl_c_at_a_terminal_end_cleanly(key, why):
    t = Terminal()
    t.expect("your move")
    t.send(key)
    t.expect(f"QUIT: {why}")
    assert t.status() == 3
    assert "Traceback" not in t.seen
