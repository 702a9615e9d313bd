"""A content-addressed cache of per-file results, so a rerun reads only the files that changed.

The cache is sharded by folder: every file's results live in the shard of the
folder that holds it (``golds/<version>``, ``responses/<version>/<subject>``,
``scoring/<version>/<subject>``...), stored at
``<tree>/.cache/rgbench/<sha256 of the folder path>.bin``, so a change rewrites
one subject's shard (kilobytes), not the whole cache.

Layout of each shard: one JSON header line, then a ``marshal`` payload. The
header records the format, the Python and marshal versions, the digest of
``system/`` (schemas and rubric decide every result), the folder the shard
belongs to and the sha256 of the payload; any mismatch, truncation or decoding
error discards that shard and it is rebuilt. The payload holds

- ``index``: path -> (device, inode, size, mtime_ns, ctime_ns, sha256), the
  file facts that let an unchanged file be recognised without reading it;
- ``results``: (kind, sha256) -> extracted result, keyed by content, so a
  reverted file is not parsed again.

A file whose mtime is within ``RACY_NS`` of its shard's write time is read
again (its content might have changed within the clock's resolution), as git
does for its index. Only shards with a change are rewritten; shards of folders
that no longer hold any file are deleted, as is the unsharded cache file of
earlier versions. The cache can never change a result: it only stores what
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
from typing import Any, Container, Iterable, Sequence

from .atomic import write_bytes_atomic
from .extract import EXTRACT_FORMAT
from .safe_read import Entry

CACHE_DIR = ".cache/rgbench"
LEGACY_CACHE_FILE = ".cache/rgbench-files.bin"
RACY_NS = 2_000_000_000
_FORMAT = f"rgbench-files/{EXTRACT_FORMAT}/sharded"
_SUFFIX = ".bin"
_SEVERITY = {"disabled": 0, "empty": 0, "loaded": 1, "stale": 2, "corrupt": 3}


def _header_base(system_digest: str, folder: str) -> dict[str, Any]:
    return {
        "format": _FORMAT,
        "python": list(sys.version_info[:2]),
        "marshal": marshal.version,
        "system": system_digest,
        "folder": folder,
    }


def shard_folder(rel: str) -> str:
    """The folder whose shard holds ``rel``: its parent folder (``""`` for a file at the root)."""
    return rel.rpartition("/")[0]


def shard_name(folder: str) -> str:
    """File name of a folder's shard under ``CACHE_DIR``."""
    return hashlib.sha256(folder.encode("utf-8")).hexdigest()[:32] + _SUFFIX


def _stat_key(entry: Entry, device: int) -> tuple[int, int, int, int, int]:
    return (device, entry.inode, entry.size, entry.mtime_ns, entry.ctime_ns)


class _Shard:
    """One folder's index and results, the time its file was written, and whether it must be rewritten."""

    __slots__ = ("folder", "index", "results", "written_ns", "racy_ns", "dirty", "hits")

    def __init__(self, folder: str, index: dict | None = None, results: dict | None = None, written_ns: int = 0):
        self.folder = folder
        self.index: dict[str, tuple] = index if index is not None else {}
        self.results: dict[tuple[str, str], tuple] = results if results is not None else {}
        self.written_ns = written_ns
        self.racy_ns = written_ns - RACY_NS
        self.dirty = False
        self.hits = 0  # paths of this shard that ``split`` served unchanged


class FileCache:
    """Lookups and updates of one tree's cache; ``save`` writes back the shards that changed.

    ``status`` is ``disabled``, ``empty`` (no shard), ``loaded`` (every shard
    usable), ``stale`` (some shard built for another format or ``system/``) or
    ``corrupt`` (some shard unreadable); unusable shards are simply rebuilt.
    """

    def __init__(self, root: Path, system_digest: str, enabled: bool = True, lazy: bool = False):
        self.root = Path(root)
        self.lazy = lazy  # load a folder's shard when a path of that folder is first looked up
        self._tried: set[str] = set()
        self.dir = self.root / CACHE_DIR
        self.system_digest = system_digest
        self.enabled = enabled
        self.shards: dict[str, _Shard] = {}
        self.status = "disabled" if not enabled else "empty"
        self.device = os.stat(root).st_dev
        self.written: list[str] = []  # folders whose shard the last save wrote
        if enabled and not lazy:
            self._load()

    @property
    def dirty(self) -> bool:
        return any(shard.dirty for shard in self.shards.values())

    @dirty.setter
    def dirty(self, value: bool) -> None:  # marks every shard (tests force a rewrite this way)
        for shard in self.shards.values():
            shard.dirty = value

    def _load(self) -> None:
        try:
            names = sorted(name for name in os.listdir(self.dir) if name.endswith(_SUFFIX))
        except OSError:
            return
        states = set()
        for name in names:
            state = self._load_shard(name)
            states.add(state)
        for state in ("corrupt", "stale", "loaded"):
            if state in states:
                self.status = state
                return

    def _load_shard(self, name: str) -> str:
        try:
            with open(self.dir / name, "rb") as handle:
                header_line = handle.readline()
                payload = handle.read()
        except OSError:
            return "corrupt"
        try:
            header = json.loads(header_line)
            if not isinstance(header, dict):
                raise ValueError("bad header")
            folder = header.get("folder")
            if not isinstance(folder, str) or shard_name(folder) != name:
                raise ValueError("shard in the wrong file")
            expected = _header_base(self.system_digest, folder)
            if any(header.get(key) != value for key, value in expected.items()):
                return "stale"
            if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
                raise ValueError("checksum mismatch")
            data = marshal.loads(payload)
            index, results = data["index"], data["results"]
            if not isinstance(index, dict) or not isinstance(results, dict):
                raise ValueError("bad structure")
            if any(shard_folder(rel) != folder for rel in index):
                raise ValueError("path outside the shard's folder")
            self.shards[folder] = _Shard(folder, index, results, int(header["written_ns"]))
            return "loaded"
        except (ValueError, KeyError, TypeError, EOFError, AttributeError):
            return "corrupt"

    def _loaded(self, folder: str) -> _Shard | None:
        """The shard of ``folder`` if there is one (read from disk on first use in lazy mode)."""
        shard = self.shards.get(folder)
        if shard is None and self.lazy and folder not in self._tried:
            self._tried.add(folder)
            name = shard_name(folder)
            if (self.dir / name).is_file():
                state = self._load_shard(name)
                if _SEVERITY[state] > _SEVERITY[self.status]:
                    self.status = state
            shard = self.shards.get(folder)
        return shard

    def _shard(self, rel: str) -> _Shard:
        folder = shard_folder(rel)
        shard = self._loaded(folder)
        if shard is None:
            shard = self.shards[folder] = _Shard(folder)
        return shard

    def split(self, jobs: Sequence[tuple[Entry, str]]) -> tuple[dict[str, tuple], list[tuple[Entry, str]]]:
        """(hits, misses) of (entry, kind) jobs: hits map a path to ``(sha256, *result)``.

        Equivalent to ``known_digest`` then ``result`` for every job, in one pass
        (jobs come sorted, so consecutive paths share a shard).
        """
        hits: dict[str, tuple] = {}
        misses: list[tuple[Entry, str]] = []
        if not self.enabled:
            return hits, list(jobs)
        device = self.device
        shards = self.shards
        for shard in shards.values():
            shard.hits = 0
        folder = shard = index = results = None
        racy_ns = 0
        for job in jobs:
            entry, kind = job
            rel, size, mtime_ns, ctime_ns, inode = entry
            here = rel.rpartition("/")[0]
            if here != folder:
                folder = here
                shard = self._loaded(here)
                if shard is not None:
                    index, results, racy_ns = shard.index, shard.results, shard.racy_ns
            cached = index.get(rel) if shard is not None else None
            if (cached is None or cached[0] != device or cached[1] != inode or cached[2] != size
                    or cached[3] != mtime_ns or cached[4] != ctime_ns):
                misses.append(job)
                continue
            if mtime_ns >= racy_ns or ctime_ns >= racy_ns:
                shard.dirty = True  # rewrite later so that the next run can trust it
                misses.append(job)
                continue
            digest = cached[5]
            result = results.get((kind, digest))
            if result is None:
                misses.append(job)
            else:
                hits[rel] = (digest, *result)
                shard.hits += 1
        return hits, misses

    def result(self, kind: str, digest: str, rel: str) -> tuple | None:
        """The cached result for content ``digest`` read as ``kind``, from the shard of ``rel``."""
        if not self.enabled:
            return None
        shard = self._loaded(shard_folder(rel))
        return shard.results.get((kind, digest)) if shard is not None else None

    def remember(self, entry: Entry, kind: str, digest: str, result: tuple) -> None:
        if not self.enabled:
            return
        shard = self._shard(entry.rel)
        key = _stat_key(entry, self.device) + (digest,)
        if shard.index.get(entry.rel) != key:
            shard.index[entry.rel] = key
            shard.dirty = True
        if (kind, digest) not in shard.results:
            shard.results[(kind, digest)] = result
            shard.dirty = True

    def prune(self, live: Container[str]) -> None:
        """Forget paths that no longer exist, results no live path points to, and empty shards."""
        if not self.enabled:
            return
        for folder, shard in list(self.shards.items()):
            if not shard.dirty and shard.hits == len(shard.index):
                continue  # every indexed path was just served unchanged, and nothing was added
            gone = [rel for rel in shard.index if rel not in live]
            for rel in gone:
                del shard.index[rel]
            if not shard.index:
                del self.shards[folder]
                continue
            used = {cached[5] for cached in shard.index.values()}
            stale = [key for key in shard.results if key[1] not in used]
            for key in stale:
                del shard.results[key]
            if gone or stale:
                shard.dirty = True

    def save(self, live_folders: Iterable[str] = ()) -> None:
        """Write every dirty shard; delete shard files that hold no live folder, and the legacy file.

        In lazy mode the shards never looked at are kept when their folder is in
        ``live_folders`` (and deleted otherwise).
        """
        self.written = []
        if not self.enabled:
            return
        try:
            for folder in sorted(self.shards):
                shard = self.shards[folder]
                if not shard.dirty:
                    continue
                payload = marshal.dumps({"index": shard.index, "results": shard.results})
                header = _header_base(self.system_digest, folder)
                header["written_ns"] = time.time_ns()
                header["sha256"] = hashlib.sha256(payload).hexdigest()
                line = json.dumps(header, sort_keys=True).encode("utf-8") + b"\n"
                write_bytes_atomic(self.dir / shard_name(folder), line + payload, durable=False)
                shard.dirty = False
                self.written.append(folder)
            keep = {shard_name(folder) for folder in self.shards}
            if self.lazy:
                keep.update(shard_name(folder) for folder in live_folders)
            for name in os.listdir(self.dir) if self.dir.is_dir() else ():
                if name.endswith(_SUFFIX) and name not in keep:
                    os.unlink(self.dir / name)
            legacy = self.root / LEGACY_CACHE_FILE
            if legacy.exists():
                legacy.unlink()
        except OSError:
            pass  # a read-only tree simply runs without a cache
