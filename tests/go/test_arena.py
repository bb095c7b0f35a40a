"""The Go match runner: SGF files, the GTP engine controller and the arena.

External engines are tests/go/fake_gtp_engine.py (scripted misbehaviours) and, when it is
installed, GNU Go.  One SearchRunner(1) serves the whole file.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.go import board
from bots.go import match
from bots.go.arena import GtpSide, OurSide, match_side, parse_side, play_game
from bots.go.handicap import fixed_points
from bots.gtp_client import EngineError, GtpProcess
from bots.go.sgf import game_sgf, parse_moves, sgf_point
from bots.matches import Side, Watch, report, summarise
from bots.runner import SearchRunner
from protocol.gtp import parse_vertex
from tests.helpers import until

FAKE = str(Path(__file__).with_name("fake_gtp_engine.py"))
GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)
needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed")
amod = pytest.mark.asyncio(loop_scope="module")


def fake(*mode: str) -> list[str]:
    return [sys.executable, FAKE, *mode]


def fake_spec(*mode: str) -> str:
    """The fake engine as a participant names it on the command line."""
    return "gtp:" + " ".join([sys.executable, FAKE, *mode])


async def run_arena(a: str, b: str, games: int, runner, size: int = 9, per_move: float = 2.0,
                    game_time: float | None = None, sgf_dir: Path | None = None) -> list[dict]:
    """`games` games through Go's match hooks as `bots arena go` plays them: A Black in even
    games, a new engine process per game; each record's SGF written to `sgf_dir` ("sgf")."""
    records = []
    for index in range(games):
        first, second, labels = (a, b, ("A", "B")) if index % 2 == 0 else (b, a, ("B", "A"))
        record = await match.play_one(first, second, str(size), {"komi": 7.5, "move_time": per_move,
                                                                  "game_time": game_time}, 1, runner, Watch(labels))
        if sgf_dir is not None:
            sgf_dir.mkdir(exist_ok=True)
            record["sgf"] = str(sgf_dir / f"game{index}.sgf")
            Path(record["sgf"]).write_text(record["sgf_text"], encoding="utf-8")
        records.append(record)
    return records


async def thinking(proc: GtpProcess) -> None:
    """Until a `slow` fake engine has its genmove: it says so on stderr, then sleeps."""
    await until(lambda: "thinking" in proc.stderr_tail(), timeout=10, what="the engine got its genmove")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def go_runner():
    async with SearchRunner(1) as runner:
        yield runner


def engine_children() -> list[str]:
    """Our child processes that are engines, or zombies (whose cmdline is empty)."""
    me, out = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        state, ppid = stat[stat.rindex(")") + 2:].split()[:2]
        if int(ppid) == me and (state == "Z" or "fake_gtp_engine" in cmd or "gnugo" in cmd):
            out.append(f"{entry} {state} {cmd}")
    return out


def processes_with(marker: str) -> list[str]:
    """Every process on the machine whose command line contains `marker`."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in cmd:
                out.append(f"{entry} {cmd}")
    return out


def replay(record: dict, path: str) -> board.State:
    """The SGF file of a record, replayed by our rules (IllegalMove if a move is illegal)."""
    text = Path(path).read_text(encoding="utf-8")
    size, komi, moves = parse_moves(text)
    assert (size, komi, moves) == (record["size"], record["komi"], record["moves"])
    assert re.search(r"RE\[([^\]]*)\]", text).group(1) == record["result"]
    return board.from_moves(size, moves, komi)


# -- SGF -----------------------------------------------------------------------------------------------

def test_sgf_coordinates():
    assert sgf_point("A1", 9) == "ai"
    assert sgf_point("J9", 9) == "ia"
    assert sgf_point("E5", 9) == "ee"
    assert sgf_point("J1", 9) == "ii"
    assert sgf_point(0, 9) == "ai" and sgf_point(80, 9) == "ia"
    assert sgf_point("pass", 9) == sgf_point(board.PASS, 9) == ""
    assert sgf_point("A19", 19) == "aa" and sgf_point("T1", 19) == "ss"
    with pytest.raises(ValueError):
        sgf_point("K1", 9)
    with pytest.raises(ValueError):
        sgf_point(81, 9)


def test_sgf_header_and_escaping():
    text = game_sgf(9, 7.5, "A ] x", "B\\y", ["E5", "pass", 0], "B+Illegal", date="2024-06-09",
                    comment="end: illegal\nwhite played ]")
    assert text.startswith("(;FF[4]GM[1]CA[UTF-8]SZ[9]KM[7.5]PB[A \\] x]PW[B\\\\y]RE[B+Illegal]"
                           "DT[2024-06-09]AP[bots]C[end: illegal\nwhite played \\]]")
    assert ";B[ee];W[];B[ai])" in text
    assert parse_moves(text) == (9, 7.5, ["E5", "PASS", "A1"])


def test_parse_tolerates_whitespace_and_old_pass():
    text = " ( ;FF[4] SZ[9]\n KM[6.5]\n ; B [ee]\r\n ;W[tt] ; B[ ] ) \n"
    assert parse_moves(text) == (9, 6.5, ["E5", "PASS", "PASS"])


@pytest.mark.parametrize("text", [
    "", ";SZ[9];B[ee])", "(;SZ[9];B[ee]", "(;SZ[9];B[zz])", "(;SZ[9];W[ee])", "(;SZ[9];B[ee];B[aa])",
    "(;SZ[9](;B[ee]))", "(;SZ[9];B[ee", "(;SZ[x])", "(;SZ[9];B[ee]W[aa])", "(;SZ[9];C[x])", "(;SZ[9]%)",
])
def test_parse_rejects_what_we_never_write(text):
    with pytest.raises(ValueError):
        parse_moves(text)


@st.composite
def legal_games(draw):
    size = draw(st.sampled_from([5, 7, 9, 13]))
    state = board.empty(size, draw(st.sampled_from([0.0, 6.5, 7.5])))
    moves = []
    for choice in draw(st.lists(st.integers(0, 10 ** 6), max_size=60)):
        legal = state.legal_moves()
        if not legal:
            break
        move = legal[choice % len(legal)]
        moves.append(move)
        state = state.play(move)
    return size, state.komi, moves, state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legal_games(), st.text(max_size=12), st.text(max_size=12), st.text(max_size=20))
def test_sgf_round_trip(game, black, white, comment):
    size, komi, moves, final = game
    text = game_sgf(size, komi, black, white, moves, final.score_text(), comment=comment or None)
    got_size, got_komi, names = parse_moves(text)
    assert (got_size, got_komi) == (size, komi)
    assert names == [board.point_name(m, size) for m in moves]
    assert board.from_moves(size, names, komi).board == final.board


# -- the GTP controller ---------------------------------------------------------------------------------

@amod
async def test_gtp_process_talks_and_refuses():
    proc = GtpProcess(fake("good"))
    await proc.start()
    try:
        assert await proc.send("name") == "fake-good"
        assert await proc.send("protocol_version") == "2"
        assert await proc.known("genmove") and await proc.known("time_settings")
        assert not await proc.known("reg_genmove")
        with pytest.raises(EngineError) as info:
            await proc.send("reg_genmove", "b")
        assert info.value.reason == "refused" and "reg_genmove b" in str(info.value)
        assert "unknown command" in str(info.value)
        assert proc.alive  # a refusal leaves the engine usable
        await proc.send("boardsize", 9)
        await proc.send("play", "b", "A1")
        assert await proc.send("genmove", "w") == "B1"
        with pytest.raises(EngineError, match="illegal move"):
            await proc.send("play", "b", "A1")
    finally:
        await proc.close()
    assert proc.returncode == 0  # it obeyed quit
    assert not proc.alive
    with pytest.raises(EngineError, match="unusable"):
        await proc.send("name")


@amod
async def test_gtp_process_crash_reports_stderr():
    proc = GtpProcess(fake("crash"))
    await proc.start()
    try:
        await proc.send("genmove", "b")
        with pytest.raises(EngineError) as info:
            await proc.send("genmove", "w")
        assert info.value.reason == "exited"
        assert "genmove w" in str(info.value) and "crashing on purpose" in str(info.value)
        assert "code 3" in str(info.value)
        assert not proc.alive
        with pytest.raises(EngineError):
            await proc.send("name")
    finally:
        await proc.close()
    assert engine_children() == []


@amod
async def test_gtp_process_timeout_kills_the_engine():
    proc = GtpProcess(fake("slow", "30"))
    await proc.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(EngineError) as info:
            await proc.send("genmove", "b", timeout=0.3)
        assert info.value.reason == "timeout" and "genmove b" in str(info.value)
        assert not proc.alive
    finally:
        await proc.close()
    assert time.monotonic() - t0 < 3
    assert proc.returncode is not None and engine_children() == []


@amod
async def test_gtp_process_cancelled_command():
    proc = GtpProcess(fake("slow", "30"))
    await proc.start()
    task = asyncio.ensure_future(proc.send("genmove", "b"))
    await thinking(proc)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not proc.alive  # its answer would come later and out of step
    await proc.close()
    assert engine_children() == []


@amod
async def test_gtp_process_closed_during_a_command():
    proc = GtpProcess(fake("slow", "30"))
    await proc.start()
    task = asyncio.ensure_future(proc.send("genmove", "b"))
    await thinking(proc)
    t0 = time.monotonic()
    await proc.close()  # does not wait for the answer: the engine is killed
    assert time.monotonic() - t0 < 1
    with pytest.raises(EngineError) as info:
        await task
    assert info.value.reason == "exited" and "genmove b" in str(info.value)
    assert engine_children() == []


@amod
@pytest.mark.parametrize("script, reason", [
    ("read x; echo hello; sleep 5", "garbage"),  # not a GTP response
    ("read x; printf '=99 E5\\n\\n'; sleep 5", "garbage"),  # wrong id
    ("exit 0", "exited"),  # gone before the first command
    ("read x; echo 'dying' >&2; exit 7", "exited"),
])
async def test_gtp_process_bad_engines(script, reason):
    proc = GtpProcess(["sh", "-c", script])
    await proc.start()
    if script == "exit 0":  # gone before the first command
        await until(lambda: proc.returncode is not None, what="the engine exited")
    try:
        with pytest.raises(EngineError) as info:
            await proc.send("name", timeout=5)
        assert info.value.reason == reason, str(info.value)
        if "dying" in script:
            assert "dying" in str(info.value) and "code 7" in str(info.value)
    finally:
        await proc.close()
    assert engine_children() == []


@amod
@pytest.mark.parametrize("quit_first", [False, True])
async def test_engine_behind_a_wrapper_script_goes_too(quit_first):
    marker = f"marker-{os.getpid()}-{quit_first}"
    # the shell stays (it has more to run) and the engine is its child, not ours
    proc = GtpProcess(["sh", "-c", f"'{sys.executable}' '{FAKE}' slow 30 1000000 {marker}; echo done"])
    await proc.start()
    try:
        assert await proc.send("name") == "fake-slow"
        if not quit_first:
            with pytest.raises(EngineError, match="no answer"):
                await proc.send("genmove", "b", timeout=0.2)
    finally:
        await proc.close()
    await until(lambda: not processes_with(marker), timeout=2, what=f"every process of {marker} gone")
    assert engine_children() == []


@amod
async def test_gtp_process_cannot_start():
    proc = GtpProcess(["/nonexistent/engine", "--gtp"])
    with pytest.raises(EngineError, match="cannot start"):
        await proc.start()
    await proc.close()
    with pytest.raises(ValueError):
        GtpProcess([])


@pytest.mark.e2e
@pytest.mark.external
@needs_gnugo
@amod
async def test_gtp_process_gnugo():
    proc = GtpProcess([GNUGO, "--mode", "gtp", "--level", "0"])
    await proc.start()
    try:
        assert await proc.send("name") == "GNU Go"
        assert await proc.known("genmove") and not await proc.known("no_such_command")
        await proc.send("boardsize", 9)
        await proc.send("clear_board")
        await proc.send("komi", 7.5)
        await proc.send("play", "b", "E5")
        answer = await proc.send("genmove", "w", timeout=30)
        assert parse_vertex(answer, 9) not in (None, (4, 4))
        with pytest.raises(EngineError, match="illegal move"):
            await proc.send("play", "b", "E5")
    finally:
        await proc.close()
    assert proc.returncode == 0 and engine_children() == []


# -- sides ---------------------------------------------------------------------------------------

def test_parse_side():
    assert parse_side("random", "A") == OurSide("A", "random", ())
    assert parse_side(" random:seed=3 ", "B") == OurSide("B", "random", (("seed", "3"),))
    side = parse_side(f"gtp:{sys.executable} {FAKE} good", "B")
    assert isinstance(side, GtpSide) and side.argv == [sys.executable, FAKE, "good"]
    side = parse_side(f"{sys.executable} '{FAKE}' slow 0.5", "B")
    assert isinstance(side, GtpSide) and side.argv[-2:] == ["slow", "0.5"]
    assert match_side(side).player.startswith(sys.executable) and match_side(side).label == "B"
    assert isinstance(parse_side(sys.executable, "A"), GtpSide)  # starts with /
    for text, words in [("nosuch", "unknown go player 'nosuch'"), ("random:bogus=1", "no option 'bogus'"),
                        ("random:seed", "key=value"), ("random:seed=x", "expected int"),
                        ("random:seed=1,seed=2", "twice"), ("gtp:", "empty engine"), ("", "empty"),
                        ("gtp:/nonexistent/engine --gtp", "not found"), ("gtp:gnugo 'x", "cannot split")]:
        with pytest.raises(ValueError, match=re.escape(words)) as info:
            parse_side(text, "A")
        assert "side A" in str(info.value)


# -- arena games ----------------------------------------------------------------------------------

def check_record(record: dict) -> None:
    labels = set(record["players"].values())
    assert record["winner_name"] in labels | {None}
    win = record["result"][:1]
    if record["winner_name"] is not None:
        assert record["players"][{"B": "black", "W": "white"}[win]] == record["winner_name"]
    for seat in ("black", "white"):
        assert all(x >= 0 for x in record["latencies"][seat])


@amod
async def test_our_players_only(go_runner):
    a, b = OurSide("A", "random", (("seed", 1),)), OurSide("B", "random")
    record = await play_game(a, b, go_runner, size=7, per_move=0.05, max_moves=12)
    assert record["end"] == "max moves" and len(record["moves"]) == 12
    assert board.from_moves(7, record["moves"], 7.5).score_text() == record["result"]
    assert len(record["latencies"]["black"]) == len(record["latencies"]["white"]) == 6
    record = await play_game(a, b, go_runner, size=5, komi=0.5, per_move=0.05)
    assert record["end"] == "two passes" and record["violations"] == []
    assert board.from_moves(5, record["moves"], 0.5).score_text() == record["result"]
    check_record(record)


@amod
async def test_arena_against_good_engine(go_runner, tmp_path):
    a, b = "random", fake_spec("good")
    records = await run_arena(a, b, 2, go_runner, per_move=0.2, sgf_dir=tmp_path / "sgf")
    assert records[0]["players"] == {"black": "A", "white": "B"}
    assert records[1]["players"] == {"black": "B", "white": "A"}
    for record in records:
        check_record(record)
        assert record["violations"] == [] and record["end"] == "two passes"
        assert record["moves"][-2:] == ["PASS", "PASS"]
        final = replay(record, record["sgf"])
        assert final.is_terminal() and final.score_text() == record["result"]
        assert "PB[A (random)]" in record["sgf_text"] or "PW[A (random)]" in record["sgf_text"]
    summary = summarise(records)
    assert summary["games"] == 2 and summary["A_stats"]["illegal"] == summary["B_stats"]["illegal"] == 0
    assert "TOTAL" in report(Side("A", a), Side("B", b), [("9", records)], "board")
    assert engine_children() == []  # each game's engine closed after it


@amod
async def test_a_game_clock_is_kept_for_both_sides(go_runner):
    records = await run_arena("random", fake_spec("good"), 2, go_runner, size=5, game_time=30.0)
    for record in records:
        check_record(record)
        assert record["end"] == "two passes" and record["violations"] == []
        assert set(record["clock_left"]) == {"black", "white"}
        assert all(0 < left < 30.0 for left in record["clock_left"].values()), record["clock_left"]


@pytest.mark.slow
@amod
async def test_a_side_whose_game_clock_runs_out_loses_on_time(go_runner):
    [record] = await run_arena("random", fake_spec("slow", "0.5"), 1, go_runner, size=5, game_time=1.2)
    assert record["result"] == "B+Time"
    assert record["end"] == "time" and record["winner_name"] == "A"
    assert record["violations"][0]["species"] == "white" and "out of time" in record["violations"][0]["reason"]
    assert record["clock_left"]["white"] < 0 <= record["clock_left"]["black"]


@amod
@pytest.mark.parametrize("mode, result, words", [
    ("illegal", "Illegal", "occupied"),
    ("garbage", "Illegal", "zz99"),
    ("crash", "Forfeit", "crashing on purpose"),
    ("resign", "R", None),
    ("refuse", "Forfeit", "(legal) refused"),
])
async def test_arena_against_bad_engines(go_runner, tmp_path, mode, result, words):
    records = await run_arena("random", fake_spec(mode), 2, go_runner, per_move=0.2, sgf_dir=tmp_path)
    for record in records:
        check_record(record)
        engine_seat = "white" if record["players"]["black"] == "A" else "black"
        assert record["winner_name"] == "A"
        assert record["result"] == ("W+" if engine_seat == "black" else "B+") + result
        if words is None:
            assert record["violations"] == [] and record["end"] == "resignation"
        else:
            [violation] = record["violations"]
            assert violation["species"] == engine_seat and words in violation["reason"]
        final = replay(record, record["sgf"])  # every recorded move was legal
        assert not final.is_terminal()
    assert summarise(records)["B_stats"]["illegal"] == (0 if words is None else 2)
    assert engine_children() == []


@pytest.mark.slow
@amod
async def test_arena_late_replies_count_but_the_game_goes_on(go_runner):
    [record] = await run_arena("random", fake_spec("slow", "0.8", "2"), 1, go_runner, per_move=0.2)
    assert record["timeouts"] == {"black": 0, "white": 2}
    assert record["violations"] == [] and record["end"] == "two passes"
    assert sorted(record["latencies"]["white"])[-2] > 0.7
    assert summarise([record])["B_stats"]["timeouts"] == 2
    assert engine_children() == []


@pytest.mark.slow
@amod
async def test_hard_timeout_loses_and_engine_is_restarted(go_runner):
    a, b = GtpSide("A", fake("slow", "20")), OurSide("B", "random")
    try:
        record = await play_game(a, b, go_runner, per_move=0.1, hard_timeout=0.5)
        assert record["result"] == "W+Time" and record["winner_name"] == "B"
        assert record["violations"][0]["species"] == "black" and "no answer" in record["violations"][0]["reason"]
        assert record["timeouts"] == {"black": 1, "white": 0}
        assert record["latencies"]["black"] == []  # the lost move has no latency
        assert not a.process.alive
        record = await play_game(b, a, go_runner, per_move=0.1, hard_timeout=0.5)
        assert record["result"] == "B+Time" and a.starts == 2
    finally:
        await a.close()
    assert engine_children() == []


@amod
async def test_arena_cancelled_closes_engines(go_runner):
    task = asyncio.ensure_future(run_arena("random", fake_spec("slow", "20"), 3, go_runner, per_move=0.1))
    await until(lambda: engine_children() != [], timeout=10, what="B's engine running in the arena")
    await asyncio.sleep(0.5)  # thinking on its first genmove
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert engine_children() == []


@amod
async def test_arena_engine_that_cannot_start(go_runner):
    with pytest.raises(ValueError, match="not found"):
        await run_arena("random", "gtp:/nonexistent/engine", 1, go_runner)


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.external
@needs_gnugo
@amod
async def test_arena_against_gnugo(go_runner, tmp_path):
    a, b = "random", f"gtp:{GNUGO} --mode gtp --level 0 --chinese-rules --capture-all-dead --positional-superko"
    [record] = await run_arena(a, b, 1, go_runner, per_move=0.2, sgf_dir=tmp_path)
    check_record(record)
    if record["violations"]:  # GNU Go 3.8 segfaults, rarely (once in about 10 runs here): B's forfeit
        [v] = record["violations"]
        assert "exited (code -11)" in v["reason"] and record["players"][v["species"]] == "B", v
        assert record["end"] == "forfeit" and record["winner_name"] == "A"
    else:
        assert record["end"] in ("two passes", "resignation")
    final = replay(record, record["sgf"])
    if record["end"] == "two passes":
        assert final.score_text() == record["result"]
    table = report(Side("A", a), Side("B", b), [("9", [record])], "board")
    assert "gnugo" in table and "TOTAL" in table
    assert engine_children() == []


# -- handicap games (--handicap N) -------------------------------------------------------------------

async def _handicap_game(first: str, second: str, runner, size: int, stones: int, tmp_path: Path) -> dict:
    settings_ = {"komi": 0.5, "move_time": 0.2, "game_time": None, "handicap": stones, "opening_moves": 2}
    record = await match.play_one(first, second, str(size), settings_, 7, runner, Watch(("A", "B")))
    record["sgf"] = str(tmp_path / f"handicap-{stones}.sgf")
    Path(record["sgf"]).write_text(record["sgf_text"], encoding="utf-8")
    return record


def _replayed(path: str) -> list:
    from bots import replay as replays

    return replays.load(path).positions


@amod
async def test_a_handicap_game_starts_with_blacks_stones_and_white_to_move(go_runner, tmp_path):
    record = await _handicap_game("random", "random:seed=2", go_runner, 9, 3, tmp_path)
    check_record(record)
    assert record["handicap"] == 3 and record["first"] == "white" and record["violations"] == []
    white, black = (len(record["latencies"][seat]) for seat in ("white", "black"))
    assert white - 1 <= black <= white  # White moved first
    text = record["sgf_text"]
    assert "HA[3]AB[cg][gc][cc]" in text and re.search(r";([BW])\[", text).group(1) == "W"
    positions = _replayed(record["sgf"])  # bots replay rebuilds it by our rules
    start = positions[0]
    assert start.to_move == board.WHITE and start.stones(board.BLACK) == sorted(fixed_points(9, 3))
    assert positions[-1].score_text() == record["result"] or record["end"] != "two passes"


@amod
async def test_an_engine_that_takes_no_handicap_stones_forfeits_before_a_move(go_runner, tmp_path):
    record = await _handicap_game("random", fake_spec("good"), go_runner, 9, 2, tmp_path)
    [violation] = record["violations"]
    assert violation["species"] == "white" and "set_free_handicap" in violation["reason"]
    assert record["winner_name"] == "A" and len(record["moves"]) == 2  # the opening only
    assert engine_children() == []


@pytest.mark.e2e
@pytest.mark.external
@needs_gnugo
@amod
async def test_gnugo_takes_the_same_fixed_handicap(go_runner, tmp_path):
    gnugo = f"gtp:{GNUGO} --mode gtp --level 0 --chinese-rules --capture-all-dead --positional-superko"
    record = await _handicap_game(gnugo, "random", go_runner, 9, 2, tmp_path)  # GNU Go Black, with the stones
    check_record(record)
    assert record["violations"] == [] and record["first"] == "white"
    assert _replayed(record["sgf"])[0].stones(board.BLACK) == sorted(fixed_points(9, 2))
    assert engine_children() == []


def test_handicap_option_is_checked_per_board(capsys):
    from bots.cli import main as cli

    assert cli(["arena", "go", "--a", "random", "--b", "random", "--sizes", "8", "--handicap", "5"]) == 2
    assert "--handicap 5" in capsys.readouterr().err
