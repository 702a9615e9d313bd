"""Atomic file writes: a crash or an error never leaves a half-written file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_temp_beside(path: Path, data: bytes) -> str:
    """Write ``data`` to a new, fsynced temporary file in ``path``'s folder (created if missing); return its name.

    The caller moves it into place (write_once links it) and removes it on failure.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
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
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_bytes_atomic(os.fspath(path), data, durable)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` as UTF-8 with the line endings it already has (use ``\\n``)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_many_atomic(files: dict[Path, bytes]) -> None:
    """Write several files, each atomically, in sorted path order.

    Call it only once every output is fully computed, so that a failure in the
    computation leaves all previous results untouched.
    """
    for path in sorted(files, key=str):
        write_bytes_atomic(path, files[path])


def replace_bytes_atomic(path: str, data: bytes, durable: bool = True) -> None:
    """:func:`write_bytes_atomic` into a folder that exists: the same temporary file beside ``path``, mode
    0644 and rename, without creating folders or building Path objects (for writing many files)."""
    folder, name = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder or ".")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
            os.fchmod(fd, 0o644)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


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
