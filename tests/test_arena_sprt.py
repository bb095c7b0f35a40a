"""`bots arena GAME --sprt BOUNDS`: pairs of games (one setup and seed, the seats swapped) until
the sequential test decides or the cap of games is played.

In this process, Gopher's match hooks play scripted games (no pool, no server), so the pairs,
their seeds and seats, a crashed game and the cap are checked exactly; then real `bots arena`
runs of Twilight's greedy against random, which decide within a few pairs.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bots import arena, cli, sprt
from bots.gnd import match as gnd_match
from bots.tournament.schedule import Job

ROOT = Path(__file__).resolve().parents[1]
WIDE = "elo0=0 elo1=200 alpha=0.2 beta=0.2"  # bounds ±1.39: four won pairs are enough
# greedy wins about 7 games of 8 against random (whose moves are not seeded): tested for not being 300 Elo
# worse, it passes within 2 to 6 pairs, and fails about once in many thousand runs (simulated with bots.sprt)
NOT_WORSE = "elo0=-300 elo1=0 alpha=0.2 beta=0.2"


class Scripted:
    """Gopher's play_one, replaced: each game's result from `outcome(call)` ("A", "B", None for
    a draw, or "crash"), where `call` counts the games from 0; what each game got is kept."""

    def __init__(self, outcome):
        self.outcome = outcome
        self.games: list[dict] = []

    async def __call__(self, first, second, setup, settings, seed, runner, watch):
        call = len(self.games)
        self.games.append({"first": first, "second": second, "setup": setup, "seed": seed, "labels": watch.labels})
        await asyncio.sleep(0.001)  # as a real game does, let the other lanes play meanwhile
        result = self.outcome(call)
        if result == "crash":
            raise RuntimeError(f"scripted crash of game {call}")
        red, blue = watch.labels
        return {"players": {"red": red, "blue": blue}, "winner_name": result, "timeouts": {"red": 0, "blue": 0},
                "latencies": {"red": [0.01], "blue": [0.01]}, "violations": [], "moves": []}


def sequential(monkeypatch, capsys, outcome, bounds: str = WIDE, games: str = "40", *extra: str):
    """`bots arena gopher --a random --b alphabeta --sizes 3 4 --sprt BOUNDS --games GAMES` with
    scripted games: (exit status, stdout lines, the games played)."""
    scripted = Scripted(outcome)
    monkeypatch.setattr(gnd_match, "play_one", scripted)
    args = cli.parse_args(["arena", "gopher", "--a", "random", "--b", "alphabeta", "--sizes", "3", "4",
                           "--sprt", bounds, "--games", games, *extra])
    match = arena.prepare(args)
    match.workers = 0  # the scripted games search nothing: no pool
    status = arena.run_sprt(match, args.sprt)
    return status, capsys.readouterr().out.splitlines(), scripted.games


def pair_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("pair ")]


def row(lines: list[str], name: str) -> str:
    return next(line[9:] for line in lines if line.startswith(f"{name:<9}"))


def test_both_games_of_a_pair_share_the_setup_and_the_seed_with_the_seats_swapped():
    jobs = [arena.PairJob(("x", "y"), "map8", index) for index in range(6)]
    assert [(job.first, job.second) for job in jobs] == [("x", "y"), ("y", "x")] * 3
    seeds = [job.seed(1) for job in jobs]
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and seeds[4] == seeds[5]
    assert len(set(seeds)) == 3  # and each pair has its own
    assert seeds[0] == Job(("x", "y"), "map8", 0).seed(1)  # the first game's, as without --sprt
    assert arena.PairJob(("x", "y"), "map8", 0).seed(2) != seeds[0]  # --seed changes them


def test_a_player_winning_every_game_passes_after_four_pairs(monkeypatch, capsys):
    status, lines, games = sequential(monkeypatch, capsys, lambda call: "A")
    assert status == 0
    assert len(games) == 8  # four pairs, then no more
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert first["seed"] == second["seed"] and first["setup"] == second["setup"]
        assert (first["first"], first["second"]) == ("random", "alphabeta") == (second["second"], second["first"])
        assert first["labels"] == ("A", "B") and second["labels"] == ("B", "A")
    assert [g["setup"] for g in games[::2]] == ["3", "4", "3", "4"]  # the sizes in turn
    assert len({g["seed"] for g in games}) == 4
    pairs = pair_lines(lines)
    assert len(pairs) == 4 and pairs[-1].endswith("s") and "H1 accepted" in pairs[-1]
    assert re.match(r"pair 4 4: A 2 \(A first: won, B first: won\); 4 pairs \[0 0 0 0 4\], LLR 1\.67 "
                    r"\[-1\.39, 1\.39\], Elo \+1282 \[\+661, \+inf\]; H1 accepted; \d+ s", pairs[-1]), pairs[-1]
    assert "LLR 1.26" in pairs[2] and "accepted" not in pairs[2]
    assert row(lines, "verdict").startswith("H1 accepted: A is better than B")
    assert row(lines, "games") == "8 counted, in 4 pairs"
    assert row(lines, "pairs").startswith("0 0 0 0 4 ")
    assert row(lines, "score") == "100.0% for A"
    assert row(lines, "LLR") == "1.67, bounds [-1.39, 1.39]"
    assert any(line.startswith("TOTAL") and line.split()[1:5] == ["8", "8", "0", "0"] for line in lines)


def test_a_losing_player_fails_and_h0_is_accepted(monkeypatch, capsys):
    status, lines, games = sequential(monkeypatch, capsys, lambda call: "B")
    assert status == 0 and len(games) == 4
    assert row(lines, "verdict").startswith("H0 accepted: A is not elo1=200 better than B")
    assert row(lines, "pairs").startswith("2 0 0 0 0 ")


def test_a_crashed_game_leaves_its_pair_out_and_the_command_exits_1(monkeypatch, capsys):
    status, lines, games = sequential(monkeypatch, capsys, lambda call: "crash" if call == 2 else "A")
    assert status == 1
    assert len(games) == 10  # pair 2 does not count: five pairs are played for four that do
    assert "pair 2 4: game 1 crashed: RuntimeError: scripted crash of game 2" in lines
    assert "pair 2 4: left out of the statistics (a game crashed)" in lines
    assert row(lines, "games") == "8 counted, in 4 pairs; left out, a game crashed: pair 2"
    assert row(lines, "pairs").startswith("0 0 0 0 4 ")
    assert lines[-1] == "1 games crashed (see the log); their pairs are left out"


def test_the_cap_ends_an_undecided_test_with_exit_status_3(monkeypatch, capsys):
    status, lines, games = sequential(monkeypatch, capsys, lambda call: None, "elo0=-5 elo1=5", "5")
    assert status == arena.UNDECIDED == 3
    assert len(games) == 6  # 5 games rounded up to three pairs
    assert row(lines, "verdict") == "no decision: 6 games played with the LLR between the bounds (exit status 3)"
    assert row(lines, "pairs").startswith("0 0 3 0 0 ")
    assert row(lines, "Elo").startswith("+0 for A")
    assert "at most 6 games in pairs" in lines[1]


def test_games_still_running_at_the_decision_are_not_counted(monkeypatch, capsys):
    status, lines, games = sequential(monkeypatch, capsys, lambda call: "A", WIDE, "40", "--parallel", "3")
    assert status == 0
    verdict_at = next(i for i, line in enumerate(lines) if "H1 accepted;" in line)
    assert "4 pairs [0 0 0 0 4]" in lines[verdict_at]
    after = [line for line in lines[verdict_at + 1:] if line.startswith("pair ")]
    assert after and all(line.endswith("after the decision, not counted") for line in after)
    assert len(games) == 8 + 2 * len(after)  # every pair started is played whole
    assert row(lines, "games").startswith("8 counted, in 4 pairs; ended after the decision, not counted: ")


def test_a_test_kept_in_a_file_goes_on_where_it_stopped(monkeypatch, capsys, tmp_path):
    kept = str(tmp_path / "test.jsonl")
    status, lines, first = sequential(monkeypatch, capsys, lambda call: "A", WIDE, "4", "--sprt-file", kept)
    assert status == arena.UNDECIDED and len(first) == 4  # the cap: two pairs, LLR 0.84 of 1.39
    status, lines, second = sequential(monkeypatch, capsys, lambda call: "A", WIDE, "40", "--sprt-file", kept)
    assert status == 0 and len(second) == 4  # two more pairs decide, as four in one run do
    assert lines[0].startswith("--sprt-file ") and "2 pairs of this test played before: 2 pairs [0 0 0 0 2]" in lines[0]
    assert [line.split(";")[0] for line in pair_lines(lines)] == [
        "pair 3 3: A 2 (A first: won, B first: won)", "pair 4 4: A 2 (A first: won, B first: won)"]
    assert "4 pairs [0 0 0 0 4], LLR 1.67" in pair_lines(lines)[-1] and "H1 accepted" in pair_lines(lines)[-1]
    assert row(lines, "games") == "8 counted, in 4 pairs"
    _, _, whole = sequential(monkeypatch, capsys, lambda call: "A")  # the same test in one run
    assert [g["seed"] for g in first + second] == [g["seed"] for g in whole]  # the next pairs' seeds
    status, lines, third = sequential(monkeypatch, capsys, lambda call: "A", WIDE, "40", "--sprt-file", kept)
    assert status == 0 and third == [] and row(lines, "verdict").startswith("H1 accepted")  # decided already


def test_a_file_of_another_test_or_no_test_is_refused(monkeypatch, capsys, tmp_path):
    kept = tmp_path / "test.jsonl"
    sequential(monkeypatch, capsys, lambda call: "B", WIDE, "2", "--sprt-file", str(kept))
    with pytest.raises(arena.UsageFailure, match="holds another test: its bounds 'elo0=0 elo1=200"):
        sequential(monkeypatch, capsys, lambda call: "B", "elo0=0 elo1=100", "2", "--sprt-file", str(kept))
    with pytest.raises(arena.UsageFailure, match="its seed 1, not 2"):
        sequential(monkeypatch, capsys, lambda call: "B", WIDE, "2", "--sprt-file", str(kept), "--seed", "2")
    kept.write_text(kept.read_text() + '{"pair": 7, "points": 3}\n')
    with pytest.raises(arena.UsageFailure, match="not a sequential test's file: line 3: pair 7 with 3.0 points"):
        sequential(monkeypatch, capsys, lambda call: "B", WIDE, "2", "--sprt-file", str(kept))
    assert cli.main(["arena", "gopher", "--a", "random", "--b", "alphabeta", "--sprt-file", str(kept)]) == 2
    assert "--sprt-file keeps a sequential test's pairs: give --sprt too" in capsys.readouterr().err


def test_elo_differences_are_signed_and_never_minus_zero():
    assert [arena._elo(x) for x in (73.4, -12.6, -0.3, 0.0, float("inf"), -float("inf"))] == \
        ["+73", "-13", "+0", "+0", "+inf", "-inf"]


def test_the_help_page_shows_the_test_and_its_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        cli.parse_args(["arena", "gopher", "--help"])
    page = " ".join(capsys.readouterr().out.split())
    assert "--sprt BOUNDS" in page and f'--sprt "{sprt.EXAMPLE}"' in page
    assert "with --sprt the most games in all, an odd number rounded up to whole pairs (1000)" in page
    assert "exit status 0: decided, 3: --games played without a decision, 1: a game crashed" in page
    assert "--cluster ADDRESS" in page


@pytest.mark.parametrize("text, words", [
    ("elo0=10 elo1=0", "elo0=10 must be less than elo1=0"),
    ("elo0=0 elo1=10 alpha=0.7", "alpha=0.7 must be between 0 and 0.5"),
    ("elo=0 elo1=10", "unknown key 'elo'"),
])
def test_a_bad_sprt_text_is_one_line_of_usage_error(capsys, text, words):
    assert cli.main(["arena", "gopher", "--a", "random", "--b", "alphabeta", "--sprt", text]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith("bots: error: argument --sprt: ") and words in line and sprt.EXAMPLE in line


@pytest.mark.parametrize("extra, words", [
    (["--show"], "--show draws the board here; the games of --cluster are played elsewhere"),
    (["--a", "human"], "--a 'human' is a person at this terminal and cannot play on a cluster"),
])
def test_what_cannot_be_played_on_a_cluster_is_refused(capsys, extra, words):
    line = ["arena", "gopher", "--a", "random", "--b", "alphabeta", "--sprt", WIDE, "--cluster", "127.0.0.1:1"]
    assert cli.main(line + extra) == 2
    assert capsys.readouterr().err == f"bots: error: {words}\n"


# -- --against R: the gauntlet form ---------------------------------------------------------------


def gauntlet(monkeypatch, capsys, outcome, bounds: str = WIDE, games: str = "40", *extra: str):
    """`sequential` with `--against mcts`: A (random) and B (alphabeta) each play mcts."""
    return sequential(monkeypatch, capsys, outcome, bounds, games, "--against", "mcts", *extra)


def test_a_gauntlet_pair_is_a_and_b_against_r_in_one_seat_with_one_seed(monkeypatch, capsys):
    # A beats R and B loses to it: every pair scores 2, and four of them decide
    status, lines, games = gauntlet(monkeypatch, capsys, lambda call: "A" if call % 2 == 0 else "R")
    assert status == 0 and len(games) == 8
    assert lines[0] == "A = random (tested)   B = alphabeta   R = mcts (the opponent of both)"
    for k, (a_game, b_game) in enumerate(zip(games[::2], games[1::2], strict=True)):
        assert a_game["seed"] == b_game["seed"] and a_game["setup"] == b_game["setup"]
        tested_first = k // 2 % 2 == 0  # two boards: each round of them in one seat, the next in the other
        seats = ("first", "second") if tested_first else ("second", "first")
        assert (a_game[seats[0]], a_game[seats[1]]) == ("random", "mcts")
        assert (b_game[seats[0]], b_game[seats[1]]) == ("alphabeta", "mcts")
        assert a_game["labels"] == (("A", "R") if tested_first else ("R", "A"))
        assert b_game["labels"] == (("B", "R") if tested_first else ("R", "B"))
    assert [g["setup"] for g in games[::2]] == ["3", "4", "3", "4"]
    assert len({g["seed"] for g in games}) == 4
    pairs = pair_lines(lines)
    assert pairs[0].startswith("pair 1 3: A 2 (as red against R, A won, B lost); 1 pairs [0 0 0 0 1]")
    assert pairs[2].startswith("pair 3 3: A 2 (as blue against R, A won, B lost)")
    assert "H1 accepted" in pairs[-1]
    assert row(lines, "test") == ("A = random tested against B = alphabeta through their games against R = mcts: "
                                  f"SPRT {sprt.parse(WIDE)}")
    assert row(lines, "against") == "R in this run's 4 pairs: A scored 100.0%, B 0.0%"
    tables = [i for i, line in enumerate(lines) if line.startswith("the games of ")]
    assert [lines[i] for i in tables] == ["the games of A against R (as A and B in this table):",
                                          "the games of B against R (as A and B in this table):"]
    assert lines[tables[0] + 1] == "A = random   B = mcts" and lines[tables[1] + 1] == "A = alphabeta   B = mcts"
    totals = [line.split()[1:5] for line in lines if line.startswith("TOTAL")]
    assert totals == [["4", "4", "0", "0"], ["4", "0", "0", "4"]]  # games, A (the tested), draws, B (R)


@pytest.mark.parametrize("outcome, counts", [
    (lambda call: "R", "0 0 4 0 0"),  # both lose to R: even pairs
    (lambda call: None, "0 0 4 0 0"),  # both draw
    (lambda call: "R" if call % 2 == 0 else None, "0 4 0 0 0"),  # A loses where B draws
    (lambda call: "R" if call % 2 == 0 else "B", "4 0 0 0 0"),  # A loses where B wins
])
def test_a_gauntlet_pair_counts_a_s_points_less_b_s(monkeypatch, capsys, outcome, counts):
    status, lines, games = gauntlet(monkeypatch, capsys, outcome, "elo0=-5 elo1=5", "8")
    assert len(games) == 8
    assert row(lines, "pairs").startswith(counts + " (pairs with 1 + A's points - B's points against R = mcts")


def test_a_gauntlet_file_is_not_another_test_s(monkeypatch, capsys, tmp_path):
    kept = tmp_path / "test.jsonl"
    a_wins = lambda call: "A" if call % 2 == 0 else "R"  # noqa: E731
    gauntlet(monkeypatch, capsys, a_wins, WIDE, "2", "--sprt-file", str(kept))
    with pytest.raises(arena.UsageFailure, match="holds another test: its against 'mcts', not None"):
        sequential(monkeypatch, capsys, lambda call: "A", WIDE, "2", "--sprt-file", str(kept))
    status, lines, games = gauntlet(monkeypatch, capsys, a_wins, WIDE, "40", "--sprt-file", str(kept))
    assert "1 pairs of this test played before" in lines[0] and len(games) == 6  # three more pairs decide


def test_against_needs_sprt_and_a_known_player(capsys):
    line = ["arena", "gopher", "--a", "random", "--b", "alphabeta"]
    assert cli.main(line + ["--against", "mcts"]) == 2
    assert capsys.readouterr().err == "bots: error: --against makes a sequential test a gauntlet: give --sprt too\n"
    assert cli.main(line + ["--sprt", WIDE, "--against", "greedy"]) == 2
    assert "unknown gopher player 'greedy'" in capsys.readouterr().err


# -- the real command ------------------------------------------------------------------------------


def bots(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bots.cli", "--log-level", "warning", "arena", "twilight",
                           "--maps", "thetrap", "--move-time", "0.05", "--overhead", "0.02", "--workers", "1", *args],
                          cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


@pytest.mark.e2e
@pytest.mark.slow
def test_greedy_tested_against_random_passes():
    result = bots("--a", "greedy", "--b", "random", "--sprt", NOT_WORSE, "--games", "40")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "A = greedy (tested)   B = random"
    pairs = pair_lines(lines)
    assert 2 <= len(pairs) <= 20 and "H1 accepted" in pairs[-1]
    assert all(re.match(r"pair \d+ thetrap: A [\d.]+ \(A first: \w+, B first: \w+\); \d+ pairs \[(\d+ ){4}\d+\], "
                        r"LLR -?\d+\.\d\d \[-1\.39, 1\.39\], Elo ", line) for line in pairs), pairs
    assert row(lines, "verdict").startswith("H1 accepted")
    assert float(row(lines, "LLR").split(",")[0]) >= 1.39


@pytest.mark.e2e
@pytest.mark.slow
def test_an_undecided_test_stops_at_the_cap_with_exit_status_3():
    result = bots("--a", "greedy", "--b", "random", "--sprt", "elo0=0 elo1=5", "--games", "3")
    assert result.returncode == 3, result.stderr
    lines = result.stdout.splitlines()
    assert len(pair_lines(lines)) == 2  # 3 games: two pairs
    assert row(lines, "verdict").startswith("no decision: 4 games played")


@pytest.mark.e2e
@pytest.mark.slow
def test_greedy_tested_against_random_through_their_games_against_alphabeta_passes():
    # random almost never beats alphabeta, greedy often does: not 300 Elo worse within a few pairs
    result = bots("--a", "greedy", "--b", "random", "--against", "alphabeta", "--sprt", NOT_WORSE, "--games", "40")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "A = greedy (tested)   B = random   R = alphabeta (the opponent of both)"
    pairs = pair_lines(lines)
    assert 1 <= len(pairs) <= 20 and "H1 accepted" in pairs[-1]
    assert all(re.match(r"pair \d+ thetrap: A [\d.]+ \(as (vampires|werewolves) against R, A \w+, B \w+\); ",
                        line) for line in pairs), pairs
    assert re.fullmatch(rf"R in this run's {len(pairs)} pairs: A scored [\d.]+%, B [\d.]+%", row(lines, "against"))
