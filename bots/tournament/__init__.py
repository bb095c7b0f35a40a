"""`bots tournament GAME`: many participants, many games, ratings and a report.

    schedule.py   the games to play: pairings x setups x games, seats alternating (deterministic)
    ledger.py     what was played: one JSON line per game and its record file (resuming reads it)
    play.py       one game through the game's own arena (the registry's `tournament` hook module)
    ratings.py    Bradley-Terry ratings by maximum likelihood, Elo scale, 95% intervals
    progress.py   the live display on a terminal, one log line per game otherwise
    report.py     one HTML page with PNG charts (matplotlib)
    cluster.py    the same games as Ray tasks on a Ray cluster (the optional `cluster` extra)
    command.py    the command line, which ties them together

Nothing here names a game: a game takes part through its `tournament` module (its options,
its setups, how a participant is checked, `play_one`).
"""
