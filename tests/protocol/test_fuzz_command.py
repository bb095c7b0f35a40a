"""`bots fuzz` (issue 11): a short run finds nothing, and a codec that raised a foreign exception
would be reported (the harness can fail)."""

from __future__ import annotations

import random

from bots import fuzz


def test_a_short_run_of_every_codec_finds_nothing():
    table, findings = fuzz.run(1500, seed=3)
    assert findings == 0, table
    assert len(table.splitlines()) == 1 + len(fuzz.CODECS)


def test_a_foreign_exception_is_a_finding(monkeypatch):
    def broken(data: bytes, rng: random.Random) -> None:
        if len(data) % 2:
            raise KeyError("a bug")

    monkeypatch.setitem(fuzz.CODECS, "gnd (JSON answers)", (broken, ValueError))
    table, findings = fuzz.run(200, seed=1, codecs=["gnd"])
    assert findings > 0 and "KeyError" in table


def test_inputs_cover_random_mutated_and_huge_numbers():
    rng = random.Random(5)
    seeds = [b"genmove b 58000\n"]
    sample = [next(fuzz.inputs(seeds, rng)) for _ in range(300)]
    assert any(b"0" * 400 in s or b"9" * 5000 in s for s in sample)
    assert any(s != seeds[0] and b"genmove" in s for s in sample)
