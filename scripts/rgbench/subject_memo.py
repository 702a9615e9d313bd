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

import marshal
from pathlib import Path
from typing import Iterable, Sequence

from .memo_files import MemoFiles, code_digest, content_digest, fingerprint_text, lines_digest
from .subject_slice import SubjectSlice

__all__ = ["MEMO_DIR", "SubjectMemo", "code_digest", "content_digest", "context_digest"]

MEMO_DIR = ".cache/rgbench/subjects"
_FORMAT = "rgbench-subject-slice/2"


def context_digest(*, system_digest: str, version_dir: str, scoring_dir: str,
                   golds: Iterable[tuple[str, str]]) -> str:
    """Digest of everything global a slice depends on; ``golds`` are (path, sha256) of every gold file."""
    return lines_digest([_FORMAT, code_digest(), system_digest, version_dir, scoring_dir]
                        + [f"{digest}  {path}" for path, digest in sorted(golds)])


class SubjectMemo:
    """The memo of one tree and scoring folder under one context; ``enabled=False`` makes every lookup miss."""

    def __init__(self, root: Path, scoring_dir: str, context: str, enabled: bool = True):
        self.files = MemoFiles(Path(root) / MEMO_DIR / scoring_dir, _FORMAT, context, enabled)
        self.enabled = enabled
        self._entries: dict[str, tuple[dict, memoryview] | None] = {}
        self.written: list[str] = []  # subjects whose entry the last put wrote

    def _path(self, subject_id: str) -> Path:
        return self.files.path(subject_id)

    def _entry(self, subject_id: str) -> tuple[dict, memoryview] | None:
        if subject_id not in self._entries:
            self._entries[subject_id] = self.files.read(subject_id) if self.enabled else None
        return self._entries[subject_id]

    def preload(self, subject_ids: Iterable[str]) -> None:
        """Read the entries of ``subject_ids`` now (e.g. while a folder scan runs elsewhere)."""
        for sid in subject_ids:
            self._entry(sid)

    def _slice(self, entry: tuple[dict, memoryview], subject_id: str, subject_version: str) -> SubjectSlice | None:
        """The entry's slice; an entry that fails its checksum or holds another subject is forgotten
        (so that :meth:`put` rewrites it)."""
        found = None
        header, payload = entry
        if MemoFiles.intact(header, payload):
            try:
                size = header["meta"]
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
        if entry is None or entry[0].get("fingerprints") != fingerprint_text(fingerprints) \
                or entry[0].get("version") != subject_version:
            return None
        return self._slice(entry, subject_id, subject_version)

    def by_content(self, subject_id: str, subject_version: str, content: str) -> SubjectSlice | None:
        """The stored slice when it was built from the same inputs (``content``)."""
        entry = self._entry(subject_id)
        if entry is None or entry[0].get("content") != content:
            return None
        return self._slice(entry, subject_id, subject_version)

    def put(self, found: SubjectSlice, content: str, fingerprints: Sequence[bytes | None]) -> None:
        """Store ``found`` unless the same entry is already there; a read-only tree just keeps no memo."""
        if not self.enabled:
            return
        sid = found.subject_id
        entry = self._entry(sid)
        prints = fingerprint_text(fingerprints)
        if entry is not None and entry[0].get("content") == content and entry[0].get("fingerprints") == prints:
            return
        blobs: list = []
        meta = marshal.dumps((found.to_plain(blobs), [len(blob) for blob in blobs]))
        payload = b"".join([meta, *blobs])
        header = self.files.write(sid, {"content": content, "fingerprints": prints, "meta": len(meta),
                                        "version": found.subject_version}, payload)
        if header is not None:
            self._entries[sid] = (header, memoryview(payload))
            self.written.append(sid)

    def prune(self, subject_ids: Iterable[str]) -> None:
        """Delete the entries of subjects not in ``subject_ids``."""
        self.files.prune(subject_ids)
