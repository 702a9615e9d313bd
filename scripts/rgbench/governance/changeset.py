"""Which problems concern a change: the changed files, what they reference, and what references them.

``validate.py --changed BASE`` validates the whole tree (it takes well under a
second) and reports only the problems that this module calls relevant to the
set of paths changed since BASE. A problem is relevant when its path

* is a changed path (or a folder holding one), or
* is referenced by a changed file (a scoring references its response, the
  case's gold, the registry and the fail catalog; a response references its
  gold and the registry), or
* references a changed file (a scoring whose response changed, every file
  of a case whose gold changed, every response and scoring when the registry
  changed), since the change is what breaks it.

A change under ``system/`` (the benchmark's definition) makes every problem
relevant. References are derived from the tree's naming rules, never by
reading files, so a broken file cannot hide its own references.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from ..load.loader import gold_rel, response_rel
from ..load.registry import REGISTRY_FILE
from ..load.spec import Spec
from ..problems import Problem


def references(path: str, spec: Spec) -> set[str]:
    """Paths that the file or folder at ``path`` depends on, by the tree's naming rules."""
    parts = PurePosixPath(path).parts
    version = spec.version_dir
    if len(parts) >= 3 and parts[0] in ("responses", "scoring") and parts[1] == version:
        refs = {REGISTRY_FILE}
        if len(parts) != 4 or not parts[3].endswith(".json"):
            return refs  # a subject folder: only its registration
        sid, fields = parts[2], parts[3][: -len(".json")].split("__")
        case_id = fields[0]
        refs.add(gold_rel(spec, case_id))
        if parts[0] == "scoring" and len(fields) == 3:
            refs.add(response_rel(spec, sid, case_id, fields[1]))
            refs.add(spec.catalog_path)
        return refs
    return set()


def is_relevant(problem_path: str, changed: set[str], spec: Spec) -> bool:
    """True when a problem at ``problem_path`` concerns the change ``changed`` (see the module docstring)."""
    if any(path == "system" or path.startswith("system/") for path in changed):
        return True
    if problem_path in changed or any(path.startswith(problem_path.rstrip("/") + "/") for path in changed):
        return True
    if references(problem_path, spec) & changed:
        return True
    return any(problem_path in references(path, spec) for path in changed)


def select(problems: list[Problem], changed: set[str], spec: Spec) -> tuple[list[Problem], int]:
    """(relevant problems, how many others were left out)."""
    kept = [p for p in problems if is_relevant(p.path, changed, spec)]
    return kept, len(problems) - len(kept)
