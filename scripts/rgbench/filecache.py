"""A content-addressed cache of per-file results, so a rerun reads only the files that changed.

Layout of ``<tree>/.cache/rgbench-files.bin``: one JSON header line, then a
``marshal`` payload. The header records the format, the Python and marshal
versions, the digest of ``system/`` (schemas and rubric decide every result)
and the sha256 of the payload; any mismatch, truncation or decoding error
discards the cache and it is rebuilt. The payload holds

- ``index``: path -> (device, inode, size, mtime_ns, ctime_ns, sha256), the
  file facts that let an unchanged file be recognised without reading it;
- ``results``: (kind, sha256) -> extracted result, keyed by content, so a
  renamed or reverted file is not parsed again.

A file whose mtime is within ``RACY_NS`` of the cache's write time is read
again (its content might have changed within the clock's resolution), as git
does for its index. The cache can never change a result: it only stores what
``extract.extract`` returns for the same bytes and the same ``system/``.
The cache is local and git-ignored; never commit it (CI never reads one).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sys
import time
from pathlib import Path
from typing import Any

from .atomic import write_bytes_atomic
from .extract import EXTRACT_FORMAT
from .safe_read import Entry

CACHE_FILE = ".cache/rgbench-files.bin"
RACY_NS = 2_000_000_000
_FORMAT = f"rgbench-files/{EXTRACT_FORMAT}"


def _header_base(system_digest: str) -> dict[str, Any]:
    return {
        "format": _FORMAT,
        "python": list(sys.version_info[:2]),
        "marshal": marshal.version,
        "system": system_digest,
    }


def _stat_key(entry: Entry, device: int) -> tuple[int, int, int, int, int]:
    return (device, entry.inode, entry.size, entry.mtime_ns, entry.ctime_ns)


class FileCache:
    """Lookups and updates of one tree's cache; ``save`` writes it back when something changed."""

    def __init__(self, root: Path, system_digest: str, enabled: bool = True):
        self.path = Path(root) / CACHE_FILE
        self.system_digest = system_digest
        self.enabled = enabled
        self.index: dict[str, tuple] = {}
        self.results: dict[tuple[str, str], tuple] = {}
        self.written_ns = 0
        self.status = "disabled" if not enabled else "empty"
        self.dirty = False
        self.device = os.stat(root).st_dev
        if enabled:
            self._load()

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                header_line = handle.readline()
                payload = handle.read()
        except OSError:
            return
        try:
            header = json.loads(header_line)
            expected = _header_base(self.system_digest)
            if any(header.get(key) != value for key, value in expected.items()):
                self.status = "stale"
                return
            if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
                raise ValueError("checksum mismatch")
            data = marshal.loads(payload)
            index, results = data["index"], data["results"]
            if not isinstance(index, dict) or not isinstance(results, dict):
                raise ValueError("bad structure")
            self.index, self.results = index, results
            self.written_ns = int(header["written_ns"])
            self.status = "loaded"
        except (ValueError, KeyError, TypeError, EOFError):
            self.index, self.results = {}, {}
            self.status = "corrupt"

    def known_digest(self, entry: Entry) -> str | None:
        """The file's sha256 when its facts match the index and it is not racily recent; else None."""
        if not self.enabled:
            return None
        cached = self.index.get(entry.rel)
        if cached is None or cached[:5] != _stat_key(entry, self.device):
            return None
        if entry.mtime_ns >= self.written_ns - RACY_NS or entry.ctime_ns >= self.written_ns - RACY_NS:
            self.dirty = True  # rewrite later so that the next run can trust it
            return None
        return cached[5]

    def result(self, kind: str, digest: str) -> tuple | None:
        return self.results.get((kind, digest)) if self.enabled else None

    def remember(self, entry: Entry, kind: str, digest: str, result: tuple) -> None:
        if not self.enabled:
            return
        key = _stat_key(entry, self.device) + (digest,)
        if self.index.get(entry.rel) != key:
            self.index[entry.rel] = key
            self.dirty = True
        if (kind, digest) not in self.results:
            self.results[(kind, digest)] = result
            self.dirty = True

    def prune(self, live: set[str]) -> None:
        """Forget paths that no longer exist and results no live path points to."""
        if not self.enabled:
            return
        gone = [rel for rel in self.index if rel not in live]
        for rel in gone:
            del self.index[rel]
        used = {digest for (_, _, _, _, _, digest) in self.index.values()}
        stale = [key for key in self.results if key[1] not in used]
        for key in stale:
            del self.results[key]
        if gone or stale:
            self.dirty = True

    def save(self) -> None:
        if not self.enabled or not self.dirty:
            return
        payload = marshal.dumps({"index": self.index, "results": self.results})
        header = _header_base(self.system_digest)
        header["written_ns"] = time.time_ns()
        header["sha256"] = hashlib.sha256(payload).hexdigest()
        line = json.dumps(header, sort_keys=True).encode("utf-8") + b"\n"
        try:
            write_bytes_atomic(self.path, line + payload)
        except OSError:
            pass  # a read-only tree simply runs without a cache
