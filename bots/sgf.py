"""SGF (FF[4]) text shared by the games that keep their records in it (Go GM[1], Hex GM[11]):
escaping values, reading one game tree into nodes, and a move's think time as a comment.

Not a general SGF reader: one game tree without variations, which is what we write.
"""

from __future__ import annotations

import re

THINK = re.compile(r"^think ([0-9.]+) s$", re.M)


def text(value: object, simple: bool = True) -> str:
    """SGF (Simple)Text value: `\\` and `]` escaped; line breaks become spaces in SimpleText."""
    s = str(value).replace("\\", "\\\\").replace("]", "\\]")
    if simple:
        s = " ".join(s.splitlines())
    return s


def think_comment(seconds: float | None) -> str:
    """The comment property that carries a move's think time (`C[think 0.53 s]`), or nothing."""
    return "" if seconds is None else f"C[think {seconds:.3f} s]"


def think_of(props: dict[str, list[str]]) -> float | None:
    """The think time a node's comment carries (think_comment), or None."""
    found = THINK.search(" ".join(props.get("C", ())))
    return float(found.group(1)) if found else None


def game_type(sgf_text: str) -> str | None:
    """The GM property of the root (the game: 1 Go, 11 Hex), or None when there is none."""
    found = re.search(r"GM\[\s*(\d+)\s*\]", sgf_text)
    return found.group(1) if found else None


def _tokens(text: str):
    """(kind, value, offset): kind is "(", ")", ";", "ident" or "value" (unescaped)."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "();":
            yield ch, ch, i
            i += 1
        elif ch == "[":
            start, i, out = i, i + 1, []
            while i < n and text[i] != "]":
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                out.append(text[i])
                i += 1
            if i >= n:
                raise ValueError(f"SGF value opened at offset {start} is never closed")
            yield "value", "".join(out), start
            i += 1
        elif ch.isalpha() and ch.isupper():
            start = i
            while i < n and text[i].isalpha() and text[i].isupper():
                i += 1
            yield "ident", text[start:i], start
        else:
            raise ValueError(f"unexpected {ch!r} at offset {i} of the SGF text")


def nodes(text: str) -> list[dict[str, list[str]]]:
    """The nodes of the single game tree, each {property: [values]}."""
    tokens = list(_tokens(text))
    if not tokens or tokens[0][0] != "(":
        raise ValueError("SGF text must start with '('")
    if tokens[-1][0] != ")":
        raise ValueError("SGF text must end with ')'")
    nodes: list[dict[str, list[str]]] = []
    ident = None
    for kind, value, at in tokens[1:-1]:
        if kind in "()":
            raise ValueError(f"variations are not supported (offset {at})")
        if kind == ";":
            nodes.append({})
            ident = None
        elif kind == "ident":
            if not nodes:
                raise ValueError(f"property {value} before the first node (offset {at})")
            ident = value
            if ident in nodes[-1]:
                raise ValueError(f"property {ident} repeated in one node (offset {at})")
            nodes[-1][ident] = []
        else:
            if ident is None:
                raise ValueError(f"value without a property at offset {at}")
            nodes[-1][ident].append(value)
    if not nodes:
        raise ValueError("SGF game tree has no node")
    return nodes


def one(props: dict[str, list[str]], key: str) -> str | None:
    values = props.get(key)
    if values is None:
        return None
    if len(values) != 1:
        raise ValueError(f"property {key} should have one value, has {len(values)}")
    return values[0]


