"""Write a new benchmark repository into DIR (`rgbench init DIR`), ready for `make metrics` and `make test`.

DIR gets a documented system/ (case-id pattern, one family, six criteria
scored 0-2, Pass/Conditional thresholds, a fail catalog, the metrics config),
one example case in golds/, empty responses/, scoring/ and scoring_multi/, an
empty subjects/registry.yaml, a reviewers registry (subjects/reviewers.yaml:
one example human reviewer), a Makefile, .ci/run, the review and tests
workflows and CODEOWNERS under .github/, tests/ and a README with the two
commands. Its requirements.txt installs the toolkit running this command: from
the package index when it came from there, else the wheel, directory or git
commit it was installed from (its installation record), or this source checkout
(--requirement to write another line, e.g. one that CI can install too).
Refuses, writing nothing, when DIR exists and is not empty or is a symbolic link. The repository is written
into a private staging folder first and moved into place; on a full or read-only disk nothing is left. Then:

    cd DIR && make metrics && make test
"""

from __future__ import annotations

import argparse
import errno
import os
import shutil
import tempfile
from pathlib import Path

from ..atomic import output_error
from ..install_source import ToolkitSource, toolkit_source
from ..problems import refuse
from ..template import EXECUTABLE, template_files

STAGING = ".rgbench-init-"   # the private folder a run writes into before moving the repository into place


def leftovers(folder: Path) -> list[Path]:
    """The staging folders a killed ``rgbench init`` left inside ``folder`` (an existing empty folder it was
    filling): real folders named ``.rgbench-init-*``, never links."""
    return sorted(p for p in folder.glob(f"{STAGING}*") if p.is_dir() and not p.is_symlink())


def write_tree(target: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` into a private staging folder, then move them into place: a new ``target`` is the
    staging folder renamed (it is made beside ``target``); into an existing empty ``target`` (the folder
    keeps its identity: its mode, owner, a mount point, the shell that is in it) the staging folder is made
    inside and its few top-level entries are renamed up.

    On any failure (a full or read-only disk, a rename refused) everything this call wrote or moved is
    removed, any parent folder it created too, ``target`` is as it was, and OutputError says so. A kill
    while the files are written leaves only a hidden staging folder: beside a new ``target``
    (``.<name>.rgbench-init-*``; ``target`` is not created), or inside an existing one, which then still
    counts as empty (:func:`leftovers`, removed by the rerun). Only a kill among the final top-level
    renames into an existing folder (a dozen renames) can leave part of the repository there. ``target``
    must not be a symbolic link (main refuses one); links among its parents are resolved.
    """
    target = target.resolve()  # not a link itself: only its parents' links are resolved ("." and ".." too)
    exists = target.is_dir()
    parent = target if exists else target.parent
    created = None if exists else next((p for p in reversed([parent, *parent.parents]) if not os.path.lexists(p)), None)
    umask = os.umask(0)
    os.umask(umask)
    staging = None
    moved: list[str] = []
    try:
        for killed in leftovers(target) if exists else []:
            shutil.rmtree(killed)
        parent.mkdir(parents=True, exist_ok=True)
        prefix = STAGING if exists else f".{target.name}{STAGING}"
        staging = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))  # private (0700) while being written
        for rel, data in files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            if rel in EXECUTABLE:
                path.chmod(0o755 & ~umask)
        if not exists:
            staging.chmod(0o777 & ~umask)
            os.rename(staging, target)  # refused if a folder appeared there meanwhile and is not empty
            return
        for name in sorted(entry.name for entry in staging.iterdir()):
            if os.path.lexists(target / name):   # appeared meanwhile: never replaced
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target / name))
            os.rename(staging / name, target / name)
            moved.append(name)
        staging.rmdir()
    except OSError as exc:
        if staging is not None:
            for name in reversed(moved):   # undo: the entries go back into staging, removed below
                try:
                    os.rename(target / name, staging / name)
                except OSError:
                    shutil.rmtree(target / name, ignore_errors=True)
        for leftover in (staging, created):
            if leftover is not None:
                shutil.rmtree(leftover, ignore_errors=True)
        raise output_error(target, exc, "nothing was written") from None


def refusal(target: Path) -> str | None:
    """Why ``target`` cannot become a new repository (a message ``path: what is wrong (how to fix it)``), or None.

    Safe: a new path or an existing empty folder, under folders that exist or are created, through symbolic
    links among its parents (resolved). Refused: ``target`` itself a symbolic link (to a folder, a file or
    nothing: rgbench init replaces no link and writes nowhere a link points), a file or a folder that is not
    empty, a parent that is a file or a link to nothing (the repository would be created where it points)."""
    if target.is_symlink():
        return (f"{target}: is a symbolic link (rgbench init writes a real folder: name the folder it points to, "
                "or a new path)")
    if target.exists() and (not target.is_dir() or set(target.iterdir()) - set(leftovers(target))):
        return f"{target}: exists and is not an empty folder (rgbench init writes a new repository: name a new or empty folder)"
    for parent in target.parents:
        if parent.is_symlink() and not parent.exists():
            return f"{target}: {parent} is a symbolic link to nothing (choose DIR inside a folder that exists)"
        if parent.exists() and not parent.is_dir():
            return f"{target}: {parent} is a file, not a folder (choose DIR inside a folder)"
    return None


def run(args: argparse.Namespace) -> int:
    source = toolkit_source()
    target: Path = args.dir
    try:
        refused = refusal(target)
    except OSError as exc:   # e.g. a parent folder that may not be read
        refused = f"{target}: cannot be read ({exc.strerror or exc}; choose a DIR you may write to)"
    if refused is not None:
        return refuse(refused)
    try:
        files = template_files(source.requirement if args.requirement is None else args.requirement)
    except ValueError as exc:
        return refuse(f"--requirement: {exc}")
    write_tree(target, files)   # OutputError (nothing written): reported by the command line
    print(f"{target}: new benchmark repository ({len(files)} files). Next: cd {target} && make metrics && make test")
    if args.requirement is None:
        print(requirement_note(source))
    return 0


def requirement_note(source: ToolkitSource) -> str:
    """What the written requirements.txt installs, and, for a path on this machine, what a shared repository needs."""
    note = f"requirements.txt: {source.requirement} (the toolkit running now, from {source.origin})"
    if source.path is None:
        return note
    gone = "" if source.path.exists() else f"; {source.path} no longer exists"
    return (f"{note}{gone}. A path installs on this machine only: for CI and other machines, replace the line with "
            "one they can install (a wheel's URL, or a git URL pinned to a tag or commit; or rgbench init --requirement)")

