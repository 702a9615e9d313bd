"""A content-addressed store of drawn charts, so an unchanged chart is not drawn again.

Entries live in ``<tree>/.cache/rgbench/charts/<key>.svg``. The key is the
sha256 of the format, of the renderer digest (:func:`.drawing.renderer_digest`:
the drawing code, matplotlib, numpy and Python, every rcParam, the style and
the font) and of the chart's whole value (:meth:`.charts.Chart.canonical`:
every value it shows and its id scope), which is all its SVG depends on. So an
entry can only ever hold the bytes drawing that chart would give now; the
cache changes no output, only how long it takes.

A file is one JSON header line (format, key, sha256 of the payload) followed by
the SVG text. A file that cannot be read, is cut short, holds another format or
key, or whose payload does not match its sha256 is *damaged*: it is ignored,
the chart is drawn again and the entry rewritten. Entries are written (without
fsync, atomically) only after a build has written its outputs; entries no
longer used by the page are then deleted. The cache is local and git-ignored
(``.cache/``); CI never has one. ``--no-cache`` bypasses it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Iterable

from ..atomic import write_bytes_atomic
from .charts import Chart

CACHE_DIR = ".cache/rgbench/charts"
FORMAT = "rgbench-chart/1"
SUFFIX = ".svg"


def chart_key(chart: Chart, renderer_digest: str) -> str:
    """The entry name of ``chart`` drawn by the renderer whose digest is ``renderer_digest``."""
    text = f"{FORMAT}\n{renderer_digest}\n{chart.canonical()}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode_entry(key: str, svg: str) -> bytes:
    payload = svg.encode("utf-8")
    header = {"format": FORMAT, "key": key, "sha256": hashlib.sha256(payload).hexdigest()}
    return json.dumps(header, sort_keys=True).encode("utf-8") + b"\n" + payload


def decode_entry(key: str, data: bytes) -> str | None:
    """The SVG of an intact entry for ``key``; None when the bytes are damaged in any way."""
    line, newline, payload = data.partition(b"\n")
    try:
        header = json.loads(line)
        intact = (newline and isinstance(header, dict) and header.get("format") == FORMAT and header.get("key") == key
                  and header.get("sha256") == hashlib.sha256(payload).hexdigest())
        return payload.decode("utf-8") if intact else None
    except ValueError:  # not JSON, not UTF-8
        return None


class ChartCache:
    """The chart entries of one tree. ``hits``, ``misses`` and ``damaged`` count this build's lookups."""

    def __init__(self, root: Path, enabled: bool = True):
        self.root = Path(root)
        self.dir = self.root / CACHE_DIR
        self.enabled = enabled
        self.hits = self.misses = self.damaged = 0
        self._read: dict[str, str | None] = {}

    def get(self, key: str) -> str | None:
        """The stored SVG for ``key``, or None (absent, damaged, or the cache is off); each file is read once."""
        if not self.enabled:
            return None
        if key not in self._read:
            self._read[key] = self._load(key)
        return self._read[key]

    def _load(self, key: str) -> str | None:
        try:
            fd = os.open(self.dir / f"{key}{SUFFIX}", os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            self.misses += 1
            return None
        try:
            with os.fdopen(fd, "rb") as handle:
                data = handle.read()
        except OSError:
            data = b""
        svg = decode_entry(key, data)
        if svg is None:
            self.damaged += 1
        else:
            self.hits += 1
        return svg

    def update(self, drawn: dict[str, str], used: Iterable[str]) -> None:
        """Store ``drawn`` (key -> SVG) and delete the entries not in ``used`` (nor drawn).

        Best effort: a tree where the cache cannot be written simply runs without it.
        """
        if not self.enabled:
            return
        keep = {f"{key}{SUFFIX}" for key in (*used, *drawn)}
        try:
            for key, svg in sorted(drawn.items()):
                write_bytes_atomic(self.dir / f"{key}{SUFFIX}", encode_entry(key, svg), durable=False)
            for name in os.listdir(self.dir) if self.dir.is_dir() else ():
                if name.endswith(SUFFIX) and name not in keep:
                    os.unlink(self.dir / name)
        except OSError:
            pass
