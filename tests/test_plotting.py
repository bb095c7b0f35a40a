"""matplotlib is an optional extra (bots.plotting): without it the commands that draw say what
to install, in one line before they start work, and nothing else needs it."""

from __future__ import annotations

import importlib.util

import pytest

from bots import cli, plotting


@pytest.fixture
def no_matplotlib(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))


@pytest.mark.parametrize("argv, what", [
    (["replay", "game.json", "--to-png", "out.png"], "--to-png"),
    (["tournament", "twilight", "--players", "random", "greedy", "--maps", "testmap2", "--report", "out"], "--report"),
])
def test_a_drawing_command_without_matplotlib_says_what_to_install(no_matplotlib, tmp_path, monkeypatch, capsys,
                                                                   argv, what):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"bots: error: {plotting.MISSING.format(what=what)}"
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.png").exists()  # no work started


def test_with_matplotlib_the_drawing_backend_needs_no_display():
    pytest.importorskip("matplotlib")
    assert plotting.pyplot().get_backend().lower() == "agg"
