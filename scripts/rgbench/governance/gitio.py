"""Git plumbing through ``subprocess`` with list arguments: no shell, no text pasted into a command line.

Every path git prints is read NUL-separated (``-z``), so names with spaces,
quotes or newlines cannot be mistaken for something else. Paths are returned
relative to the benchmark tree (``--root``), which may be the repository's top
folder or a folder inside it; paths outside the tree are dropped.

Only read-only commands are used here: the toolkit never changes a
repository's state.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's well-known empty tree object
MODE_SYMLINK = "120000"
MODE_SUBMODULE = "160000"


class GitError(Exception):
    """A git command failed; ``str(error)`` is a one-line message for the user."""


@dataclass(frozen=True)
class Change:
    """One file changed between two trees, as ``git diff --raw`` reports it.

    ``status`` is one letter: A (added), M (modified), D (deleted), R (renamed),
    C (copied), T (type changed). ``path`` is the new path (the old one for D);
    ``old_path`` differs from it only for R and C. ``new_mode`` is git's six-digit
    octal string ("000000" when absent); ``new_blob`` is the new content's id.
    """

    status: str
    path: str
    old_path: str
    new_mode: str
    new_blob: str


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat"})
    return env


def git(root: Path, *args: str, input_bytes: bytes | None = None) -> bytes:
    """Run ``git -C root args...`` and return its stdout; raise GitError with git's message on failure."""
    command = ["git", "-C", str(root), "-c", "core.quotePath=false", *args]
    try:
        done = subprocess.run(command, input=input_bytes, capture_output=True, env=_env(), check=False)
    except FileNotFoundError:
        raise GitError("git is not installed (it is needed to compare revisions)") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(message[-1] if message else f"git {args[0]} failed with status {done.returncode}")
    return done.stdout


def _split_z(data: bytes) -> list[str]:
    return [item.decode("utf-8", "surrogateescape") for item in data.split(b"\0") if item]


def prefix(root: Path) -> str:
    """The tree's folder inside its repository, ``""`` or ``"sub/dir/"``; GitError if not in a repository."""
    try:
        return git(root, "rev-parse", "--show-prefix").decode("utf-8", "surrogateescape").strip()
    except GitError:
        raise GitError(f"{root}: not inside a git repository") from None


def resolve(root: Path, rev: str) -> str:
    """The full commit id that ``rev`` names; GitError when it names no commit."""
    if not rev or rev.startswith("-"):
        raise GitError(f"{rev!r} is not a revision")
    try:
        out = git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    except GitError:
        prefix(root)  # raises "not inside a git repository" when that is the reason
        raise GitError(f"{rev!r} is not a commit of this repository (fetch it first, e.g. `git fetch origin main`)") from None
    return out.decode().strip()


def commits_between(root: Path, base: str, head: str = "HEAD") -> list[str]:
    """Commits reachable from ``head`` but not from ``base``, oldest first."""
    out = git(root, "rev-list", "--reverse", "--topo-order", f"{resolve(root, base)}..{resolve(root, head)}")
    return out.decode().split()


def parents(root: Path, commit: str) -> list[str]:
    """Parent commit ids (none for a root commit, two or more for a merge)."""
    return git(root, "rev-list", "--parents", "-n", "1", commit).decode().split()[1:]


def commit_subject(root: Path, commit: str) -> str:
    """The first line of the commit message."""
    return git(root, "log", "-1", "--format=%s", commit).decode("utf-8", "replace").strip()


def _relative(path: str, pfx: str) -> str | None:
    if not pfx:
        return path
    return path[len(pfx):] if path.startswith(pfx) else None


def parse_raw_diff(data: bytes, pfx: str = "") -> list[Change]:
    """Parse ``git diff --raw -z`` output into Changes (paths made relative to the tree)."""
    items = data.split(b"\0")
    changes: list[Change] = []
    index = 0
    while index < len(items):
        head = items[index].decode("ascii", "replace")
        index += 1
        if not head.startswith(":"):
            continue
        _old_mode, new_mode, _old_blob, new_blob, status = head[1:].split(" ")
        letter = status[0]
        first = items[index].decode("utf-8", "surrogateescape")
        index += 1
        second = first
        if letter in "RC":
            second = items[index].decode("utf-8", "surrogateescape")
            index += 1
        new_path, old_path = _relative(second, pfx), _relative(first, pfx)
        if new_path is None and old_path is None:
            continue
        changes.append(Change(letter, new_path or old_path or "", old_path or new_path or "", new_mode, new_blob))
    return changes


def diff_trees(root: Path, old: str, new: str, *, renames: bool = True) -> list[Change]:
    """Files that differ between two commits (or trees), with rename detection unless ``renames`` is False."""
    flags = ["-M"] if renames else ["--no-renames"]
    out = git(root, "diff-tree", "-r", "-z", "--raw", "--no-ext-diff", "--no-textconv", *flags, old, new)
    return parse_raw_diff(out, prefix(root))


def commit_changes(root: Path, commit: str) -> list[Change]:
    """What ``commit`` changed with respect to its first parent (the empty tree for a root commit).

    A merge is judged like any commit, against its first parent: whatever it
    brings into the branch it lands on shows, so a merge made with ``-s ours``
    (which keeps the first parent's files and hides the other side's) cannot
    delete or replace a file unseen. The merged branch's own commits are judged
    one by one as well.
    """
    parent_ids = parents(root, commit)
    return diff_trees(root, parent_ids[0] if parent_ids else EMPTY_TREE, commit)


def changed_since(root: Path, base: str) -> set[str]:
    """Paths (relative to the tree) that differ between ``base`` and the working tree, untracked files included.

    A renamed file counts as its old path (gone) and its new path (added).
    """
    commit = resolve(root, base)
    pfx = prefix(root)
    tracked = git(root, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", commit, "--")
    untracked = git(root, "ls-files", "-z", "--others", "--exclude-standard", "--full-name")
    return {p for p in (_relative(item, pfx) for item in _split_z(tracked + untracked)) if p}


def read_blob(root: Path, rev: str, rel: str) -> bytes | None:
    """Bytes of ``rel`` (relative to the tree) at ``rev``; None when the file does not exist there."""
    spec = f"{resolve(root, rev)}:{prefix(root)}{rel}"
    try:
        kind = git(root, "cat-file", "-t", spec).decode().strip()
    except GitError:
        return None
    if kind != "blob":
        return None
    return git(root, "cat-file", "blob", spec)


def blob_sizes(root: Path, blobs: list[str]) -> dict[str, int]:
    """Size in bytes of each blob id, read from git's object store (no file is opened)."""
    wanted = sorted(set(blobs))
    if not wanted:
        return {}
    out = git(root, "cat-file", "--batch-check=%(objectname) %(objectsize)", input_bytes=("\n".join(wanted) + "\n").encode())
    sizes = {}
    for line in out.decode().splitlines():
        name, _, size = line.partition(" ")
        if size.isdigit():
            sizes[name] = int(size)
    return sizes


def dirty_paths(root: Path, rel_dirs: tuple[str, ...]) -> list[str]:
    """Paths under ``rel_dirs`` whose working copy differs from HEAD (modified, staged or untracked)."""
    pfx = prefix(root)
    out = git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--",
              *(f":(top){pfx}{d}" for d in rel_dirs))  # pathspecs are read from root, not the repository top
    return sorted(rel for rel in (_relative(item[3:], pfx) for item in _split_z(out)) if rel is not None)


def tree_objects(root: Path, rev: str, rel_dir: str) -> dict[str, str]:
    """``path -> "mode object-id"`` of every file under ``rel_dir`` at ``rev`` (recursive; empty when absent).

    Two revisions hold byte-identical files exactly when these strings are equal.
    """
    pfx = prefix(root)
    out = git(root, "ls-tree", "-r", "-z", "--full-tree", resolve(root, rev), "--", f"{pfx}{rel_dir}")
    found = {}
    for item in _split_z(out):
        meta, _, path = item.partition("\t")
        rel = _relative(path, pfx)
        if rel is not None:
            mode, _kind, oid = meta.split(" ")
            found[rel] = f"{mode} {oid}"
    return found


def is_ancestor(root: Path, ancestor: str, descendant: str) -> bool:
    """True when ``ancestor`` is ``descendant`` or in its history (both must name commits)."""
    done = subprocess.run(["git", "-C", str(root), "merge-base", "--is-ancestor", ancestor, descendant],
                          capture_output=True, env=_env(), check=False)
    if done.returncode not in (0, 1):
        raise GitError(done.stderr.decode("utf-8", "replace").strip() or f"cannot compare {ancestor} and {descendant}")
    return done.returncode == 0


def commit_date(root: Path, commit: str) -> dt.date:
    """The committer date of ``commit``, as a UTC calendar date."""
    seconds = int(git(root, "log", "-1", "--format=%ct", commit).decode().strip())
    return dt.datetime.fromtimestamp(seconds, dt.UTC).date()


def merge_base(root: Path, a: str, b: str) -> str:
    """The best common ancestor of two commits (what ``a...b`` diffs from); GitError when there is none."""
    first, second = resolve(root, a), resolve(root, b)
    try:
        return git(root, "merge-base", first, second).decode().strip()
    except GitError:
        raise GitError(f"{a!r} and {b!r} have no common history (fetch the full history, e.g. fetch-depth: 0)") from None


def _safe_relative(path: str) -> bool:
    """True for a relative path of plain names: no empty, ``.``, ``..`` or ``.git`` part, no backslash."""
    parts = path.split("/")
    return bool(path) and "\\" not in path and all(part not in ("", ".", "..") and part.lower() != ".git"
                                                   for part in parts)


def export_files(root: Path, rev: str, rel_paths: tuple[str, ...], dest: Path, *,
                 exclude: tuple[str, ...] = ()) -> list[str]:
    """Write every regular file under ``rel_paths`` (folders or files of the tree) at ``rev`` into ``dest``, at
    its path relative to the tree, from git's objects (no checkout; the repository is only read). Files under
    ``exclude`` are left out. Returns the paths not written: links, submodules and names that are not plain
    relative paths (a crafted tree's ``..``), which never reach the disk."""
    pfx = prefix(root)
    out = git(root, "ls-tree", "-r", "-z", "--full-tree", resolve(root, rev), "--", *(f"{pfx}{rel}" for rel in rel_paths))
    wanted: list[tuple[str, str]] = []
    skipped: list[str] = []
    for item in _split_z(out):
        meta, _, path = item.partition("\t")
        rel = _relative(path, pfx)
        if rel is None or any(rel == e or rel.startswith(e + "/") for e in exclude):
            continue
        mode, kind, oid = meta.split(" ")
        if kind == "blob" and mode in ("100644", "100755") and _safe_relative(rel):
            wanted.append((rel, oid))
        else:
            skipped.append(rel)
    if wanted:
        _write_blobs(root, wanted, dest)
    return skipped


def _write_blobs(root: Path, wanted: list[tuple[str, str]], dest: Path) -> None:
    """Stream ``git cat-file --batch`` (ids from a file, so neither pipe can block the other) into the files."""
    import tempfile

    with tempfile.TemporaryFile() as ids:
        ids.write("".join(f"{oid}\n" for _, oid in wanted).encode())
        ids.seek(0)
        process = subprocess.Popen(["git", "-C", str(root), "cat-file", "--batch"], stdin=ids,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env())
        assert process.stdout is not None
        try:
            for rel, oid in wanted:
                header = process.stdout.readline().decode("ascii", "replace").split()
                if len(header) != 3 or header[0] != oid or header[1] != "blob":
                    raise GitError(f"cannot read {rel} ({oid}) from git's objects")
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(process.stdout.read(int(header[2])))
                process.stdout.read(1)  # the newline after each object
        finally:
            process.stdout.close()
            process.wait()
