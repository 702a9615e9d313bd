"""Atomic file writes: a crash or an error never leaves a half-written file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_temp_beside(path: Path, data: bytes, durable: bool = True) -> str:
    """Write ``data`` to a new temporary file (mode 0644, fsynced unless ``durable=False``) in ``path``'s
    folder (created if missing); return its name.

    The caller moves it into place (write_once links it) and removes it on failure.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_bytes_atomic(path: Path, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    Readers see either the old content or the new one, never a mix. The parent
    folder is created when missing. ``durable=False`` skips the fsync (caches).
    """
    tmp = write_temp_beside(path, data, durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_many_atomic(files: dict[Path, bytes]) -> None:
    """Write several files, each atomically, in sorted path order.

    Call it only once every output is fully computed, so that a failure in the
    computation leaves all previous results untouched.
    """
    for path in sorted(files, key=str):
        write_bytes_atomic(path, files[path])


def write_if_changed(path: Path, data: bytes, durable: bool = True) -> bool:
    """:func:`write_bytes_atomic` unless ``path`` is a regular file (not a link) already holding exactly
    ``data``; True when it wrote. For folders of many derived files that a rerun mostly leaves as they are."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        fd = -1
    if fd >= 0:
        try:
            with os.fdopen(fd, "rb") as handle:
                if handle.read(len(data) + 1) == data:
                    return False
        except OSError:
            pass
    write_bytes_atomic(path, data, durable)
    return True
