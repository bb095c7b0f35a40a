"""The documents the code cites are in the repository, and so are the sections it cites.

Docstrings, comments and pages cite the protocol and rules references as
`docs/protocols/<page>.md section N` (or `sections N-M`, `sections N and M`, `§N`), and pages
link each other with relative Markdown links.  A clone has nothing else, so:

(a) nothing cites the steering repository's documents (its specs and its architecture notes,
    both under a directory named shared), which a clone lacks;
(b) every `docs/...md` path cited anywhere exists, and where the citation names a section, the
    page has a heading with that number (`## 7. ...`, `### 9.2 ...`);
(c) no citation names a section of "the spec" without saying which page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()  # the checker: its probes below are bad citations on purpose
ROOT = HERE.parent.parent
SCANNED = ("bots", "protocol", "search", "tests", "docs", "config", "tools", "README.md")
SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".hypothesis"}

# Built so that this file does not match itself.
OUTSIDE = re.compile(r"(?:\.\./)*\b" + "shar" + r"ed/[\w./-]*")
REPO_PATH = re.compile(r"(?<![\w./-])docs/[\w./-]*?\.md\b")
MD_LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s#]+\.md)(?:#[^)\s]*)?\)")
NUMBER = r"\d+(?:\.\d+)*"
SECTIONS = re.compile(
    r"[\s,`*#(]*(?:sections?\s+|§\s*)"
    rf"(?P<nums>{NUMBER}(?:\s*(?:-|–|,|and|§)\s*§?{NUMBER})*)")
HEADING = re.compile(rf"^#{{1,6}}\s+({NUMBER})\.?\s", re.MULTILINE)
BARE_SPEC = re.compile(r"\bspec(?:'s)?\s+(?:sections?\s+|§\s*|\(?" + NUMBER + r")", re.IGNORECASE)


def scanned_files() -> list[Path]:
    files = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
            continue
        for f in sorted(path.rglob("*")):
            if f.is_file() and not SKIPPED_DIRS & set(f.relative_to(ROOT).parts) and f != HERE:
                files.append(f)
    return files


def text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # pictures and other binary files
        return None


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def section_numbers(nums: str) -> list[str]:
    """The numbers a citation names; a range of whole sections ("2-4") names every one of them."""
    out = []
    for part in re.split(r"\s*(?:,|and)\s*", nums):
        ends = [p.strip().lstrip("§").strip() for p in re.split(r"\s*[-–]\s*", part)]
        if len(ends) == 2 and ends[0].isdigit() and ends[1].isdigit():
            out += [str(n) for n in range(int(ends[0]), int(ends[1]) + 1)]
        else:
            out += ends
    return [n for n in out if n]


def citations(path: Path, text: str):
    """(line, cited file, section numbers) of every document citation in one file."""
    found = []
    for m in REPO_PATH.finditer(text):
        found.append((m.start(), ROOT / m.group(0), m.end()))
    if path.suffix == ".md":
        for m in MD_LINK.finditer(text):
            target = (path.parent / m.group(1)).resolve()
            found.append((m.start(), target, m.end()))
    for start, target, end in found:
        s = SECTIONS.match(text, end)
        yield line_of(text, start), target, section_numbers(s.group("nums")) if s else []


def headings(path: Path) -> set[str]:
    return set(HEADING.findall(path.read_text(encoding="utf-8")))


def problems_in(path: Path, text: str) -> list[str]:
    """What is wrong with the citations in one file's text."""
    out = []
    name = path.relative_to(ROOT).as_posix()
    for m in OUTSIDE.finditer(text):
        out.append(f"{name}:{line_of(text, m.start())}: cites a document outside the repository "
                   f"({text[m.start():m.start() + 40].splitlines()[0]!r})")
    for m in BARE_SPEC.finditer(text):
        out.append(f"{name}:{line_of(text, m.start())}: cites a section of 'the spec' without its page "
                   f"({text[m.start():m.start() + 30].splitlines()[0]!r})")
    for line, target, numbers in citations(path, text):
        shown = target.relative_to(ROOT).as_posix() if target.is_relative_to(ROOT) else str(target)
        if not target.is_file():
            out.append(f"{name}:{line}: cites {shown}, which does not exist")
            continue
        missing = [n for n in numbers if n not in headings(target)]
        if missing:
            out.append(f"{name}:{line}: cites {shown} section {', '.join(missing)}, "
                       "which has no heading with that number")
    return out


def problems(files: list[Path]) -> list[str]:
    out = []
    for path in files:
        text = text_of(path)
        if text is not None:
            out += problems_in(path, text)
    return out


def test_every_citation_is_in_the_repository():
    files = scanned_files()
    assert len(files) > 100 and ROOT / "README.md" in files
    assert problems(files) == []


def test_the_protocol_pages_have_numbered_sections():
    pages = sorted((ROOT / "docs" / "protocols").glob("*.md"))
    assert {p.name for p in pages} >= {"README.md", "twilight.md", "gnd.md", "cgos.md", "go.md", "gtp.md",
                                       "hex.md", "time-control.md", "game-ends.md"}
    index = (ROOT / "docs" / "protocols" / "README.md").read_text(encoding="utf-8")
    for page in pages:
        if page.name != "README.md":
            assert f"({page.name})" in index, f"docs/protocols/README.md does not list {page.name}"
    for name in ("twilight.md", "gnd.md", "cgos.md", "go.md", "gtp.md", "hex.md"):
        assert {"1", "2"} <= headings(ROOT / "docs" / "protocols" / name), name


@pytest.mark.parametrize("text, want", [
    # the citations the checker must catch
    ("see docs/protocols/nosuch.md", "does not exist"),
    ("(docs/protocols/cgos.md section 99)", "section 99"),
    ("docs/protocols/twilight.md sections 3, 7 and 42", "section 42"),
    ("docs/protocols/gnd.md\n    sections 2-19", "section 12"),
    ("docs/protocols/gnd.md §9.9", "section 9.9"),
    ("[gnd.md](gnd.md) section 77", "section 77"),
    ("[x](nosuch.md)", "does not exist"),
    ("Reference: " + "shar" + "ed/specs/cgos.md section 1", "outside the repository"),
    ("../" + "shar" + "ed/ARCHI" + "TECTURE.md", "outside the repository"),
    ("the official clocks (spec section 5)", "without its page"),
    ("the spec's section 6.1 transcript", "without its page"),
    # and the ones it must accept
    ("docs/protocols/twilight.md sections 3, 7 and 8", None),
    ("docs/protocols/gnd.md sections 2-7", None),
    ("docs/protocols/gnd.md section 9.2", None),
    ("docs/protocols/gtp.md sections 3 and 4", None),
    ("`docs/protocols/cgos.md` section 6.1", None),
    ("[twilight.md](twilight.md) section 9", None),
    ("[the index](README.md#protocols-and-rules)", None),
    ("the spec has no negotiation", None),
])
def test_the_checker_catches_bad_citations(text, want):
    # As if the text were a page in docs/protocols/ (relative links resolve from there).
    found = problems_in(ROOT / "docs" / "protocols" / "probe.md", text + "\n")
    if want is None:
        assert found == []
    else:
        assert len(found) == 1 and want in found[0], found


def test_the_readme_stays_a_users_page():
    """DEVELOPERS.md: the README is for users, at most 40 KB (benchmarks and records live in docs/)."""
    size = len((ROOT / "README.md").read_bytes())
    assert size <= 40_000, f"README.md is {size} bytes; move detail to docs/"
