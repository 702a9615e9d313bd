"""The pre-flight check of a pull request's paths, from git's objects alone (no file is opened).

Run before any validator reads the pull request's files:

* git mode 120000 (a symbolic link) or 160000 (a submodule) is refused
  anywhere: a link could make a later step read a file outside the tree;
* paths outside the data folders are refused (a reviewer's pull request
  changes data, not the judge), unless the caller allows them (maintainers);
* names inside the data folders use a safe alphabet (letters, digits, ``.``,
  ``_``, ``-``; no leading dot or dash except ``.gitkeep``), so they are safe in
  logs, annotations and shell-free tooling alike;
* new or changed files above the size limit are refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..problems import Problem
from .gitio import MODE_SUBMODULE, MODE_SYMLINK, Change

DATA_DIRS = ("responses", "scoring", "scoring_multi", "scoring_consolidated", "golds", "subjects", "results")
DEFAULT_MAX_BYTES = 1_000_000
_SAFE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def in_data_dirs(path: str) -> bool:
    return any(path.startswith(folder + "/") for folder in DATA_DIRS)


def unsafe_name(path: str) -> str | None:
    """The first path component outside the safe alphabet, or None."""
    for part in path.split("/"):
        if part != ".gitkeep" and not _SAFE_PART.match(part):
            return part
    return None


def check_changes(changes: Iterable[Change], sizes: dict[str, int], *, max_bytes: int = DEFAULT_MAX_BYTES,
                  allow_outside: bool = False) -> tuple[list[Problem], list[Problem]]:
    """(errors, notices) for the changes of a pull request; ``sizes`` maps blob ids to byte sizes."""
    errors: list[Problem] = []
    notices: list[Problem] = []
    for change in changes:
        adds_content = change.status != "D"
        paths = {change.path, change.old_path}
        if adds_content and change.new_mode == MODE_SYMLINK:
            errors.append(Problem(change.path, "is a symbolic link (git mode 120000); links are refused in a pull request"))
        elif adds_content and change.new_mode == MODE_SUBMODULE:
            errors.append(Problem(change.path, "is a submodule (git mode 160000); submodules are refused in a pull request"))
        for path in sorted(paths):
            if not in_data_dirs(path):
                message = (f"is outside the data folders ({', '.join(d + '/' for d in DATA_DIRS)}); "
                           "a reviewer's pull request changes data only")
                (notices if allow_outside else errors).append(Problem(path, message))
            else:
                part = unsafe_name(path)
                if part is not None:
                    errors.append(Problem(path, f"name component {part!r} uses characters outside "
                                                "[A-Za-z0-9._-] or starts with '.' or '-' (rename it)"))
        size = sizes.get(change.new_blob)
        if adds_content and size is not None and size > max_bytes:
            errors.append(Problem(change.path, f"is {size} bytes, above the limit of {max_bytes} (is it the right file?)"))
    return sorted(set(errors)), sorted(set(notices))
