"""The report as a person sees it: the page rendered by a real browser (headless Chromium), and
the live display's text."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bots.tournament.progress import Display
from bots.tournament.ratings import fit
from tests.tournament.cli import FAST, bots

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
CHARTS = ("ratings.png", "matrix.png", "breakdown.png", "latency.png", "lengths.png")


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("tournament") / "report"
    out = bots("tournament", "twilight", "--players", "random", "greedy", "alphabeta:max_depth=1",
               "--maps", "testmap2", "map8", "--games", "2", "--report", str(directory), *FAST)
    assert out.returncode == 0, out.stderr
    assert f"report: {directory / 'index.html'}" in out.stdout
    return directory


@pytest.mark.slow
@pytest.mark.e2e
def test_the_page_links_only_files_beside_it(report):
    page = (report / "index.html").read_text()
    images = re.findall(r"<img src='([^']+)'", page)
    assert sorted(images) == sorted(CHARTS)
    for link in re.findall(r"(?:src|href)='([^']+)'", page):
        assert "://" not in link and (report / link).is_file(), link  # offline: relative paths that exist
    assert (report / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ("random", "greedy", "alphabeta:max_depth=1"):
        assert f"<td>{name}</td>" in page
    assert "Runner overhead" in page and "Faults" in page


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.external
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium; .ci/run does)")
def test_the_page_renders_in_a_browser(report, tmp_path):
    from PIL import Image

    shot = tmp_path / "page.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1200,2000",
                    (report / "index.html").as_uri()],
                   capture_output=True, timeout=90, check=True)
    import numpy as np

    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert pixels.shape == (2000, 1200, 3)
    colours = {tuple(p) for p in pixels.reshape(-1, 3)[::7]}
    assert len(colours) > 50  # text, tables and charts, not a blank page or an error page
    assert pixels.mean(axis=2).var() > 200  # real contrast
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    # the heat maps' greens and reds made it into the rendered page (the images loaded)
    assert ((g > r + 60) & (g > b + 60)).sum() > 1000
    assert ((r > g + 60) & (r > b + 60)).sum() > 1000


def test_the_live_display_shows_progress_and_standings():
    from rich.console import Console

    names = ["a", "b", "c"]
    display = Display("Twilight tournament", 12, 2, lambda: fit(names, [("a", "b", 1.0), ("b", "a", 0.0),
                                                                         ("c", "b", 0.5)]), live=False)
    display.played = 1
    console = Console(record=True, width=100)
    console.print(display._render())
    text = console.export_text()
    assert "Twilight tournament: 3/12 games (2 from an earlier run)" in text and "left" in text
    lines = [line.split() for line in text.splitlines() if line.strip()[:1].isdigit()]
    assert [line[1] for line in lines] == ["a", "c", "b"]  # by rating, best first
    assert lines[0][4] == "+0" and lines[0][5] == "anchor"
