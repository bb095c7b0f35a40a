"""tools/trap_maps.py: maps shaped like `thetrap`, the generated half of issue 30's race test."""

import subprocess
import sys
from pathlib import Path

from bots.twilight.maps import load_map
from bots.twilight.rules import distance

ROOT = Path(__file__).resolve().parents[2]


def test_trap_maps_have_the_shape_of_thetrap(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "trap_maps.py"), str(tmp_path), "--count", "40",
                           "--seed", "3"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    files = sorted(tmp_path.glob("trap*.xml"))
    assert len(files) == 40
    shapes = set()
    for f in files:
        s = load_map(str(f))
        (vx, vy, vn), = s.vampires
        (wx, wy, wn), = s.werewolves
        assert vn == wn and vx == wx and vy + wy == s.rows - 1, f  # mirrored about the middle row
        mid = s.rows // 2
        camps = {(x, y): n for x, y, n in s.humans}
        for (x, y), n in camps.items():
            assert camps.get((x, s.rows - 1 - y)) == n and n <= vn, f  # mirrored, and each convertible
            assert distance(x, y, vx, vy) == distance(x, s.rows - 1 - y, wx, wy), f
        (near, n_near), = [(c, n) for c, n in camps.items() if c[0] < vx]
        far = {c: n for c, n in camps.items() if c[0] > vx}
        assert near[1] == mid and len(far) == len(camps) - 1, f
        assert sum(far.values()) > n_near, f  # more humans on the far side ...
        assert min(distance(*c, vx, vy) for c in far) >= distance(*near, vx, vy) + 2, f  # ... and farther
        shapes.add((s.rows, s.cols, vn))
    assert len(shapes) > 10  # not one map forty times
    again = tmp_path / "again"
    subprocess.run([sys.executable, str(ROOT / "tools" / "trap_maps.py"), str(again), "--count", "3", "--seed", "3"],
                   check=True, capture_output=True, timeout=120, cwd=ROOT)
    assert [f.read_text() for f in sorted(again.glob("*.xml"))] == [f.read_text() for f in files[:3]]
