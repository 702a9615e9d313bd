"""Per-subject memo of compute_metrics: each subject's :class:`SubjectSlice`, kept between runs.

A slice is a pure function of the subject's input files, its registered
version, the golds, ``system/``, the scoring folder and this code. The
memo stores it under two keys:

- ``context``: a digest of everything global it depends on (:func:`context_digest`:
  the code of ``rgbench``, ``system/``, the folders, every gold's sha256; not alpha,
  which only enters Q_final, formed when the slices are merged);
  an entry built under another context is never used;
- ``content``: a digest of the context, the subject, its version and the
  sha256 of each of its files (:func:`content_digest`): a slice is reused when
  the content is the same;
- ``fingerprints``: the ``lstat`` fingerprints of its two folders
  (:mod:`rgbench.folder_scan`) when the entry was written; when today's scan
  gives the same fingerprints (and neither is racy), the files are the same and
  the slice is reused without reading a file.

One file per subject, ``<tree>/.cache/rgbench/subjects/<scoring folder>/<sha256 of the subject id>.bin``:
a JSON header line (format, Python and marshal versions, subject, keys, the
size of the metadata and the CRC-32 of everything after the header), the
slice's small values as marshal data, then its large texts as raw bytes, which
are used in place (read-only views, no copy). A file that does not decode,
whose checksum fails, or that belongs to another subject or context is ignored
and rewritten. (CRC-32 detects accidental damage, which is what a local,
rebuildable cache meets; it is ~3x cheaper than sha256 on the ~0.5 MB a subject
of 900 runs keeps, and every entry is read on every run.) Like the file cache, the memo is local, git-ignored and can never
change a result: results with and without it are byte-identical (tests).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sys
import zlib
from pathlib import Path
from typing import Iterable, Sequence

from .atomic import write_bytes_atomic
from .subject_slice import SubjectSlice

MEMO_DIR = ".cache/rgbench/subjects"
_FORMAT = "rgbench-subject-slice/2"
_SUFFIX = ".bin"
_PACKAGE = Path(__file__).resolve().parent
_code_digest: str | None = None


def code_digest() -> str:
    """sha256 over every ``.py`` file of the rgbench package (path and bytes): a code change voids the memo."""
    global _code_digest
    if _code_digest is None:
        digest = hashlib.sha256()
        for path in sorted(_PACKAGE.rglob("*.py")):
            digest.update(path.relative_to(_PACKAGE).as_posix().encode("utf-8") + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        _code_digest = digest.hexdigest()
    return _code_digest


def context_digest(*, system_digest: str, version_dir: str, scoring_dir: str,
                   golds: Iterable[tuple[str, str]]) -> str:
    """Digest of everything global a slice depends on; ``golds`` are (path, sha256) of every gold file."""
    lines = [_FORMAT, code_digest(), system_digest, version_dir, scoring_dir]
    lines += [f"{digest}  {path}" for path, digest in sorted(golds)]
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def content_digest(context: str, subject_id: str, subject_version: str, files: Iterable[tuple[str, str]]) -> str:
    """Digest of a subject's inputs: the context, its id and version, and (path, sha256) of its files."""
    lines = [context, subject_id, subject_version]
    lines += [f"{digest}  {path}" for path, digest in sorted(files)]
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _fingerprint_text(fingerprints: Sequence[bytes | None]) -> list[str | None]:
    return [None if fp is None else fp.hex() for fp in fingerprints]


class _Entry:
    __slots__ = ("header", "payload")

    def __init__(self, header: dict, payload: memoryview):
        self.header = header
        self.payload = payload  # everything after the header line


class SubjectMemo:
    """The memo of one tree and scoring folder under one context; ``enabled=False`` makes every lookup miss."""

    def __init__(self, root: Path, scoring_dir: str, context: str, enabled: bool = True):
        self.dir = Path(root) / MEMO_DIR / scoring_dir
        self.context = context
        self.enabled = enabled
        self._entries: dict[str, _Entry | None] = {}
        self.written: list[str] = []  # subjects whose entry the last put wrote

    def _path(self, subject_id: str) -> Path:
        return self.dir / (hashlib.sha256(subject_id.encode("utf-8")).hexdigest()[:32] + _SUFFIX)

    def _entry(self, subject_id: str) -> _Entry | None:
        if subject_id in self._entries:
            return self._entries[subject_id]
        entry = None
        if self.enabled:
            try:
                with open(self._path(subject_id), "rb") as handle:
                    data = handle.read()
                end = data.index(b"\n") + 1
                header = json.loads(data[:end])
                payload = memoryview(data)[end:]
                if (isinstance(header, dict) and header.get("format") == _FORMAT
                        and header.get("python") == list(sys.version_info[:2])
                        and header.get("marshal") == marshal.version and header.get("context") == self.context
                        and header.get("subject") == subject_id):
                    entry = _Entry(header, payload)
            except (OSError, ValueError):
                entry = None
        self._entries[subject_id] = entry
        return entry

    def preload(self, subject_ids: Iterable[str]) -> None:
        """Read the entries of ``subject_ids`` now (e.g. while a folder scan runs elsewhere)."""
        for sid in subject_ids:
            self._entry(sid)

    def _slice(self, entry: _Entry, subject_id: str, subject_version: str) -> SubjectSlice | None:
        """The entry's slice; an entry that fails its checksum or holds another subject is forgotten
        (so that :meth:`put` rewrites it)."""
        found = None
        payload = entry.payload
        if zlib.crc32(payload) == entry.header.get("crc32"):
            try:
                size = entry.header["meta"]
                plain, lengths = marshal.loads(payload[:size])
                blobs, offset = [], size
                for length in lengths:
                    blobs.append(payload[offset:offset + length])
                    offset += length
                if offset != len(payload):
                    raise ValueError("payload size")
                found = SubjectSlice.from_plain(plain, blobs)
            except (ValueError, TypeError, EOFError, KeyError, IndexError):
                found = None
        if found is None or found.subject_id != subject_id or found.subject_version != subject_version:
            self._entries[subject_id] = None
            return None
        return found

    def by_fingerprints(self, subject_id: str, subject_version: str,
                        fingerprints: Sequence[bytes | None]) -> SubjectSlice | None:
        """The stored slice when its folders' fingerprints equal ``fingerprints`` (none of them racy)."""
        if any(fp is None for fp in fingerprints):
            return None
        entry = self._entry(subject_id)
        if entry is None or entry.header.get("fingerprints") != _fingerprint_text(fingerprints) \
                or entry.header.get("version") != subject_version:
            return None
        return self._slice(entry, subject_id, subject_version)

    def by_content(self, subject_id: str, subject_version: str, content: str) -> SubjectSlice | None:
        """The stored slice when it was built from the same inputs (``content``)."""
        entry = self._entry(subject_id)
        if entry is None or entry.header.get("content") != content:
            return None
        return self._slice(entry, subject_id, subject_version)

    def put(self, found: SubjectSlice, content: str, fingerprints: Sequence[bytes | None]) -> None:
        """Store ``found`` unless the same entry is already there; a read-only tree just keeps no memo."""
        if not self.enabled:
            return
        sid = found.subject_id
        entry = self._entry(sid)
        fingerprint_text = _fingerprint_text(fingerprints)
        if entry is not None and entry.header.get("content") == content \
                and entry.header.get("fingerprints") == fingerprint_text:
            return
        blobs: list = []
        meta = marshal.dumps((found.to_plain(blobs), [len(blob) for blob in blobs]))
        payload = b"".join([meta, *blobs])
        header = {
            "content": content,
            "context": self.context,
            "crc32": zlib.crc32(payload),
            "fingerprints": fingerprint_text,
            "format": _FORMAT,
            "marshal": marshal.version,
            "meta": len(meta),
            "python": list(sys.version_info[:2]),
            "subject": sid,
            "version": found.subject_version,
        }
        line = json.dumps(header, sort_keys=True).encode("utf-8") + b"\n"
        try:
            write_bytes_atomic(self._path(sid), line + payload, durable=False)
        except OSError:
            return
        self._entries[sid] = _Entry(header, memoryview(payload))
        self.written.append(sid)

    def prune(self, subject_ids: Iterable[str]) -> None:
        """Delete the entries of subjects not in ``subject_ids``."""
        if not self.enabled:
            return
        keep = {self._path(sid).name for sid in subject_ids}
        try:
            for name in os.listdir(self.dir):
                if name.endswith(_SUFFIX) and name not in keep:
                    os.unlink(self.dir / name)
        except OSError:
            pass
