"""The status page of a live daemon in a real browser: headless Chromium screenshots, at a
desktop's and a phone's width, of a Twilight game in progress show the board."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from tests.test_daemon import Daemon

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
ATTEMPTS = 3  # screenshots tried before the test fails
VAMPIRES, WEREWOLVES = (0xD3, 0x2F, 0x2F), (0x15, 0x65, 0xC0)  # bots.twilight.record.COLOURS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/status", timeout=5) as answer:
        return json.load(answer)


def board_drawn(url: str, bot: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/board/{bot}", timeout=30) as answer:
            return answer.status == 200
    except urllib.error.HTTPError:
        return False


def screenshot(url: str, path: Path, width: int, height: int) -> np.ndarray:
    from PIL import Image

    # --virtual-time-budget lets the page run 4 s of its own time before the picture, but Chromium
    # sometimes never ends that budget (CI once waited 240 s for a shot that takes 3): each try
    # gets a minute, and a try that hangs is killed and made again.
    # A failure shows what Chromium printed in each try, so a hang on a CI machine can be told apart.
    said = []
    for attempt in range(ATTEMPTS):
        try:
            subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            f"--user-data-dir={path.with_suffix(f'.profile{attempt}')}",  # never another's profile
                            "--virtual-time-budget=4000", f"--window-size={width},{height}", f"--screenshot={path}",
                            url], capture_output=True, timeout=60, check=True)
            break
        except subprocess.TimeoutExpired as hung:
            said.append((hung.stderr or b"")[-2000:].decode(errors="replace"))
    else:
        pytest.fail(f"Chromium hung {ATTEMPTS} times on {url}; its stderr in each try:\n" + "\n---\n".join(said))
    return np.asarray(Image.open(path).convert("RGB")).astype(int)


def pixels_of(image: np.ndarray, colour: tuple[int, int, int]) -> int:
    return int((np.abs(image - np.array(colour)).sum(axis=2) < 30).sum())


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.external
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium; .ci/run does)")
def test_a_live_game_shows_its_board_in_chromium(tmp_path):
    game_port, page_port = free_port(), free_port()
    server = subprocess.Popen([sys.executable, "-m", "bots.cli", "--log-level", "error", "serve", "twilight",
                               "--map", "map8", "--port", str(game_port), "--move-timeout", "1", "--games", "50"],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    config = tmp_path / "bots.toml"
    config.write_text(f'[runner]\nworkers = 2\n[status]\nlisten = "127.0.0.1:{page_port}"\n' + "".join(
        f'[[bot]]\nname = "{name}"\ngame = "twilight"\nhost = "127.0.0.1"\nport = {game_port}\n'
        'player = "planner"\nmove_time = 1.0\n' for name in ("red", "blue")))
    daemon = Daemon.command(config)
    url = f"http://127.0.0.1:{page_port}"
    try:
        daemon.until("status page", 60)
        deadline = time.monotonic() + 120
        while True:  # a game in progress with a few positions, and its board drawn once
            playing = [b["name"] for b in status(url)["bots"] if b["playing"] and b["playing"]["board_version"] >= 3]
            if playing and board_drawn(url, playing[0]):
                break
            assert time.monotonic() < deadline, "no game in progress with its board drawn within 120 s"
            time.sleep(0.2)
        wide = screenshot(url + "/", tmp_path / "wide.png", 1200, 1400)
        phone = screenshot(url + "/", tmp_path / "phone.png", 390, 1600)
    finally:
        daemon.stop()
        server.kill()
        server.wait()
    for image in (wide, phone):
        assert image.std() > 20  # text and tables, not a blank page
        # the board: the vampires' and the werewolves' squares (a few thousand pixels each)
        assert pixels_of(image, VAMPIRES) > 300 and pixels_of(image, WEREWOLVES) > 300
    # on a phone the page fits its width: the board is drawn in the narrow column
    columns = np.nonzero((np.abs(phone - np.array(VAMPIRES)).sum(axis=2) < 30).any(axis=0))[0]
    assert columns.max() < 390
