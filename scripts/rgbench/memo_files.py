"""The file layer shared by the per-subject memos (rgbench.subject_memo, rgbench.stats.aggregate_run).

One file per subject, ``<folder>/<sha256 of the subject id, 32 hex>.bin``: a JSON header line, then a
payload. The header always records the memo's format, the Python and marshal versions, the context
digest, the subject and the CRC-32 of the payload; each memo adds its own keys. Standard library only
(aggregate_scoring imports it before numpy). A file that does not decode or whose header does not
match is treated as absent; callers rewrite it. Writes are atomic, without fsync (a rebuildable cache).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sys
import zlib
from pathlib import Path
from typing import Any, Iterable

from .atomic import write_bytes_atomic

_SUFFIX = ".bin"
_PACKAGE = Path(__file__).resolve().parent
_code_digest: str | None = None


def code_digest() -> str:
    """sha256 over every ``.py`` file of the rgbench package (path and bytes): a code change voids every memo."""
    global _code_digest
    if _code_digest is None:
        digest = hashlib.sha256()
        for path in sorted(_PACKAGE.rglob("*.py")):
            digest.update(path.relative_to(_PACKAGE).as_posix().encode("utf-8") + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        _code_digest = digest.hexdigest()
    return _code_digest


def lines_digest(lines: Iterable[str]) -> str:
    """sha256 of ``lines`` joined by newlines (the form of every memo key)."""
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def content_digest(context: str, subject_id: str, subject_version: str, files: Iterable[tuple[str, str]]) -> str:
    """Digest of a subject's inputs: the context, its id and version, and (path, sha256) of its files."""
    return lines_digest([context, subject_id, subject_version] + [f"{d}  {p}" for p, d in sorted(files)])


def fingerprint_text(fingerprints: Iterable[bytes | None]) -> list[str | None]:
    """Folder fingerprints as they are kept in a header (hex; None for an untrusted folder)."""
    return [None if fp is None else fp.hex() for fp in fingerprints]


class MemoFiles:
    """The memo files of one folder, format and context; ``enabled=False`` reads and writes nothing."""

    def __init__(self, folder: Path, format_name: str, context: str, enabled: bool = True):
        self.folder, self.format, self.context, self.enabled = Path(folder), format_name, context, enabled

    def path(self, subject_id: str) -> Path:
        return self.folder / (hashlib.sha256(subject_id.encode("utf-8")).hexdigest()[:32] + _SUFFIX)

    def read(self, subject_id: str) -> tuple[dict[str, Any], memoryview] | None:
        """(header, payload) of the subject's file when it is this memo's and this context's, else None.
        The payload's CRC-32 is checked by :meth:`intact`, when the payload is about to be used."""
        if not self.enabled:
            return None
        try:
            with open(self.path(subject_id), "rb") as handle:
                data = handle.read()
            end = data.index(b"\n") + 1
            header = json.loads(data[:end])
        except (OSError, ValueError):
            return None
        if not (isinstance(header, dict) and header.get("format") == self.format
                and header.get("python") == list(sys.version_info[:2]) and header.get("marshal") == marshal.version
                and header.get("context") == self.context and header.get("subject") == subject_id):
            return None
        return header, memoryview(data)[end:]

    @staticmethod
    def intact(header: dict[str, Any], payload: bytes | memoryview) -> bool:
        return zlib.crc32(payload) == header.get("crc32")

    def write(self, subject_id: str, fields: dict[str, Any], payload: bytes) -> dict[str, Any] | None:
        """Write the subject's file with ``fields`` added to the standard header; the header, or None when the
        tree is read-only."""
        header = dict(fields, context=self.context, crc32=zlib.crc32(payload), format=self.format,
                      marshal=marshal.version, python=list(sys.version_info[:2]), subject=subject_id)
        line = json.dumps(header, sort_keys=True).encode("utf-8") + b"\n"
        try:
            write_bytes_atomic(self.path(subject_id), line + payload, durable=False)
        except OSError:
            return None
        return header

    def prune(self, subject_ids: Iterable[str]) -> None:
        """Delete the files of subjects not in ``subject_ids``."""
        if not self.enabled:
            return
        keep = {self.path(sid).name for sid in subject_ids}
        try:
            for name in os.listdir(self.folder):
                if name.endswith(_SUFFIX) and name not in keep:
                    os.unlink(self.folder / name)
        except OSError:
            pass
