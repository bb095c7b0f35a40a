"""`bots fuzz`: every wire codec against many hostile inputs; anything but the codec's own error
(or a clean decode) is a finding.

Inputs per codec, in equal shares: random bytes; a valid message mutated (bytes flipped,
inserted, deleted, duplicated, spliced with another); a valid message whose numbers are
replaced by huge ones (hundreds of digits, or 255 counts).  Each input is fed in random
chunks, so split streams are exercised too.  Seeded, so a finding can be replayed.
"""

from __future__ import annotations

import json
import random
import re
import time
from typing import Callable

from protocol import cgos, gnd, gtp, twilight

Decode = Callable[[bytes, random.Random], None]


def _chunks(data: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(0, 4)))) if len(data) > 1 else []
    edges = [0, *cuts, len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:], strict=False)]


def _drain_stream(make: Callable[[], object]) -> Decode:
    def decode(data: bytes, rng: random.Random) -> None:
        decoder = make()
        for part in _chunks(data, rng):
            decoder.feed(part)  # type: ignore[attr-defined]
            while decoder.next_event() is not None:  # type: ignore[attr-defined]
                pass
    return decode


def _gnd(data: bytes, rng: random.Random) -> None:
    obj = gnd.loads(data)
    for parse in (gnd.parse_turn, gnd.parse_token, gnd.Request.from_json):
        try:
            parse(obj)
        except gnd.ProtocolError:
            pass


def _seeds() -> dict[str, list[bytes]]:
    cell = twilight.Cell(1, 2, 3, 0, 0)
    turn = gnd.turn_json(gnd.Turn(0, 1, 12.5, 2, ((((0, 0), 1),))), include_result=True)
    return {
        "twilight (server frames)": [twilight.encode(e) for e in (
            twilight.Set(5, 10), twilight.Hum(((2, 2), (9, 0))), twilight.Hme(4, 3), twilight.Map((cell,)),
            twilight.Upd((cell, twilight.Cell(4, 3, 0, 4, 0))), twilight.End(), twilight.Bye())],
        "twilight (client frames)": [twilight.encode(twilight.Nme("bots")),
                                     twilight.encode(twilight.Mov((twilight.Move(4, 3, 4, 5, 4),)))],
        "gnd (JSON answers)": [json.dumps(turn).encode(), b'{"Token": "abc123"}',
                               json.dumps(gnd.register(12, "toto", "pw", ["gopher"]).to_json()).encode()],
        "gtp (commands)": [b"1 boardsize 9\n", b"play b e5\n", b"genmove w\n", b"komi 7.5\n",
                           b"time_settings 300 10 5\n", b"# comment\nname\n"],
        "gtp (responses)": [b"= E5\n\n", b"=1 2\n\n", b"? illegal move\n\n", b"= \n A B\n 1 .\n\n"],
        "cgos (server lines)": [b"protocol genmove_analyze\n", b"setup 12 9 7.0 60000 a(1800) b(1700) e5 59000\n",
                                b"genmove b 58000\n", b"play w e5 57000\n", b"gameover 2026-11-24 B+Resign\n",
                                b"info hello\n", b"username\n", b"password\n"],
    }


CODECS: dict[str, tuple[Decode, type]] = {
    "twilight (server frames)": (_drain_stream(lambda: twilight.Decoder(twilight.SERVER_FRAMES)),
                                 twilight.TwilightError),
    "twilight (client frames)": (_drain_stream(lambda: twilight.Decoder(twilight.CLIENT_FRAMES)),
                                 twilight.TwilightError),
    "gnd (JSON answers)": (_gnd, gnd.ProtocolError),
    "gtp (commands)": (_drain_stream(gtp.CommandDecoder), gtp.GtpError),
    "gtp (responses)": (_drain_stream(gtp.ResponseDecoder), gtp.GtpError),
    "cgos (server lines)": (_drain_stream(cgos.Decoder), cgos.CgosError),
}

_DIGITS = re.compile(rb"\d+")


def _mutate(seed: bytes, others: list[bytes], rng: random.Random) -> bytes:
    data = bytearray(seed)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(5)
        pos = rng.randrange(len(data) + 1)
        if kind == 0 and data:
            data[min(pos, len(data) - 1)] = rng.randrange(256)
        elif kind == 1:
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif kind == 2 and data:
            del data[pos:pos + rng.randint(1, 4)]
        elif kind == 3:
            data[pos:pos] = data[:rng.randint(0, len(data))]
        else:
            data += rng.choice(others)
    return bytes(data)


_HUGE = (b"1" + b"0" * 400, b"9" * 5000, b"18446744073709551616", b"-1", b"255", b"1e309", b"NaN")


def _huge(seed: bytes, rng: random.Random) -> bytes:
    """Numbers made huge (or odd) in a text message, or byte counts pushed to 255 in a binary one."""
    if rng.random() < 0.5 and _DIGITS.search(seed):
        return _DIGITS.sub(lambda m: rng.choice(_HUGE) if rng.random() < 0.5 else m.group(), seed)
    return bytes(b if rng.random() > 0.3 else 255 for b in seed)


def inputs(seeds: list[bytes], rng: random.Random):
    while True:
        share = rng.randrange(3)
        if share == 0:
            yield bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
        elif share == 1:
            yield _mutate(rng.choice(seeds), seeds, rng)
        else:
            yield _huge(rng.choice(seeds), rng)


def run(count: int, seed: int = 1, codecs: list[str] | None = None) -> tuple[str, int]:
    """The report table and the number of findings (inputs that raised a foreign exception)."""
    seeds = _seeds()
    rows = [f"{'codec':<26}{'inputs':>10}{'decoded':>10}{'own error':>11}{'findings':>10}{'inputs/s':>11}"]
    findings = 0
    examples: list[str] = []
    for name, (decode, own) in CODECS.items():
        if codecs and not any(c in name for c in codecs):
            continue
        rng = random.Random(f"{seed}:{name}")
        ok = errors = bad = 0
        t0 = time.monotonic()
        source = inputs(seeds[name], rng)
        for _ in range(count):
            data = next(source)
            try:
                decode(data, rng)
                ok += 1
            except own:
                errors += 1
            except Exception as exc:  # noqa: BLE001 - exactly what the fuzzing is looking for
                bad += 1
                if len(examples) < 5:
                    examples.append(f"{name}: {type(exc).__name__}: {exc} on {data[:80]!r}")
        seconds = time.monotonic() - t0
        findings += bad
        rows.append(f"{name:<26}{count:>10,}{ok:>10,}{errors:>11,}{bad:>10,}{count / seconds:>11,.0f}")
    return "\n".join(rows + examples), findings
