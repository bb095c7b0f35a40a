"""Our CGOS server and our CGOS client agree on how a game ended (issue 28 item 9).

A raw opponent ends each game its own way (it resigns, plays an illegal move, lets its clock run
out); our server announces it in `gameover`, and our client's summary must give the server's
result string, the winner, and from our side the outcome, the reason and the score.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio

from bots.go.cgos_server import CgosServer
from bots.go.cgos_session import CgosBot, play, read_result
from bots.runner import SearchRunner

NAME = "alpha-bot"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runner():
    async with SearchRunner(1, grace=0.2) as r:
        yield r


async def opponent(port: int, answer) -> None:
    """A raw CGOS engine: logs in as "raw-bot", answers each genmove with `answer()` (None: never)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while line := (await reader.readline()).decode():
            word = line.split()[0] if line.split() else ""
            reply = {"protocol": "e1 raw", "username": "raw-bot", "password": "pw-raw"}.get(word)
            if word == "genmove":
                reply = answer()
            elif word == "gameover":
                reply = "quit"
            if reply is not None:
                writer.write((reply + "\n").encode())
                await writer.drain()
    finally:
        writer.close()


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("answer, reason", [
    (lambda: "resign", "resign"),
    (lambda: "zz99", "illegal move"),  # not a point: "do not understand syntax", a loss
    pytest.param(lambda: None, "time", marks=pytest.mark.slow),  # never answers: its flag falls
])
async def test_each_end_the_server_announces_reads_the_same_in_our_summary(runner, answer, reason):
    server = CgosServer(main_time=1.0, tick=0.05, pair_delay=0.05, info_every=0)
    await server.start()
    try:
        raw = asyncio.ensure_future(opponent(server.port, answer))
        bot = CgosBot(name=NAME, host="127.0.0.1", port=server.port, password="pw-alpha", player="random", games=1)
        (summary,) = await asyncio.wait_for(play(bot, runner), 20)
        await asyncio.wait_for(raw, 10)
    finally:
        await server.close()
    (record,) = server.records
    assert record["winner"] == NAME and summary["winner"] == NAME
    assert summary["result"] == record["result"] and record["result"][2:].lower().startswith(reason.split()[0])
    assert (summary["outcome"], summary["reason"], summary["score"], summary["score_from"]) == (
        "won", reason, None, None)


@pytest.mark.parametrize("text, expected", [
    ("B+7.5", ("b", "score", 7.5)),
    ("W+0.5", ("w", "score", 0.5)),
    ("B+0.0", (None, "score", 0.0)),
    ("Draw", (None, "score", 0.0)),
    ("W+Resign", ("w", "resign", None)),
    ("B+Time", ("b", "time", None)),
    ("W+Illegal", ("w", "illegal move", None)),
    ("B+Forfeit", ("b", "forfeit", None)),
    ("Abort", (None, "abort", None)),
    ("0", (None, "unknown", None)),  # cgos-lite's socket error
    (None, (None, "unknown", None)),
])
def test_read_result(text, expected):
    assert read_result(text) == expected
