"""A tiny scripted GTP engine for the arena tests (stdlib only, run as a script).

    python fake_gtp_engine.py good              first empty point that is not suicide, no
                                                repetition and not its own eye; else pass
    python fake_gtp_engine.py illegal           like good, but its 3rd genmove answers an
                                                occupied point
    python fake_gtp_engine.py garbage           every genmove answers `= zz99`
    python fake_gtp_engine.py crash             exits (code 3, a line on stderr) at its 2nd genmove
    python fake_gtp_engine.py slow [S] [N]      like good, but sleeps S seconds (default 1) before
                                                each of its first N genmove answers (default all),
                                                saying `fake engine: thinking` on stderr first
    python fake_gtp_engine.py resign            its first genmove answers `resign`
    python fake_gtp_engine.py refuse            like good, but answers `? illegal move` to every play
    python fake_gtp_engine.py nosize            like good, but answers `? unacceptable size` to
                                                every boardsize

It keeps its own board (captures, suicide and positional repetition, nothing more), so the
moves of `good` are legal under our rules too.  Genmoves are counted per game (clear_board
resets the count).
"""

from __future__ import annotations

import sys
import time

LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
COMMANDS = ("protocol_version", "name", "version", "known_command", "list_commands", "quit",
            "boardsize", "clear_board", "komi", "play", "genmove", "time_settings", "time_left")


class Game:
    def __init__(self, size: int = 9) -> None:
        self.size = size
        self.board: dict[tuple[int, int], str] = {}
        self.seen = {frozenset()}

    def neighbours(self, p):
        c, r = p
        for q in ((c - 1, r), (c + 1, r), (c, r - 1), (c, r + 1)):
            if 0 <= q[0] < self.size and 0 <= q[1] < self.size:
                yield q

    def group(self, board, p):
        colour, stones, libs, todo = board[p], {p}, set(), [p]
        while todo:
            for q in self.neighbours(todo.pop()):
                if q not in board:
                    libs.add(q)
                elif board[q] == colour and q not in stones:
                    stones.add(q)
                    todo.append(q)
        return stones, libs

    def after(self, colour, p):
        """The board after `colour` plays p, or None if p is occupied, suicide or a repeat."""
        if p in self.board:
            return None
        board = dict(self.board)
        board[p] = colour
        for q in self.neighbours(p):
            if board.get(q) not in (None, colour):
                stones, libs = self.group(board, q)
                if not libs:
                    for s in stones:
                        del board[s]
        if not self.group(board, p)[1] or frozenset(board.items()) in self.seen:
            return None
        return board

    def play(self, colour, p) -> bool:
        if p is None:
            return True
        board = self.after(colour, p)
        if board is None:
            return False
        self.board = board
        self.seen.add(frozenset(board.items()))
        return True

    def own_eye(self, colour, p):
        return all(self.board.get(q) == colour for q in self.neighbours(p))

    def choose(self, colour):
        for r in range(self.size):
            for c in range(self.size):
                p = (c, r)
                if not self.own_eye(colour, p) and self.after(colour, p) is not None:
                    return p
        return None


def vertex(p) -> str:
    return "pass" if p is None else f"{LETTERS[p[0]]}{p[1] + 1}"


def parse(text: str, size: int):
    t = text.upper()
    if t == "PASS":
        return None
    c, r = LETTERS.index(t[0]), int(t[1:]) - 1
    if not (0 <= c < size and 0 <= r < size):
        raise ValueError(text)
    return c, r


def main(argv: list[str]) -> int:
    mode = argv[1] if len(argv) > 1 else "good"
    sleep = float(argv[2]) if len(argv) > 2 else 1.0
    slow_count = int(argv[3]) if len(argv) > 3 else 10 ** 9
    game = Game()
    genmoves = 0
    for raw in sys.stdin:
        words = raw.split("#")[0].split()
        if not words:
            continue
        ident = words.pop(0) if words[0].isdigit() else ""
        name, args = words[0], words[1:]
        ok, text = True, ""
        if name == "protocol_version":
            text = "2"
        elif name == "name":
            text = f"fake-{mode}"
        elif name == "version":
            text = "1"
        elif name == "known_command":
            text = "true" if args and args[0] in COMMANDS else "false"
        elif name == "list_commands":
            text = "\n".join(COMMANDS)
        elif name == "quit":
            sys.stdout.write(f"={ident} \n\n")
            sys.stdout.flush()
            return 0
        elif name == "boardsize" and mode == "nosize":
            ok, text = False, "unacceptable size"
        elif name == "boardsize":
            game = Game(int(args[0]))
        elif name == "clear_board":
            game = Game(game.size)
            genmoves = 0  # the scripted misbehaviour happens in every game
        elif name in ("komi", "time_settings", "time_left"):
            pass
        elif name == "play" and mode == "refuse":
            ok, text = False, "illegal move"
        elif name == "play":
            try:
                ok = game.play(args[0][0].lower(), parse(args[1], game.size))
            except (ValueError, IndexError):
                ok = False
            text = "" if ok else "illegal move"
        elif name == "genmove":
            genmoves += 1
            colour = args[0][0].lower()
            if mode == "crash" and genmoves == 2:
                sys.stderr.write("fake engine: crashing on purpose\n")
                sys.stderr.flush()
                return 3
            if mode == "garbage":
                text = "zz99"
            elif mode == "resign":
                text = "resign"
            elif mode == "illegal" and genmoves == 3:
                text = vertex(next(iter(game.board)))
            else:
                if mode == "slow" and genmoves <= slow_count:
                    sys.stderr.write(f"fake engine: thinking for {sleep:g} s\n")  # tests wait for this
                    sys.stderr.flush()
                    time.sleep(sleep)
                p = game.choose(colour)
                game.play(colour, p)
                text = vertex(p)
        else:
            ok, text = False, "unknown command"
        sys.stdout.write(f"{'=' if ok else '?'}{ident} {text}\n\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
