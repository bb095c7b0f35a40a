"""Twilight maps in the official XML format, and the public maps we ship.

    <Map Rows="5" Columns="10">
      <Humans X="2" Y="2" Count="4"/> ...
      <Vampires X="4" Y="3" Count="4"/>
      <Werewolves X="4" Y="1" Count="4"/>
    </Map>

X is the column, Y the row.  Duplicate Humans entries for one cell keep the last one;
Humans on a start cell are dropped (a cell holds one population), as the public
`map2.xml` needs.

`<Map ... Groups="several">` is ours: a position with several groups of a species (an endgame
for `bots arena`, played by our referee, which sends the first group's cell as HME).  The
official server's maps have one start cell per species.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

from protocol.twilight import Cell

from .rules import MAX_UNITS, State, Species, state_from_cells


class MapError(ValueError):
    """A map file that cannot be played; the message names the file and the problem."""


def shipped_maps() -> dict[str, Path]:
    """name -> path of every map shipped as package data."""
    folder = resources.files("bots.twilight") / "maps"
    return {p.name.removesuffix(".xml"): Path(str(p)) for p in folder.iterdir() if p.name.endswith(".xml")}


def resolve_map(name_or_path: str) -> Path:
    """A shipped map by name (`thetrap`) or any file path."""
    maps = shipped_maps()
    if name_or_path in maps:
        return maps[name_or_path]
    path = Path(name_or_path)
    if not path.is_file():
        raise MapError(f"{name_or_path}: no such file, and not a shipped map ({', '.join(sorted(maps))})")
    return path


def _int(el: ET.Element, attr: str, where: str, low: int, high: int) -> int:
    raw = el.get(attr)
    if raw is None:
        raise MapError(f"{where}: <{el.tag}> has no {attr} attribute")
    try:
        value = int(raw)
    except ValueError:
        raise MapError(f"{where}: <{el.tag}> {attr}={raw!r} is not an integer") from None
    if not low <= value <= high:
        raise MapError(f"{where}: <{el.tag}> {attr}={value} is outside {low}..{high}")
    return value


def parse_map(text: str, where: str = "<map>", max_plies: int = 200) -> State:
    """The initial state described by a map document (vampires to move)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise MapError(f"{where}: not valid XML ({exc})") from None
    if root.tag != "Map":
        raise MapError(f"{where}: root element is <{root.tag}>, expected <Map>")
    rows = _int(root, "Rows", where, 1, 255)
    cols = _int(root, "Columns", where, 1, 255)
    several = root.get("Groups") == "several"
    if root.get("Groups") not in (None, "several"):
        raise MapError(f"{where}: <Map> Groups={root.get('Groups')!r}: the only value is \"several\"")
    humans: dict[tuple[int, int], int] = {}
    starts: dict[str, list[tuple[int, int, int]]] = {}
    for el in root:
        if not isinstance(el.tag, str):
            continue  # comments, processing instructions
        if el.tag not in ("Humans", "Vampires", "Werewolves"):
            raise MapError(f"{where}: unknown element <{el.tag}>")
        x = _int(el, "X", where, 0, cols - 1)
        y = _int(el, "Y", where, 0, rows - 1)
        count = _int(el, "Count", where, 1, MAX_UNITS)
        if el.tag == "Humans":
            humans[(x, y)] = count
        elif el.tag in starts and not several:
            raise MapError(f"{where}: more than one <{el.tag}> start cell (a position of ours says Groups=\"several\")")
        else:
            starts.setdefault(el.tag, []).append((x, y, count))
    for tag in ("Vampires", "Werewolves"):
        if tag not in starts:
            raise MapError(f"{where}: no <{tag}> start cell")
    monsters = [(x, y, n, 0) for x, y, n in starts["Vampires"]] + [(x, y, 0, n) for x, y, n in starts["Werewolves"]]
    seen: set[tuple[int, int]] = set()
    for x, y, _, _ in monsters:
        if (x, y) in seen:
            raise MapError(f"{where}: two start cells on the same cell ({x},{y})")
        seen.add((x, y))
        humans.pop((x, y), None)
    if len(humans) + len(monsters) > 255:
        raise MapError(f"{where}: {len(humans) + len(monsters)} non-empty cells; a MAP frame carries at most 255")
    cells = [Cell(x, y, n, 0, 0) for (x, y), n in humans.items()]
    cells += [Cell(x, y, 0, v, w) for x, y, v, w in monsters]
    return state_from_cells(rows, cols, cells, Species.VAMPIRES, 0, max_plies)


def load_map(name_or_path: str, max_plies: int = 200) -> State:
    """Read a map file (or a shipped map by name); MapError names the file on failure."""
    path = resolve_map(name_or_path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MapError(f"{path}: cannot read ({exc})") from None
    return parse_map(text, str(path), max_plies)


def to_xml(state: State) -> str:
    """A map document for a state (used by tests and map tools)."""
    several = ' Groups="several"' if len(state.vampires) > 1 or len(state.werewolves) > 1 else ""
    lines = [f'<Map Rows="{state.rows}" Columns="{state.cols}"{several}>']
    lines += [f'  <Humans X="{x}" Y="{y}" Count="{n}"/>' for x, y, n in state.humans]
    for tag, groups in (("Vampires", state.vampires), ("Werewolves", state.werewolves)):
        lines += [f'  <{tag} X="{x}" Y="{y}" Count="{n}"/>' for x, y, n in groups]
    return "\n".join(lines + ["</Map>", ""])
