"""The tournament's report: DIR/index.html and the PNG charts beside it (matplotlib), which
together work offline: the page links its images and the game records by relative paths.

Charts: ratings with their 95% intervals, the pairwise score matrix, the score per setup
(map or board) and per seat (side or colour), each participant's move latencies against the
move limit, the games' lengths per setup.  Tables: the ratings, the runner's own overhead,
and every fault (illegal moves and other rule breaches, time-outs, crashed games) with a link
to its game's record.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..stats import percentile
from .ledger import first_score, seat_of
from .ratings import Ratings, ranked

LIMIT_COLOUR = "#c0392b"


@dataclass
class Overhead:
    """What the runner spent beyond the moves themselves (the games of this run only)."""

    games: int = 0
    playing: float = 0.0  # the moves' own time, summed
    in_games: float = 0.0  # the games' wall time beyond their moves: servers, sockets, engines, records
    startup: float = 0.0  # the search workers (here, or each Ray task's), joining the Ray cluster
    bookkeeping: float = 0.0  # the ledger and record files
    report: float = 0.0  # writing this report (known once it is written: printed, not on the page)
    wall: float = 0.0
    per_host: dict[str, int] = field(default_factory=dict)

    def add(self, entry: dict) -> None:
        self.games += 1
        self.per_host[entry.get("host", "?")] = self.per_host.get(entry.get("host", "?"), 0) + 1
        moves = sum(moves_time(entry["record"])) if entry.get("record") else 0.0
        self.playing += moves
        self.in_games += max(0.0, entry["seconds"] - moves)
        self.startup += entry.get("startup", 0.0)  # a Ray task's own pool

    def share(self) -> float:
        """The runner's overhead as a share of the playing time."""
        return (self.in_games + self.startup + self.bookkeeping + self.report) / self.playing if self.playing else 0.0

    def line(self) -> str:
        if not self.games:
            return "runner overhead: none, no games played in this run"
        per_game = (self.in_games + self.bookkeeping) / self.games
        return (f"runner overhead: {per_game:.3f} s per game beyond its moves ({self.games} games, "
                f"{self.playing:.1f} s of moves), start-up {self.startup:.1f} s, report {self.report:.1f} s: "
                f"{100 * self.share():.1f}% of the playing time; wall time {self.wall:.1f} s")


def moves_time(record: dict) -> list[float]:
    """Every move's latency in a record, both seats."""
    return [t for seat in record.get("latencies", {}).values() for t in seat]


def length(record: dict) -> int:
    """A game's length in plies (moves of both sides)."""
    return int(record["plies"]) if "plies" in record else len(record.get("moves", []))


def faults(entries: list[dict], crashed: list[dict]) -> list[dict[str, Any]]:
    """Every rule breach, time-out and crash: setup, game, participant, seat, what, detail, file."""
    out = []
    for e in entries:
        names = {seat: e["first"] if label == "A" else e["second"] for seat, label in e["record"]["players"].items()}
        base = {"setup": e["setup"], "game": e["index"], "file": e.get("file")}
        for v in e["record"].get("violations", []):
            seat = v.get("species", "?")
            out.append({**base, "who": names.get(seat, "?"), "seat": seat, "what": v.get("reason", "illegal move"),
                        "detail": v.get("detail") or v.get("move") or ""})
        for seat, count in e["record"].get("timeouts", {}).items():
            if count:
                out.append({**base, "who": names.get(seat, "?"), "seat": seat, "what": f"time-out x{count}",
                            "detail": ""})
    for e in crashed:
        out.append({"setup": e["setup"], "game": e["index"], "file": None, "who": f"{e['first']} vs {e['second']}",
                    "seat": "", "what": "crashed", "detail": e.get("error") or ""})
    return out


# -- charts -------------------------------------------------------------------------------------------


def _plt():
    from ..plotting import pyplot

    return pyplot()


def _short(name: str, width: int = 30) -> str:
    """A name that fits a chart's label: an engine's command line keeps its start and its end
    (where its options differ)."""
    if len(name) <= width:
        return name
    head = (width - 1) // 2
    return name[:head] + "…" + name[len(name) - (width - 1 - head):]


def _save(fig: Any, directory: Path, name: str) -> str:
    fig.savefig(directory / name, dpi=100, bbox_inches="tight")
    _plt().close(fig)
    return name


def chart_ratings(ratings: Ratings, directory: Path) -> str:
    plt = _plt()
    rows = [r for r in ranked(ratings.rows) if r.elo is not None][::-1]
    fig, ax = plt.subplots(figsize=(10, 0.5 * len(rows) + 1.5))
    y = np.arange(len(rows))
    elo = np.array([r.elo for r in rows])
    err = np.array([[r.elo - r.low for r in rows], [r.high - r.elo for r in rows]])
    ax.errorbar(elo, y, xerr=err, fmt="o", color="#2c3e50", ecolor="#7f8c8d", capsize=4, markersize=7)
    ax.axvline(0, color="#bbbbbb", linewidth=1, zorder=0)
    ax.set_yticks(y, [_short(r.name) for r in rows])
    ax.set_xlabel(f"Elo (0 = {_short(ratings.anchor)}), with 95% intervals")
    ax.set_title("Ratings")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, directory, "ratings.png")


def _heat(ax: Any, values: np.ndarray, counts: np.ndarray, rows: list[str], cols: list[str]) -> Any:
    """A score heat map: red 0%, yellow 50%, green 100%; each cell its score and its games."""
    masked = np.ma.masked_invalid(values)
    image = ax.imshow(masked, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(cols)), [_short(c, 18) for c in cols], rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), [_short(r) for r in rows])
    for i in range(len(rows)):
        for j in range(len(cols)):
            if counts[i, j]:
                ax.text(j, i, f"{100 * values[i, j]:.0f}%\n({int(counts[i, j])})", ha="center", va="center",
                        fontsize=8)
    return image


def chart_matrix(names: list[str], entries: list[dict], directory: Path) -> str:
    plt = _plt()
    index = {n: i for i, n in enumerate(names)}
    points, games = np.zeros((len(names),) * 2), np.zeros((len(names),) * 2)
    for e in entries:
        i, j, s = index[e["first"]], index[e["second"]], first_score(e)
        points[i, j] += s
        points[j, i] += 1 - s
        games[i, j] += 1
        games[j, i] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(games > 0, points / np.maximum(games, 1), np.nan)
    side = max(4.0, 0.9 * len(names) + 2)
    fig, ax = plt.subplots(figsize=(side + 2, side))
    image = _heat(ax, score, games, names, names)
    fig.colorbar(image, ax=ax, label="score of the row against the column")
    ax.set_title("Pairwise scores (games in brackets)")
    return _save(fig, directory, "matrix.png")


def _by(names: list[str], entries: list[dict], column: Any) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Each participant's score per column value (`column(entry, name)`)."""
    cols: list[str] = []
    cells: dict[tuple[str, str], list[float]] = {}
    for e in entries:
        s = first_score(e)
        for name, score in ((e["first"], s), (e["second"], 1 - s)):
            col = column(e, name)
            if col not in cols:
                cols.append(col)
            cells.setdefault((name, col), []).append(score)
    values = np.full((len(names), len(cols)), np.nan)
    counts = np.zeros((len(names), len(cols)))
    for (name, col), scores in cells.items():
        i, j = names.index(name), cols.index(col)
        values[i, j], counts[i, j] = float(np.mean(scores)), len(scores)
    return cols, values, counts


def chart_breakdown(names: list[str], entries: list[dict], directory: Path, setup_word: str) -> str:
    plt = _plt()
    setups, by_setup, n_setup = _by(names, entries, lambda e, name: e["setup"])
    seats, by_seat, n_seat = _by(names, entries, lambda e, name: seat_of(e)[name])
    height = max(3.0, 0.55 * len(names) + 1.8)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, height),
                                      gridspec_kw={"width_ratios": [max(2, len(setups)), max(2, len(seats))]})
    _heat(left, by_setup, n_setup, names, setups)
    left.set_title(f"Score per {setup_word}")
    image = _heat(right, by_seat, n_seat, names, seats)
    right.set_yticks([])
    right.set_title("Score per seat")
    fig.colorbar(image, ax=[left, right], label="score", shrink=0.8)
    return _save(fig, directory, "breakdown.png")


def chart_latency(names: list[str], entries: list[dict], limit: float | None, directory: Path) -> str:
    plt = _plt()
    latencies: dict[str, list[float]] = {n: [] for n in names}
    for e in entries:
        labels = {"A": e["first"], "B": e["second"]}
        for seat, label in e["record"]["players"].items():
            latencies[labels[label]] += e["record"].get("latencies", {}).get(seat, [])
    cols = min(3, len(names))
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.8 * rows), squeeze=False, sharex=True)
    top = max([max(v, default=0.0) for v in latencies.values()] + [limit or 0.0]) * 1.05 or 1.0
    bins = np.linspace(0, top, 40)
    for ax, name in zip(axes.flat, names, strict=False):
        values = latencies[name]
        ax.hist(values, bins=bins, color="#2980b9")
        if limit:
            ax.axvline(limit, color=LIMIT_COLOUR, linestyle="--", linewidth=1.5, label=f"limit {limit:g} s")
            ax.legend(fontsize=7, loc="upper left")
        ax.set_title(f"{_short(name)}\np50 {percentile(values, 50):.3f} s, p99 {percentile(values, 99):.3f} s, "
                     f"max {max(values, default=0.0):.3f} s", fontsize=8)
        ax.set_xlabel("seconds per move", fontsize=8)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    fig.suptitle("Move latency per participant (as our referee measured it)")
    fig.tight_layout()
    return _save(fig, directory, "latency.png")


def chart_lengths(entries: list[dict], directory: Path, setup_word: str) -> str:
    plt = _plt()
    setups = list(dict.fromkeys(e["setup"] for e in entries))
    data = [[length(e["record"]) for e in entries if e["setup"] == s] for s in setups]
    fig, ax = plt.subplots(figsize=(10, 0.5 * len(setups) + 1.8))
    ax.boxplot(data, vert=False, widths=0.6)
    for y, values in enumerate(data, 1):
        jitter = np.random.default_rng(y).uniform(-0.15, 0.15, len(values))
        ax.scatter(values, y + jitter, s=10, alpha=0.5, color="#8e44ad")
    ax.set_yticks(range(1, len(setups) + 1), [_short(s) for s in setups])
    ax.set_xlabel("plies (moves of both sides)")
    ax.set_title(f"Game length per {setup_word}")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, directory, "lengths.png")


# -- the page ----------------------------------------------------------------------------------------------


STYLE = """
body { font-family: sans-serif; max-width: 1150px; margin: 1em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: left; font-size: 14px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; }
.note { color: #a04000; }
"""


def _table(head: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """An HTML table; cells are HTML already (escape text before)."""
    out = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td{' class=n' if i in numeric else ''}>{c}</td>" for i, c in enumerate(row))
                   + "</tr>")
    return "\n".join(out) + "</table>"


def write(directory: str | Path, title: str, about: dict[str, Any], names: list[str], entries: list[dict],
          crashed: list[dict], ratings: Ratings, overhead: Overhead, record_dir: str | Path | None,
          setup_word: str = "setup") -> Path:
    """Write the page and its charts into `directory`; returns the page's path."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    esc = html.escape
    settings = about.get("settings", {})
    limit = settings.get("move_time") if not settings.get("game_time") else None
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
             f"<style>{STYLE}</style></head><body><h1>{esc(title)}</h1>"]
    parts.append("<p>" + ", ".join(f"{esc(str(k))} <b>{esc(str(v))}</b>" for k, v in settings.items()
                                   if v is not None) + f"; {len(entries)} games played.</p>")
    rows = [[esc(r.name), str(r.games), f"{100 * r.score:.1f}%", *map(esc, ratings.texts(r))]
            for r in ranked(ratings.rows)]
    parts.append("<h2>Ratings</h2>" + _table(["participant", "games", "score", "Elo", "95% interval"], rows, {1, 2, 3}))
    parts.append("<p>Bradley-Terry by maximum likelihood, draws as half a win, Elo scale (400/ln 10), "
                 f"anchored on {esc(ratings.anchor)} (0); 95% intervals from the inverse Hessian.</p>")
    if ratings.note:
        parts.append(f"<p class=note>{esc(ratings.note)}</p>")
    if entries:
        charts = [("Ratings with 95% intervals", chart_ratings(ratings, out)),
                  ("Pairwise scores", chart_matrix(names, entries, out)),
                  (f"Score per {setup_word} and per seat", chart_breakdown(names, entries, out, setup_word)),
                  ("Move latency", chart_latency(names, entries, limit, out)),
                  ("Game length", chart_lengths(entries, out, setup_word))]
        for caption, image in charts:
            parts.append(f"<h2>{esc(caption)}</h2><img src='{image}' alt='{esc(caption)}'>")
    parts.append("<h2>Runner overhead (this run)</h2>" + _table(["", "seconds"], [
        ["games played", str(overhead.games)],
        ["the moves themselves", f"{overhead.playing:.1f}"],
        ["in the games beyond their moves (servers, sockets, engines)", f"{overhead.in_games:.2f}"],
        ["start-up (search workers or Ray)", f"{overhead.startup:.2f}"],
        ["ledger and record files", f"{overhead.bookkeeping:.2f}"],
        ["wall time", f"{overhead.wall:.1f}"],
        ["games per host", esc(", ".join(f"{h}: {n}" for h, n in overhead.per_host.items()))]], {1}))
    found = faults(entries, crashed)
    link_base = Path(record_dir) if record_dir else None

    def link(item: dict) -> str:
        if not item["file"] or link_base is None:
            return ""
        target = os.path.relpath(link_base / item["file"], out)
        return f"<a href='{esc(target)}'>record</a>"

    parts.append(f"<h2>Faults ({len(found)})</h2>")
    parts.append(_table(["setup", "game", "participant", "seat", "what", "detail", ""],
                        [[esc(f["setup"]), str(f["game"]), esc(f["who"]), esc(f["seat"]), esc(f["what"]),
                          esc(str(f["detail"])[:200]), link(f)] for f in found]) if found else "<p>None.</p>")
    parts.append("</body></html>")
    page = out / "index.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    return page
