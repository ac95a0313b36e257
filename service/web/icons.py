"""The installable app's icons: a white spade on the table's green, drawn here as PNG.

No image library: the shape is a test per pixel (a heart upside down, on a stem) with
4×4 supersampling for smooth edges, written as an RGBA PNG with :mod:`zlib`.

>>> png = icon_png(48)
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n", int.from_bytes(png[16:20], "big")
(True, 48)
"""

from __future__ import annotations

import struct
import zlib
from functools import cache

SIZES = (192, 512)
GREEN = (15, 90, 44)   # the theme colour (#0f5a2c)
WHITE = (255, 255, 255)
SAMPLES = 2


def _in_spade(x: float, y: float) -> bool:
    """(x, y) in the unit square, y down: inside the spade drawn in the safe zone of a maskable icon."""
    u = (x - 0.5) / 0.26
    v = (y - 0.44) / 0.26
    # the heart (x² + y² − 1)³ − x² y³ ≤ 0 points down; with v as it is (y down) it points up: a spade's body
    hv = v * 1.1 + 0.15
    if (u * u + hv * hv - 1) ** 3 - u * u * hv ** 3 <= 0:
        return True
    # the stem: a narrow triangle from the body to the base
    if 0.50 <= y <= 0.72:
        half = 0.015 + (y - 0.50) * 0.45
        return abs(x - 0.5) <= half
    return False


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


@cache
def icon_png(size: int) -> bytes:
    """A square PNG of ``size`` pixels (full-bleed green: usable as a maskable icon)."""
    rows = bytearray()
    step = 1 / (size * SAMPLES)
    for py in range(size):
        rows.append(0)  # filter: none
        for px in range(size):
            hits = sum(_in_spade((px * SAMPLES + sx + 0.5) * step, (py * SAMPLES + sy + 0.5) * step)
                       for sy in range(SAMPLES) for sx in range(SAMPLES))
            share = hits / (SAMPLES * SAMPLES)
            rows.extend(round(g + (w - g) * share) for g, w in zip(GREEN, WHITE, strict=True))
            rows.append(255)
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(bytes(rows), 9))
            + _chunk(b"IEND", b""))
