"""Every way a Twilight game ends, over real sockets on 127.0.0.1 (issue 28 item 9).

A scripted server plays the official server's part frame by frame (END and BYE carry no result
and no score), or our referee plays it against a raw opponent that misbehaves on purpose; the
client's summary (what `bots play` prints and the "game over" log line) must give the right
result, reason and score for each: an elimination either way, the time cap and the ply cap
with both scores, a connection lost mid-game, the opponent's illegal move and its time-outs.
"""

from __future__ import annotations

import asyncio

import pytest

from bots.session import SessionClosed
from bots.twilight.referee import Referee, RefereeConfig
from bots.twilight.rules import Species, State, validate
from bots.twilight.session import SCORE_FROM, TwilightBot, play
from protocol.twilight import (
    CLIENT_FRAMES, SERVER_FRAMES, Bye, Cell, Decoder, End, Hme, Hum, Map, Mov, Move, Nme, Set, Upd, encode,
)
from tests.helpers import info_logs, reached

V, W = Species.VAMPIRES, Species.WEREWOLVES


class Script:
    """One connection of the official server's, played by the test."""

    def __init__(self) -> None:
        self.conn: asyncio.Future = asyncio.get_running_loop().create_future()
        self.decoder = Decoder(CLIENT_FRAMES)

    async def start(self) -> int:
        self.server = await asyncio.start_server(lambda r, w: self.conn.set_result((r, w)), "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def frame(self):
        reader, _ = await self.conn
        while (event := self.decoder.next_event()) is None:
            data = await asyncio.wait_for(reader.read(4096), 10)
            assert data, "the client closed the connection"
            self.decoder.feed(data)
        return event

    async def send(self, *frames) -> None:
        _, writer = await self.conn
        writer.write(b"".join(encode(f) for f in frames))
        await writer.drain()

    async def close(self) -> None:
        _, writer = await self.conn
        writer.close()
        self.server.close()


def cells(state: State) -> tuple[Cell, ...]:
    return state.cells()


async def one_ply(runner, state: State, me: Species, ending, first: Upd | None = None, **bot):
    """Connect our greedy client, give it `state` (its HME is its species' first group), let it
    answer one UPD (`first`, or an empty one), then end as `ending(script)` does; returns
    (its MOV, the task playing it, the captured log lines)."""
    script = Script()
    port = await script.start()
    options = dict(name="us", port=port, player="greedy", move_time=1.0, overhead=0.3)
    options.update(bot)
    with info_logs() as logs:
        task = asyncio.ensure_future(play(TwilightBot(**options), runner))
        assert await script.frame() == Nme("us")
        hx, hy, _ = state.groups(me)[0]
        await script.send(Set(state.rows, state.cols), Hum(tuple((x, y) for x, y, _ in state.humans)), Hme(hx, hy))
        await script.send(Map(cells(state)), first or Upd(()))
        mov = await script.frame()
        assert isinstance(mov, Mov)
        validate(state._replace(to_move=me), me, mov.moves)
        await ending(script)
        try:
            outcome = await asyncio.wait_for(task, 10)
        except SessionClosed as exc:
            outcome = exc
    await script.close()
    return mov, outcome, [e for e in logs if e["event"] == "game over"]


async def end_and_bye(script: Script) -> None:
    await script.send(End(), Bye())


def summary_of(outcome, logs) -> dict:
    """The one summary, checked to be the one logged as "game over"."""
    assert isinstance(outcome, list) and len(outcome) == 1, outcome
    (summary,) = outcome
    assert len(logs) == 1 and {k: logs[0][k] for k in summary} == summary
    return summary


def score(summary: dict) -> tuple:
    return summary["result"], summary["reason"], summary["ours"], summary["theirs"]


# -- the scripted official server ------------------------------------------------------------------

@pytest.mark.slow
async def test_our_elimination_of_them_is_a_certain_win(runner):
    state = State(5, 5, (), ((1, 1, 9),), ((2, 2, 6),))
    mov, outcome, logs = await one_ply(runner, state, V, end_and_bye)
    assert mov.moves == (Move(1, 1, 9, 2, 2),)  # 9 >= 1.5 * 6: greedy takes the sure kill
    summary = summary_of(outcome, logs)
    assert score(summary) == ("won", "elimination", 9, 0) and summary["certain"] is True
    assert summary["score_from"] == SCORE_FROM


async def test_their_elimination_of_us_is_a_loss_not_unknown(runner):
    # issue 28: another client won by elimination and ours printed "unknown".  Our 6 on a 3x3
    # board cannot get out of reach of their 10, which kill it for sure next ply.
    state = State(3, 3, ((2, 2, 12),), ((0, 0, 6),), ((1, 1, 10),))
    _, outcome, logs = await one_ply(runner, state, V, end_and_bye)
    summary = summary_of(outcome, logs)
    assert score(summary) == ("lost", "elimination", 0, 10) and summary["certain"] is False


@pytest.mark.parametrize("ours, theirs, result", [(210, 172, "won"), (172, 210, "lost")])
async def test_the_time_cap_reports_both_populations(runner, ours, theirs, result):
    # issue 28: a game the server ended at its time cap, 210 against 172, was logged as won 210 to 0.
    # We are vampires: the cap is checked after the werewolves' ply, so END comes after theirs.
    state = State(10, 10, (), ((0, 0, ours),), ((9, 9, theirs),))
    _, outcome, logs = await one_ply(runner, state, V, end_and_bye, game_time=1.0)
    summary = summary_of(outcome, logs)
    assert score(summary) == (result, "time limit", ours, theirs) and summary["certain"] is False


async def test_the_time_cap_after_our_ply_as_werewolves_is_certain(runner):
    state = State(10, 10, (), ((9, 9, 172),), ((0, 0, 210),))
    first = Upd((Cell(9, 9, 0, 0, 0), Cell(8, 9, 0, 172, 0)))  # the vampires' first ply
    _, outcome, logs = await one_ply(runner, state, W, end_and_bye, first=first, game_time=1.0)
    summary = summary_of(outcome, logs)
    assert summary["species"] == "werewolves"
    assert score(summary) == ("won", "time limit", 210, 172) and summary["certain"] is True


async def test_without_a_time_cap_an_end_out_of_reach_is_their_forfeit_with_their_units(runner):
    state = State(10, 10, (), ((0, 0, 172),), ((9, 9, 210),))
    _, outcome, logs = await one_ply(runner, state, V, end_and_bye, game_time=0)
    assert score(summary_of(outcome, logs)) == ("won", "forfeit", 172, 210)


@pytest.mark.parametrize("ours, theirs, result", [(6, 5, "won"), (5, 6, "lost"), (5, 5, "draw")])
async def test_the_ply_cap_reports_both_populations(runner, ours, theirs, result):
    state = State(10, 10, (), ((0, 0, ours),), ((9, 9, theirs),))
    _, outcome, logs = await one_ply(runner, state, V, end_and_bye, max_plies=2)  # ply 0 ours, ply 1 theirs
    summary = summary_of(outcome, logs)
    assert score(summary) == (result, "max plies", ours, theirs)


async def test_a_go_server_ends_with_bye_alone(runner):
    async def bye(script):
        await script.send(Bye())

    state = State(5, 5, (), ((1, 1, 9),), ((2, 2, 6),))
    _, outcome, logs = await one_ply(runner, state, V, bye)
    assert score(summary_of(outcome, logs)) == ("won", "elimination", 9, 0)


async def test_a_connection_lost_mid_game_is_reported_unknown(runner):
    async def close(script):
        await script.close()

    state = State(10, 10, (), ((0, 0, 7),), ((9, 9, 5),))
    _, outcome, logs = await one_ply(runner, state, V, close)
    assert isinstance(outcome, SessionClosed) and "mid-game" in str(outcome)
    assert outcome.summaries == []  # not a finished game: the daemon does not count it
    summary = outcome.interrupted
    assert score(summary) == ("unknown", "disconnect", 7, 5) and summary["score_from"] == SCORE_FROM
    assert len(logs) == 1 and logs[0]["result"] == "unknown" and logs[0]["reason"] == "disconnect"


async def test_end_while_we_search_means_our_move_was_skipped(runner):
    # The server ended the game during our ply (it gave up waiting for us): the MOV is not sent, and
    # the sure kill it would have made did not happen, so the win is no longer certain.
    state = State(5, 5, (), ((1, 1, 9),), ((2, 2, 6),))
    script = Script()
    port = await script.start()
    task = asyncio.ensure_future(play(TwilightBot(name="us", port=port, player="greedy", game_time=0), runner))
    assert await script.frame() == Nme("us")
    await script.send(Set(5, 5), Hum(()), Hme(1, 1), Map(cells(state)), Upd(()), End(), Bye())
    (summary,) = await asyncio.wait_for(task, 10)
    reader, _ = await script.conn
    assert await asyncio.wait_for(reader.read(100), 5) == b""  # nothing after NME: no MOV, then closed
    assert summary["moves"] == 0 and summary["certain"] is False
    assert summary["result"] == "won"  # their 6 are likelier to lose against our 9 than to win
    await script.close()


# -- our referee against an opponent that misbehaves -----------------------------------------------

class Raw:
    """An opponent that speaks the protocol by hand: NME, then `answer(update)` per UPD (a MOV to
    send, None: no answer, "hang up": close the connection)."""

    def __init__(self, port: int, answer) -> None:
        self.port, self.answer = port, answer

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        decoder = Decoder(SERVER_FRAMES)
        writer.write(encode(Nme("raw")))
        await writer.drain()
        try:
            while data := await reader.read(4096):
                decoder.feed(data)
                for event in decoder.events():
                    if isinstance(event, Upd):
                        mov = await self.answer(event)
                        if mov == "hang up":
                            return
                        if mov is not None:
                            writer.write(encode(mov))
                            await writer.drain()
        finally:
            writer.close()


async def match(runner, initial: State, answer, we_first: bool, bot: dict, **config):
    """Our greedy client against a Raw opponent on our referee; (our summaries, the referee's record)."""
    referee = Referee(RefereeConfig(initial, "test", **config))
    port = await referee.start()
    ours = TwilightBot(name="us", port=port, player="greedy", **bot)
    raw = Raw(port, answer)
    try:
        if we_first:  # the first connection plays vampires
            task = asyncio.ensure_future(play(ours, runner))
            await reached(referee.connected(1), "the referee accepted our connection", watching=task)
            other = asyncio.ensure_future(raw.run())
        else:
            other = asyncio.ensure_future(raw.run())
            await reached(referee.connected(1), "the referee accepted the raw opponent", watching=other)
            task = asyncio.ensure_future(play(ours, runner))
        summaries = await asyncio.wait_for(task, 30)
        await asyncio.wait_for(other, 10)
    finally:
        await referee.close()
    (record,) = referee.records
    return summaries, record


@pytest.mark.parametrize("misdeed, reason", [(Mov(()), "illegal move"),  # no move at all: rule 1, a loss
                                             ("hang up", "disconnect")])
async def test_the_opponents_illegal_move_or_disconnect_is_our_win_by_forfeit(runner, misdeed, reason):
    async def answer(update):
        return misdeed

    thetrap = State(5, 10, ((2, 2, 4), (9, 0, 2), (9, 2, 1), (9, 4, 2)), ((4, 3, 4),), ((4, 1, 4),))
    (summary,), record = await match(runner, thetrap, answer, we_first=False, bot=dict(move_time=1.0, overhead=0.3),
                                     move_timeout=1.0)
    assert record["reason"] == reason and record["winner_name"] == "us"
    assert summary["species"] == "werewolves"
    assert score(summary) == ("won", "forfeit", 4, 4)


@pytest.mark.slow
async def test_the_opponents_time_outs_skip_its_plies_and_the_cap_still_counts(runner):
    async def silent(update):
        return None  # never answers: every ply of its times out, which is no loss

    state = State(10, 10, (), ((0, 0, 6),), ((9, 9, 5),))
    (summary,), record = await match(runner, state, silent, we_first=True,
                                     bot=dict(move_time=1.0, overhead=0.3, max_plies=6), move_timeout=1.0, max_plies=6)
    assert record["timeouts"] == {"vampires": 0, "werewolves": 3} and record["reason"] == "max plies"
    assert record["winner_name"] == "us" and record["population"] == {"vampires": 6, "werewolves": 5}
    assert score(summary) == ("won", "max plies", 6, 5)


@pytest.mark.slow
@pytest.mark.parametrize("we_first", [True, False])
async def test_the_referees_time_cap_and_the_client_agree(runner, we_first):
    # a slow opponent shuffles its 5 back and forth; our 6 close in one cell a ply, far from contact
    # when the referee's game clock runs out (after the werewolves' ply)
    spots = [(11, 11), (10, 11)] if we_first else [(0, 0), (1, 0)]
    plies = []

    async def shuffle(update):
        await asyncio.sleep(0.3)
        here, there = spots[len(plies) % 2], spots[(len(plies) + 1) % 2]
        plies.append(there)
        return Mov((Move(*here, 5, *there),))

    us, them = ((0, 0, 6),), ((11, 11, 5),)
    if not we_first:  # the raw opponent connects first and plays vampires
        us, them = ((11, 11, 6),), ((0, 0, 5),)
    initial = State(12, 12, (), them if not we_first else us, us if not we_first else them)
    (summary,), record = await match(runner, initial, shuffle, we_first, bot=dict(move_time=1.0, overhead=0.3,
                                                                                game_time=1.0),
                                     move_timeout=1.0, game_time=1.0)
    assert record["reason"] == "time limit" and record["winner_name"] == "us"
    assert record["plies"] % 2 == 0 and record["plies"] >= 2  # ended after a werewolves' ply: even plies each
    assert sorted(record["population"].values()) == [5, 6]
    assert score(summary) == ("won", "time limit", 6, 5)
    assert summary["certain"] is (not we_first)  # as werewolves the cap came right after our own ply
