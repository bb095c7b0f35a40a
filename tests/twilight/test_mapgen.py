"""The seeded random map generator (`bots maps generate`): fairness, bounds, XML round trip, the CLI."""

import subprocess
import sys
from pathlib import Path

import pytest

from bots.twilight.mapgen import MAX_CAMPS, generate, max_homes
from bots.twilight.maps import load_map, parse_map, to_xml
from bots.twilight.rules import MAX_UNITS, Species

ROOT = Path(__file__).resolve().parents[2]


def bots(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bots.cli", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("bots: error: ") and result.stdout == ""
    return lines[0]


def moves(a, b) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def check_fair(s, width, height, homes, monsters=None, max_camp=None) -> None:
    """Every property the generator promises."""
    assert (s.cols, s.rows, s.to_move, s.ply, s.max_plies) == (width, height, Species.VAMPIRES, 0, 200)
    mirror = lambda x, y: (width - 1 - x, height - 1 - y)  # noqa: E731
    ((vx, vy, vn),), ((wx, wy, wn),) = s.vampires, s.werewolves
    assert (wx, wy) == mirror(vx, vy) and vn == wn and moves((vx, vy), (wx, wy)) >= 2
    assert 4 <= vn <= 12 if monsters is None else vn == monsters
    assert len(s.humans) == homes
    cells = [(x, y) for x, y, _ in s.humans] + [(vx, vy), (wx, wy)]
    assert len(set(cells)) == len(cells)
    assert all(0 <= x < width and 0 <= y < height for x, y in cells)
    assert all(1 <= n <= (max_camp or MAX_UNITS) for _, _, n in s.humans)
    camps = {(x, y): n for x, y, n in s.humans}
    unpaired = [(x, y) for (x, y), n in camps.items() if camps.get(mirror(x, y)) != n]
    if homes % 2 == 0:
        assert unpaired == []
    elif width % 2 and height % 2:
        assert unpaired == [] and (width // 2, height // 2) in camps
    else:  # no centre cell: the one unpaired camp is as many moves from each start
        assert len(unpaired) == 1
        assert moves(unpaired[0], (vx, vy)) == moves(unpaired[0], (wx, wy))
    assert parse_map(to_xml(s), max_plies=200) == s


def test_same_seed_same_map_and_different_seeds_differ():
    assert generate(12, 9, 8, seed=5) == generate(12, 9, 8, seed=5)
    maps = {generate(12, 9, 8, seed=seed) for seed in range(20)}
    assert len(maps) == 20
    assert generate(12, 9, 8, 5, monsters=6) == generate(12, 9, 8, 5, monsters=6)


def test_the_global_random_is_left_alone():
    import random

    random.seed(123)
    expected = random.random()
    random.seed(123)
    generate(10, 10, 10, seed=1)
    assert random.random() == expected


@pytest.mark.parametrize("width", [5, 6, 11, 16, 23, 30])
@pytest.mark.parametrize("height", [5, 8, 13, 30])
@pytest.mark.parametrize("homes", [2, 3, 7, 10, 21, 40])
def test_a_grid_of_sizes_and_camps(width, height, homes):
    if homes > width * height - 2:  # 40 camps on 5x5 or 5x8: more camps than free cells
        with pytest.raises(ValueError, match=f"a {width}x{height} map holds 0..{width * height - 2}"):
            generate(width, height, homes, seed=0)
        return
    for seed in range(3):
        check_fair(generate(width, height, homes, seed), width, height, homes)


@pytest.mark.parametrize("width, height", [(3, 3), (3, 4), (4, 3), (4, 4), (5, 3), (30, 3)])
@pytest.mark.parametrize("homes", ["none", "one", "most", "most-1"])
def test_small_grids_from_empty_to_full(width, height, homes):
    homes = {"none": 0, "one": 1, "most": max_homes(width, height), "most-1": max_homes(width, height) - 1}[homes]
    for seed in range(5):
        check_fair(generate(width, height, homes, seed), width, height, homes)


def test_a_full_30x30_map_stops_at_what_a_map_frame_carries():
    assert max_homes(30, 30) == MAX_CAMPS == 253
    for homes in (252, 253):
        check_fair(generate(30, 30, homes, seed=2), 30, 30, homes)


def test_options_are_obeyed():
    s = generate(15, 15, 30, seed=9, monsters=20, max_camp=3)
    check_fair(s, 15, 15, 30, monsters=20, max_camp=3)
    assert generate(15, 15, 30, seed=9, monsters=255, max_camp=255).vampires[0][2] == 255


def test_default_camps_keep_the_total_within_one_cell():
    for seed in range(30):
        s = generate(20, 20, 40, seed)
        assert s.population(Species.VAMPIRES) + sum(n for _, _, n in s.humans) <= MAX_UNITS
        s = generate(9, 9, 2, seed)  # few camps: up to twice the start count each
        assert max(n for _, _, n in s.humans) <= 2 * s.vampires[0][2]


@pytest.mark.parametrize("kwargs, message", [
    (dict(width=2, height=5, homes=2), "width 2 is outside 3..30"),
    (dict(width=31, height=5, homes=2), "width 31 is outside 3..30"),
    (dict(width=5, height=0, homes=2), "height 0 is outside 3..30"),
    (dict(width=3, height=3, homes=8), "8 human camps do not fit: a 3x3 map holds 0..7"),
    (dict(width=30, height=30, homes=254), "a 30x30 map holds 0..253"),
    (dict(width=5, height=5, homes=-1), "-1 human camps do not fit"),
    (dict(width=5, height=5, homes=2, monsters=0), "monsters 0 is outside 1..255"),
    (dict(width=5, height=5, homes=2, max_camp=256), "max_camp 256 is outside 1..255"),
])
def test_bounds_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        generate(seed=1, **kwargs)


# -- the command line ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_writes_one_map_to_stdout_deterministically():
    result = bots("maps", "generate", "10", "7", "5", "--seed", "42", "--monsters", "9")
    assert result.returncode == 0, result.stderr
    assert result.stdout == to_xml(generate(10, 7, 5, 42, monsters=9))
    assert bots("maps", "generate", "10", "7", "5", "--seed", "42", "--monsters", "9").stdout == result.stdout


@pytest.mark.e2e
def test_cli_writes_one_map_to_a_file(tmp_path):
    out = tmp_path / "m.xml"
    result = bots("maps", "generate", "8", "8", "6", "--max-camp", "4", "-o", str(out))
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""
    check_fair(load_map(str(out)), 8, 8, 6, max_camp=4)
    assert load_map(str(out)) == generate(8, 8, 6, 1, max_camp=4)  # the default seed is 1


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_writes_many_maps(tmp_path):
    folder = tmp_path / "gen"
    result = bots("maps", "generate", "--count", "6", "--dir", str(folder), "--sizes", "5-9", "--homes", "2-12",
                  "--seed", "3")
    assert result.returncode == 0, result.stderr
    paths = [Path(line) for line in result.stdout.splitlines()]
    assert len(paths) == 6 and sorted(folder.iterdir()) == sorted(paths)
    for path in paths:
        _, seed, size, homes = path.stem.split("_")
        width, height = map(int, size.split("x"))
        assert 5 <= width <= 9 and 5 <= height <= 9 and 2 <= int(homes) <= 12
        s = load_map(str(path))
        check_fair(s, width, height, int(homes))
        assert s == generate(width, height, int(homes), int(seed))  # each file can be made again alone
    again = tmp_path / "again"
    bots("maps", "generate", "--count", "6", "--dir", str(again), "--sizes", "5-9", "--homes", "2-12",
         "--seed", "3")
    assert [p.name for p in sorted(again.iterdir())] == [p.name for p in sorted(folder.iterdir())]


@pytest.mark.e2e
def test_cli_caps_camps_by_the_map_size(tmp_path):
    result = bots("maps", "generate", "--count", "5", "--dir", str(tmp_path), "--sizes", "3", "--homes", "5-40")
    assert result.returncode == 0, result.stderr
    assert all(5 <= int(p.stem.split("_")[3]) <= 7 for p in tmp_path.iterdir())


@pytest.mark.e2e
@pytest.mark.parametrize("args, message", [
    (["2", "5", "2"], "width 2 is outside 3..30"),
    (["5", "5", "24"], "24 human camps do not fit: a 5x5 map holds 0..23"),
    (["five", "5", "2"], "WIDTH 'five' is not an integer"),
    (["5", "5"], "give WIDTH HEIGHT HOMES"),
    (["5", "5", "2", "--seed", "x"], "--seed 'x' is not an integer"),
    (["5", "5", "2", "--monsters", "300"], "--monsters 300 is outside 1..255"),
    (["--count", "3"], "--count K writes into --dir DIR"),
    (["--count", "0", "--dir", "d"], "--count 0 is outside"),
    (["--count", "3", "--dir", "d", "--sizes", "5-"], "--sizes '5-' is not a range LO-HI"),
    (["--count", "3", "--dir", "d", "--sizes", "9-5"], "--sizes '9-5' must be LO-HI with 3 <= LO <= HI <= 30"),
    (["--count", "3", "--dir", "d", "--sizes", "2-30"], "must be LO-HI with 3 <= LO"),
    (["--count", "3", "--dir", "d", "--homes", "a-b"], "--homes 'a-b' is not a range LO-HI"),
    (["--count", "3", "--dir", "d", "--sizes", "3-5", "--homes", "8-10"], "a 3x3 map holds at most 7 camps"),
])
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    line = one_error_line(bots("maps", "generate", *args, cwd=tmp_path))
    assert message in line, line
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_unwritable_output_is_one_line_and_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    line = one_error_line(bots("maps", "generate", "5", "5", "2", "-o", str(blocker / "m.xml")))
    assert f"cannot write {blocker / 'm.xml'}" in line
    line = one_error_line(bots("maps", "generate", "--count", "2", "--dir", str(blocker / "sub")))
    assert f"cannot write {blocker / 'sub'}" in line


@pytest.mark.slow
@pytest.mark.e2e
def test_cli_help_shows_every_option_with_its_default():
    result = bots("maps", "generate", "--help")
    assert result.returncode == 0, result.stderr
    for option in ("--seed", "--monsters", "--max-camp", "--output", "--count", "--dir", "--sizes", "--homes"):
        assert option in result.stdout, option
    assert "(default: 1)" in result.stdout and "(default: 5-30)" in result.stdout
    assert "maps" in bots("--help").stdout
