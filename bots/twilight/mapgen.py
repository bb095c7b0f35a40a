"""Seeded random Twilight maps that are fair by construction (`bots maps generate`).

The official tool is `mapgen.exe width height homes file` (docs/protocols/twilight.md section 11);
this one is ours and deterministic: the same arguments and seed give the same map.

- The map is point-symmetric: cell (x, y) mirrors to (W-1-x, H-1-y).
- Vampires and Werewolves start on mirrored cells, at Chebyshev distance >= 2 (two moves
  apart at least), with equal counts.
- Human camps come in mirrored pairs with equal counts.  With an odd number of camps the
  unpaired one sits on the centre cell, which exists only when W and H are both odd; on
  any other grid no cell is its own mirror, so it sits on a cell exactly as many moves
  from one start cell as from the other: the one camp off the symmetry, still fair.
- Defaults: `monsters` (units on each start cell) random in 4..12; camp counts random in
  1..`max_camp`, default min(2 * monsters, (255 - monsters) // homes), at least 1, so that a
  side converting every camp still fits its 255-unit cell whenever that is possible.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from protocol.twilight import Cell

from .maps import to_xml
from .rules import MAX_UNITS, State, state_from_cells

MIN_SIDE, MAX_SIDE = 3, 30
MAX_CAMPS = MAX_UNITS - 2  # a MAP frame lists at most 255 cells, two of them the start cells


def max_homes(width: int, height: int) -> int:
    """The most human camps a width x height map can hold (either parity fits)."""
    return min(MAX_CAMPS, width * height - 2)


def _moves(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def generate(width: int, height: int, homes: int, seed: int, *,
             monsters: int | None = None, max_camp: int | None = None) -> State:
    """A fair random map (see the module docstring); ValueError on impossible arguments."""
    for name, value in (("width", width), ("height", height)):
        if not MIN_SIDE <= value <= MAX_SIDE:
            raise ValueError(f"{name} {value} is outside {MIN_SIDE}..{MAX_SIDE}")
    if not 0 <= homes <= max_homes(width, height):
        raise ValueError(f"{homes} human camps do not fit: a {width}x{height} map holds 0..{max_homes(width, height)}")
    for name, value in (("monsters", monsters), ("max_camp", max_camp)):
        if value is not None and not 1 <= value <= MAX_UNITS:
            raise ValueError(f"{name} {value} is outside 1..{MAX_UNITS}")
    rng = random.Random(seed)
    cells = [(x, y) for y in range(height) for x in range(width)]

    def mirror(c: tuple[int, int]) -> tuple[int, int]:
        return width - 1 - c[0], height - 1 - c[1]

    def equidistant(start: tuple[int, int]) -> list[tuple[int, int]]:
        return [c for c in cells if _moves(c, start) == _moves(c, mirror(start))]

    centre = (width // 2, height // 2) if width % 2 and height % 2 else None
    off_centre = homes % 2 == 1 and centre is None  # the unpaired camp needs an equidistant cell
    starts = [c for c in cells if _moves(c, mirror(c)) >= 2]
    rng.shuffle(starts)
    vampires = next(c for c in starts if not off_centre or equidistant(c))  # one always exists (3..30)
    monsters = rng.randint(4, 12) if monsters is None else monsters
    if max_camp is None:
        max_camp = max(1, min(2 * monsters, (MAX_UNITS - monsters) // max(homes, 1)))
    taken = {vampires, mirror(vampires)}
    camps: list[tuple[tuple[int, int], int]] = []
    if homes % 2:
        single = centre or rng.choice(equidistant(vampires))
        camps.append((single, rng.randint(1, max_camp)))
        taken |= {single, mirror(single)}
    pairs = [c for c in cells if c < mirror(c) and c not in taken]  # one cell per mirrored pair
    for c in rng.sample(pairs, homes // 2):
        count = rng.randint(1, max_camp)
        camps += [(c, count), (mirror(c), count)]
    entries = [Cell(x, y, n, 0, 0) for (x, y), n in camps]
    entries += [Cell(*vampires, 0, monsters, 0), Cell(*mirror(vampires), 0, 0, monsters)]
    return state_from_cells(height, width, entries)


# -- the command line ---------------------------------------------------------------------

EXAMPLES = """examples:
  bots maps generate 10 8 6 --seed 7 -o mymap.xml
  bots maps generate --count 20 --dir maps/gen --sizes 5-15 --homes 2-12 --seed 3
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add `maps generate` to the `bots` subcommands."""
    p = sub.add_parser("maps", help="Twilight map tools: generate fair random maps",
                       description="Twilight map tools: `generate` writes fair (point-symmetric) random maps in the "
                                   "official XML, one or many.", epilog=EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="maps_command", required=True, metavar="ACTION")
    g = actions.add_parser("generate", help="a seeded, point-symmetric random map (official XML)",
                           description=__doc__.split("\n\n")[2], epilog=EXAMPLES,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    g.add_argument("width", nargs="?", metavar="WIDTH", help=f"columns, {MIN_SIDE}..{MAX_SIDE} (one map)")
    g.add_argument("height", nargs="?", metavar="HEIGHT", help=f"rows, {MIN_SIDE}..{MAX_SIDE}")
    g.add_argument("homes", nargs="?", metavar="HOMES", help=f"human camps, 0..min({MAX_CAMPS}, W*H-2)")
    g.add_argument("--seed", default="1", help="the random seed (default: %(default)s)")
    g.add_argument("--monsters", default=None, metavar="N", help="units on each start cell (default: random 4..12)")
    g.add_argument("--max-camp", default=None, metavar="N",
                   help="the largest camp (default: min(2*monsters, (255-monsters)//homes), at least 1)")
    g.add_argument("-o", "--output", default=None, metavar="FILE", help="write the map here (default: stdout)")
    g.add_argument("--count", default=None, metavar="K", help="write K maps into --dir (default: one map)")
    g.add_argument("--dir", default=None, help="with --count: where gen_<seed>_<W>x<H>_<homes>.xml go"
                                               " (default: none, required with --count)")
    g.add_argument("--sizes", default="5-30", metavar="LO-HI",
                   help="with --count: widths and heights drawn from this range (default: %(default)s)")
    g.add_argument("--homes", dest="homes_range", default="2-40", metavar="LO-HI",
                   help="with --count: camps drawn from this range, capped by each map's size (default: %(default)s)")
    p.set_defaults(func=cmd_maps)


def _int(text: str, name: str, low: int | None = None, high: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} {text!r} is not an integer") from None
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} {value} is outside {low}..{high}")
    return value


def _range(text: str, name: str, low: int, high: int) -> tuple[int, int]:
    """'5-30' (or '8', meaning 8-8) -> (5, 30), both ends within low..high."""
    lo, dash, hi = text.partition("-")
    try:
        first, last = int(lo), int(hi if dash else lo)
    except ValueError:
        raise ValueError(f"{name} {text!r} is not a range LO-HI") from None
    if not low <= first <= last <= high:
        raise ValueError(f"{name} {text!r} must be LO-HI with {low} <= LO <= HI <= {high}")
    return first, last


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc.strerror or exc}") from None


def cmd_maps(args: argparse.Namespace) -> int:
    """`bots maps generate ...`; bad input is one line on stderr and exit code 2."""
    try:
        seed = _int(args.seed, "--seed")
        options = {"monsters": None if args.monsters is None else _int(args.monsters, "--monsters", 1, MAX_UNITS),
                   "max_camp": None if args.max_camp is None else _int(args.max_camp, "--max-camp", 1, MAX_UNITS)}
        given = [v for v in (args.width, args.height, args.homes) if v is not None]
        if args.count is None:
            if len(given) != 3 or args.dir:
                raise ValueError("give WIDTH HEIGHT HOMES for one map, or --count K --dir DIR for many")
            width, height, homes = (_int(v, n) for v, n in zip(given, ("WIDTH", "HEIGHT", "HOMES"), strict=True))
            text = to_xml(generate(width, height, homes, seed, **options))
            if args.output is None:
                sys.stdout.write(text)
            else:
                _write(Path(args.output), text)
            return 0
        if given or args.output or not args.dir:
            raise ValueError("--count K writes into --dir DIR; give no WIDTH HEIGHT HOMES and no -o")
        count = _int(args.count, "--count", 1, 1_000_000)
        low, high = _range(args.sizes, "--sizes", MIN_SIDE, MAX_SIDE)
        fewest, most = _range(args.homes_range, "--homes", 0, MAX_CAMPS)
        if fewest > max_homes(low, low):
            raise ValueError(f"--homes {args.homes_range}: a {low}x{low} map holds at most {max_homes(low, low)} camps")
        folder = Path(args.dir)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"cannot write {folder}: {exc.strerror or exc}") from None
        rng = random.Random(seed)
        for map_seed in rng.sample(range(1_000_000), count):  # distinct seeds, so distinct file names
            width, height = rng.randint(low, high), rng.randint(low, high)
            homes = rng.randint(fewest, min(most, max_homes(width, height)))
            path = folder / f"gen_{map_seed}_{width}x{height}_{homes}.xml"
            _write(path, to_xml(generate(width, height, homes, map_seed, **options)))
            print(path, flush=True)
        return 0
    except ValueError as exc:
        print(f"bots: error: {exc}", file=sys.stderr)
        return 2
