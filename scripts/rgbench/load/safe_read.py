"""Safe reading of a benchmark tree: regular files only, no symbolic links anywhere on the way.

A symbolic link in a pull request could make the validator read a file outside
the tree (or a different file than the one reviewed), so every path component
below the tree root is checked with ``lstat`` and files are opened with
``O_NOFOLLOW``.
"""

from __future__ import annotations

import os
import stat
from operator import attrgetter
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from ..atomic import is_temporary_name
from ..problems import Problem


class TreeFile(NamedTuple):
    """A regular file found under the tree: its POSIX path relative to the root."""

    rel: str

    @property
    def name(self) -> str:
        return self.rel.rpartition("/")[2]

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.rel.split("/"))


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_dir_chain(root: Path, rel_dir: str) -> list[Problem]:
    """Problems if any component of ``rel_dir`` below ``root`` is a symlink or not a directory.

    A missing folder is not a problem here (an empty benchmark has none).
    """
    problems: list[Problem] = []
    current = Path(root)
    walked = PurePosixPath()
    for part in PurePosixPath(rel_dir).parts:
        current = current / part
        walked = walked / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return problems
        if not stat.S_ISDIR(mode):
            problems.append(Problem(str(walked), f"is {_kind(mode)}; expected a plain directory (replace it by a real folder)"))
            return problems
    return problems


def walk_files(root: Path, rel_dir: str) -> tuple[list[TreeFile], list[Problem]]:
    """List every regular file under ``root/rel_dir`` (recursively), sorted by path.

    Symbolic links (to files or directories) and special files are reported as
    problems and never followed. Files named ``.gitkeep`` are ignored, and so are the
    temporary files and folders a writer killed before its rename leaves
    (``.<name>.<random>.tmp``, :func:`rgbench.atomic.is_temporary_name`): git ignores them
    too, so a leftover never blocks a later run, and the pull-request gate refuses every
    name starting with '.' in the data folders, so none can come in through a pull request.
    They are not deleted here (a reader never writes; a writer may still be running).
    Problems come folder by folder (depth first, the last subfolder first), in
    name order within a folder; files are sorted once at the end, not per folder.
    """
    problems = check_dir_chain(root, rel_dir)
    if problems or not (Path(root) / rel_dir).is_dir():
        return [], problems
    entries: list[TreeFile] = []
    append = entries.append
    root_text = os.fspath(root)
    stack = [str(PurePosixPath(rel_dir))]
    while stack:
        current = stack.pop()
        prefix = current + "/"
        subdirs = []
        odd = []
        with os.scandir(os.path.join(root_text, current)) as iterator:
            for child in iterator:   # the entry's type from the directory itself: no stat per file
                name = child.name
                if is_temporary_name(name) and not child.is_symlink():
                    continue   # an interrupted writer's leftover, file or snapshot folder: see the docstring
                if child.is_file(follow_symlinks=False):
                    if name != ".gitkeep":
                        append(TreeFile(prefix + name))
                elif child.is_dir(follow_symlinks=False):
                    subdirs.append(child.name)
                else:
                    odd.append((child.name, child.stat(follow_symlinks=False).st_mode))
        for name, mode in sorted(odd):
            problems.append(Problem(prefix + name, f"is {_kind(mode)}; only regular files are read (replace it by a real file)"))
        subdirs.sort()
        stack.extend(prefix + name for name in subdirs)
    entries.sort(key=_REL)
    return entries, problems


_REL = attrgetter("rel")


# No input is read beyond this size (a schema may set a lower one with "x-max-file-bytes").
MAX_FILE_BYTES = 1 << 20
# No result file (results/, its snapshots) is read beyond this size. They grow with the benchmark:
# explorer_runs.csv ~220 bytes a run (19 MB at 100 subjects x 300 cases x 3 runs; manifest.json, a digest
# per subject folder and per gold, stays small), so 256 MiB holds a board of about a million runs.
MAX_RESULT_BYTES = 256 << 20


class FileTooLarge(OSError):
    """A file larger than its limit; ``str(error)`` is the user-facing message."""


def too_large_message(size: int, limit: int) -> str:
    return f"is larger than {limit} bytes ({size} or more); no input of this benchmark needs that much (shorten it)"


def read_bytes(root: str | Path, rel: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """Read a file without following a symbolic link at its last component, at most ``max_bytes`` of it.

    Callers obtain ``rel`` from :func:`walk_files` or have checked the chain with
    :func:`check_dir_chain`. Raises OSError on failure, FileTooLarge (never reading more than
    ``max_bytes + 1`` bytes) when the file is larger than ``max_bytes``.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(os.path.join(os.fspath(root), rel), flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{rel} is not a regular file")
        if info.st_size > max_bytes:
            raise FileTooLarge(too_large_message(info.st_size, max_bytes))
        chunks = []
        total = 0
        size = max(info.st_size, 0) + 1  # one read for the whole file, one more to see the end
        while True:
            chunk = os.read(fd, size)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:  # grew while being read
                raise FileTooLarge(too_large_message(total, max_bytes))
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def read_single_file(root: Path, rel: str, max_bytes: int = MAX_FILE_BYTES) -> tuple[bytes | None, list[Problem]]:
    """Read one expected file (e.g. the registry), checking every component for links.

    Returns (None, problems) when it is missing, a link, or not a regular file.
    """
    parent = str(PurePosixPath(rel).parent)
    problems = check_dir_chain(root, parent) if parent != "." else []
    if problems:
        return None, problems
    path = Path(root) / rel
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None, [Problem(rel, "missing (this file is required)")]
    if not stat.S_ISREG(mode):
        return None, [Problem(rel, f"is {_kind(mode)}; expected a regular file")]
    try:
        return read_bytes(root, rel, max_bytes), []
    except FileTooLarge as exc:
        return None, [Problem(rel, str(exc))]
    except OSError as exc:
        return None, [Problem(rel, f"cannot be read: {exc.strerror or exc}")]


def read_result_file(root: Path, rel: str) -> tuple[bytes | None, list[Problem]]:
    """:func:`read_single_file` of a file compute_metrics writes (results/, a snapshot), up to MAX_RESULT_BYTES."""
    return read_single_file(root, rel, MAX_RESULT_BYTES)
