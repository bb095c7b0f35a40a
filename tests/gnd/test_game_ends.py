"""Every way a gnd game ends, as our client's summary reports it (issue 28 item 9).

The gnd server announces the winner (`Winner`) and `FinalScore` in its last answer, never why:
the rules (the side to move has no legal move: in Gopher it lost, in Dodo it won) or a clock
(an illegal action is refused with 310, and may cost a penalty that flags the offender).  The
client works out the reason from the final grid and reports the server's winner and score.
"""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from bots.gnd.session import GndBot, _summary, end_reason, play
from bots.gopher import rules as gopher_rules
from protocol import gnd
from tests.helpers import reached

RULE_REASON = {"no move": "no legal move", "time": "time"}  # the server's record -> our summary


def check(summary: dict, record: dict, us: int) -> None:
    """Our summary against the server's record of the same game."""
    assert summary["winner"] == record["winner"]
    assert summary["result"] == ("won" if record["winner"] == us else "lost")
    assert summary["won"] == (summary["result"] == "won")
    assert summary["reason"] == RULE_REASON[record["reason"]]
    assert (summary["score"], summary["score_from"]) == (1 if record["winner"] == gnd.RED else -1, "server")


# -- ends by the rules, against the server's random player -------------------------------------------

@pytest.mark.parametrize("game, size, rcolor", [("gopher", 3, "blue"), ("gopher", 3, "red"),
                                                ("dodo", 4, "blue"), ("dodo", 4, "red")])
async def test_an_end_by_the_rules_either_way(serve, runner, game, size, rcolor):
    server, url = await serve(game=game, size=size, time=30.0, random=True, rcolor=rcolor, seed=5)
    bot = GndBot(game=game, server=url, group=7, members="us", password="pw", player="random",
                 params=(("seed", 3),))
    (summary,) = await asyncio.wait_for(play(bot, runner), 60)
    (record,) = server.records
    us = gnd.RED if rcolor == "blue" else gnd.BLUE
    assert record["reason"] == "no move"
    check(summary, record, us)


# -- ends by a clock --------------------------------------------------------------------------------

class Raw:
    """An opponent that registers and queues, then does only what the test says."""

    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.http, self.url, self.token = http, url, ""

    async def post(self, path: str, request: gnd.Request) -> tuple[int, object]:
        async with self.http.post(self.url + path, json=request.to_json()) as resp:
            return resp.status, (await resp.json() if resp.status == 200 else await resp.text())

    async def register(self, game: str) -> None:
        _, body = await self.post("/register", gnd.register(99, "raw", "zz", [game]))
        self.token = gnd.parse_token(body)

    async def start(self) -> dict:
        status, body = await self.post("/start", gnd.start(self.token))
        assert status == 200, body
        return body


async def we_play_red(server, url, runner, raw_turn, game="gopher", **bot):
    """Our bot queues first (Red); the raw opponent (Blue) does `raw_turn(raw, its /start answer)`."""
    ours = asyncio.ensure_future(play(GndBot(game=game, server=url, group=1, members="us", password="pw", **bot),
                                      runner))
    await reached(server.wait_queued(1), "our bot queued in /start", watching=ours)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
        raw = Raw(http, url)
        await raw.register(game)
        await raw_turn(raw, await raw.start())
        (summary,) = await asyncio.wait_for(ours, 10)
    (record,) = server.records
    return summary, record


async def test_the_opponents_flag_is_our_win_on_time(serve, runner):
    server, url = await serve(game="gopher", size=4, time=0.5)

    async def sleep(raw, first):
        assert not first.get("Finished")  # it has the turn, and never plays

    summary, record = await we_play_red(server, url, runner, sleep)
    assert record["reason"] == "time"
    check(summary, record, gnd.RED)
    assert summary["moves"] == 1


async def test_the_opponents_illegal_action_costs_it_the_game_through_the_penalty(serve, runner):
    server, url = await serve(game="gopher", size=4, time=5.0, penalty=10.0)

    async def illegal(raw, first):
        status, _ = await raw.post("/play", gnd.play(raw.token, ["(9, 9)"]))  # off the board: 310
        assert status == gnd.ILLEGAL_ACTION

    summary, record = await we_play_red(server, url, runner, illegal)
    assert record["reason"] == "time" and record["illegal"] == {"red": 0, "blue": 1}
    check(summary, record, gnd.RED)


async def test_red_flagging_before_our_first_move_is_our_win_on_time(serve, runner):
    server, url = await serve(game="dodo", size=4, time=0.3)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
        raw = Raw(http, url)
        await raw.register("dodo")
        start = asyncio.ensure_future(raw.start())  # queued first: Red, which never plays
        await reached(server.wait_queued(1), "the raw opponent queued in /start", watching=start)
        bot = GndBot(game="dodo", server=url, group=1, members="us", password="pw")
        (summary,) = await asyncio.wait_for(play(bot, runner), 10)
        await start
    (record,) = server.records
    assert record["reason"] == "time" and record["plies"] == 0
    check(summary, record, gnd.BLUE)
    assert summary["moves"] == 0


# -- the reason from the final answer alone -----------------------------------------------------------

def final(cells: dict, us: int, winner: int, size: int = 3) -> gnd.Turn:
    return gnd.Turn(game=gnd.GOPHER, player=us, clocktime=0.0, size=size, grid=gnd.grid_pairs(cells),
                    finished=True, winner=winner, final_score=1 if winner == gnd.RED else -1)


def test_our_late_action_is_a_loss_on_time():
    start = gopher_rules.start(3)
    ours = start.play((0, 0))  # what our action would have made; the server never applied it
    turn = final(start.cells(), gnd.RED, gnd.BLUE)
    assert end_reason("gopher", turn, gnd.RED, ours) == "time"
    summary = _summary(turn, gnd.RED, 0, 0, why=end_reason("gopher", turn, gnd.RED, ours))
    assert (summary["result"], summary["reason"], summary["score"], summary["won"]) == ("lost", "time", -1, False)


def test_the_last_placement_is_a_win_by_the_rules_and_a_flag_is_not():
    state = gopher_rules.start(2)  # 7 cells: play to the end with the first legal move each time
    history = [state]
    while not state.is_terminal():
        state = state.play(state.legal_moves()[0])
        history.append(state)
    winner = state.winner()
    us = winner  # we placed last: the grid is the one our action made, and the loser is stuck
    assert end_reason("gopher", final(state.cells(), us, winner, 2), us, state) == "no legal move"
    # the same winner with the position one ply earlier, the loser still able to move: its clock fell
    earlier = history[-3]  # the loser to move there, with the placement it then made
    assert end_reason("gopher", final(earlier.cells(), us, winner, 2), us, earlier) == "time"


def test_no_winner_announced_is_unknown():
    turn = final(gopher_rules.start(3).cells(), gnd.RED, 0)
    assert end_reason("gopher", turn, gnd.RED, None) == "unknown"
    assert _summary(turn, gnd.RED, 3, 0)["result"] == "unknown"
