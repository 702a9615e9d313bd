#!/usr/bin/env python3
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
Refuses, writing nothing, when DIR exists and is not empty. Then:

    cd DIR && make metrics && make test
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from rgbench.cli import invocation
from rgbench.install_source import ToolkitSource, toolkit_source
from rgbench.template import EXECUTABLE, template_files


def write_tree(target: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` into a temporary sibling folder, then move it into place: renamed to ``target``, or
    its entries moved into ``target`` when that is an existing empty folder."""
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    umask = os.umask(0)
    os.umask(umask)
    try:
        staging.chmod(0o777 & ~umask)  # mkdtemp makes it private; the repository gets the usual mode
        for rel, data in files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            if rel in EXECUTABLE:
                path.chmod(0o755 & ~umask)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)  # e.g. a full disk: nothing half-written stays behind
        raise
    if not target.exists():
        os.replace(staging, target)
        return
    for entry in sorted(staging.iterdir()):
        os.replace(entry, target / entry.name)
    staging.rmdir()


def main(argv: list[str] | None = None) -> int:
    # No --root: DIR is the new repository, not a benchmark tree to read.
    parser = argparse.ArgumentParser(prog=invocation().prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", type=Path, metavar="DIR", help="the new repository (created; may exist if empty)")
    source = toolkit_source()
    parser.add_argument("--requirement", help="the line of DIR/requirements.txt that installs the toolkit (default: the "
                                              f"toolkit running now, {source.requirement!r}, from {source.origin})")
    args = parser.parse_args(argv)
    target: Path = args.dir
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        print(f"{target}: exists and is not an empty folder (rgbench init writes a new repository)", file=sys.stderr)
        return 1
    try:
        files = template_files(source.requirement if args.requirement is None else args.requirement)
    except ValueError as exc:
        print(f"--requirement: {exc}", file=sys.stderr)
        return 1
    blocker = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        print(f"{target}: {blocker} is a file, not a folder (choose DIR inside a folder)", file=sys.stderr)
        return 1
    try:
        write_tree(target, files)
    except OSError as exc:
        print(f"{target}: cannot be written ({exc.filename}: {exc.strerror or exc}; choose a DIR you may write to)",
              file=sys.stderr)
        return 1
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


if __name__ == "__main__":
    sys.exit(main())
