"""The swap rule decided from data: the shipped table of first-stone values (bots.hex.swap),
the player's use of it (`mcts:swap_table`) and the tool that measures it (tools/hex_swap.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bots.hex import swap as SW
from bots.hex.board import SWAP, empty, from_moves, parse_cell
from bots.hex.mcts import MCTS
from search.budget import Budget
from search.contracts import Context

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("size", [11, 13])
def test_the_shipped_table_reads_as_hex_theory_says(size):
    values = SW.shipped()[size]
    n = size * size
    assert all(values[c] == values[n - 1 - c] for c in range(n))  # a half-turn is the same game
    centre = values[n // 2]
    assert centre > 0.5  # the centre wins for the first player: it is swapped
    assert values[parse_cell("a1", size, size)] < 0.5  # the acute corner does not
    assert sum(v > centre for v in values) < n // 10  # among the strongest tenth
    assert min(values) < 0.5 < max(values)  # so there is an opening near even


def test_malformed_tables_are_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="one for each of its cells"):
        SW.check({"values": {"3": [0.5] * 8}})
    with pytest.raises(ValueError, match="between 0 and 1"):
        SW.check({"values": {"2": [0.5, 1.5, 0.5, 0.5]}})
    bad = tmp_path / "t.json"
    bad.write_text("{}")
    with pytest.raises(ValueError, match="t.json: not a swap table"):
        SW.load(bad)


def test_the_opening_is_the_allowed_cell_nearest_to_even():
    values = (0.9, 0.45, 0.55, 0.2)
    assert SW.opening(values, range(4)) == 1  # 0.45 and 0.55 tie: the lower cell
    assert SW.opening(values, [0, 2, 3]) == 2
    assert SW.opening(values, []) is None
    assert SW.worth_swapping(values, 0) and not SW.worth_swapping(values, 1)


@pytest.mark.parametrize("size", [11, 13])
def test_the_player_opens_and_swaps_by_the_table(size):
    values = SW.shipped()[size]
    player = MCTS(swap_table=True, seed=1)
    s = empty(size, swap=True)
    first = player.choose(s, None, Budget(5.0, nodes=500))
    assert first.move == SW.opening(values, range(size * size)) and first.nodes == 0
    # an excluded opening: the next nearest to even
    other = player.choose(s, Context(exclude=[first.move]), Budget(5.0, nodes=500)).move
    assert other == SW.opening(values, [c for c in range(size * size) if c != first.move])
    centre = from_moves(size, [f"{'abcdefghijklmnopqrstuvwxyz'[size // 2]}{size // 2 + 1}"], swap=True)
    assert player.choose(centre, None, Budget(5.0, nodes=500)).move == SWAP
    # a first stone worth less than half to Black is answered on the board, by the search
    low = min(range(size * size), key=lambda c: values[c])
    reply = MCTS(swap_table=True, seed=1).choose(empty(size, swap=True).play(low), None, Budget(5.0, nodes=2000))
    assert reply.move != SWAP and reply.move is not None and reply.nodes > 0
    assert empty(size, swap=True).play(low).is_legal(reply.move)
    # the centre swapped, the excluded swap: the search answers on the board
    kept = player.choose(centre, Context(exclude=[SWAP]), Budget(5.0, nodes=500)).move
    assert kept != SWAP and centre.is_legal(kept)


def test_without_the_swap_rule_or_the_option_the_search_decides():
    assert MCTS(swap_table=True, seed=1).choose(empty(11), None, Budget(5.0, nodes=300)).nodes > 0
    assert MCTS(swap_table=False, seed=1).choose(empty(11, swap=True), None, Budget(5.0, nodes=300)).nodes > 0
    assert MCTS(seed=1).choose(empty(11, swap=True), None, Budget(5.0, nodes=300)).nodes == 0  # on by default
    assert MCTS(swap_table=True, seed=1).choose(empty(9, swap=True), None, Budget(5.0, nodes=300)).nodes > 0


def test_the_tool_measures_a_table_the_player_can_read(tmp_path):
    out = tmp_path / "swap.json"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "hex_swap.py"), str(out), "--sizes", "3",
                           "--iterations", "3000", "--workers", "1"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    values = SW.load(out)[3]
    assert values[4] > 0.9  # b2, the centre of 3x3, wins at once for Black
    assert values[0] == values[8] and values[2] == values[6]
    assert "nearest to even" in done.stdout
    assert json.loads(out.read_text())["iterations"] == 3000


def test_the_fallback_move_follows_the_table_too():
    # a cold engine's first answers (the workers still compiling) are the fallback's
    from bots.hex.game import fallback

    values = SW.shipped()[11]
    opening = fallback(empty(11, swap=True), Context())
    assert opening == SW.opening(values, range(121)) and values[opening] == pytest.approx(0.5, abs=0.01)
    assert fallback(from_moves(11, ["f6"], swap=True), Context()) == SWAP
    assert fallback(from_moves(11, ["f6"], swap=True), Context(exclude=[SWAP])) != SWAP
    assert fallback(from_moves(11, ["a1"], swap=True), Context()) == parse_cell("f6", 11, 11)  # kept: the centre
    assert fallback(empty(11), Context()) == parse_cell("f6", 11, 11)  # no swap rule: the centre
    assert fallback(empty(9, swap=True), Context()) == parse_cell("e5", 9, 9)  # no table for 9x9
    assert SW.table_move(from_moves(11, ["f6", "e5"], swap=True), range(121)) is None  # past the swap
