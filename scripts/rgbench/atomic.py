"""Atomic file writes: a crash or an error never leaves a half-written file, and a set of outputs is
replaced only once every one of them is written and synced."""

from __future__ import annotations

import errno
import fcntl
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# The name tempfile gives our temporaries: ``.<final name>.<8 of [a-z0-9_]>.tmp`` (a file, or a snapshot's folder).
_TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


def is_temporary_name(name: str) -> bool:
    """True for the name of a temporary file or folder this toolkit writes (``.<name>.<random>.tmp``).

    A run killed before its rename leaves one; readers of the tree skip them (safe_read.walk_files), as git
    does (``.gitignore``: ``.*.tmp``), and the pull-request gate refuses any name starting with '.', so a
    contributor cannot hide a file behind such a name."""
    return _TEMPORARY.fullmatch(name) is not None


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


class OutputError(OSError):
    """An output that could not be written (read-only folder, full disk, ...); ``str(error)`` is the
    user-facing ``path: what is wrong (how to fix it)``, and nothing was replaced. ``reason`` is the same
    without the path (for a page that must not show it)."""

    reason: str = ""


def output_error(path: Path, exc: OSError, kept: str = "no output was replaced") -> OutputError:
    """The OutputError for ``exc`` raised while writing ``path``: what failed, how to fix it, and ``kept``
    (what the failure left as it was)."""
    reason = exc.strerror or str(exc)
    hint = ("free some disk space" if exc.errno in (errno.ENOSPC, errno.EDQUOT)
            else "make the folder writable" if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
            else "fix the folder")
    text = f"cannot be written: {reason} ({hint}, then run again; {kept})"
    error = OutputError(exc.errno, f"{path}: {text}")
    error.reason = text
    return error


def remove_stale_temporaries(folder: Path) -> None:
    """Remove the ``.<name>.<random>.tmp`` files an interrupted run left in ``folder`` (git ignores them too)."""
    try:
        candidates = [path for path in Path(folder).glob(".*.tmp") if is_temporary_name(path.name)]
    except OSError:
        return
    for tmp in candidates:
        try:
            if tmp.is_file() and not tmp.is_symlink():
                tmp.unlink()
        except OSError:
            pass


def sync_folder(folder: Path) -> None:
    """fsync a folder, so that the names created or renamed in it are on disk."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_many_atomic(files: dict[Path, bytes], last: str | None = None) -> None:
    """Write several files as a set: every one to a temporary file, all fsynced, and only then renamed
    into place (the file named ``last``, e.g. manifest.json, renamed last).

    Call it only once every output is fully computed, so that a failure in the computation leaves all
    previous results untouched. A failure while writing the temporaries (read-only folder, full disk)
    removes them and raises OutputError before anything is replaced. A kill between two renames can still
    leave old and new files side by side; the manifest renamed last lists every output's digest, so
    build_leaderboard and check name each file of such a mixed set. Temporaries an interrupted run left
    are removed first.
    """
    order = sorted(files, key=lambda path: (path.name == last, str(path)))
    for folder in sorted({path.parent for path in order}, key=str):
        remove_stale_temporaries(folder)
    temporaries: list[tuple[str, Path]] = []
    try:
        for path in order:
            try:
                temporaries.append((write_temp_beside(path, files[path]), path))
            except OSError as exc:
                raise output_error(path, exc) from None
        for folder in sorted({path.parent for path in order}, key=str):
            sync_folder(folder)
        while temporaries:
            tmp, path = temporaries[0]
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise output_error(path, exc) from None
            temporaries.pop(0)
    finally:
        for tmp, _ in temporaries:
            try:
                os.unlink(tmp)
            except OSError:
                pass


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


class Busy(Exception):
    """Another process holds the tree's lock (:func:`tree_lock`)."""


@contextmanager
def tree_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on the folder ``root`` (flock on the folder itself: no lock file is
    written, and the kernel drops it when the process ends, even on kill -9); Busy at once when another
    process holds it.

    Two writers of one tree's results (two `make metrics`) would otherwise remove each other's temporary
    files (write_many_atomic cleans those an interrupted run left) and fail with a misleading "No such
    file or directory"."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(str(root)) from None
        yield
    finally:
        os.close(fd)
