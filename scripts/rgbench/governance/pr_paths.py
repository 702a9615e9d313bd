"""The pre-flight check of a pull request's paths, and the role the change needs, from git's objects alone.

Run before any validator reads the pull request's files (nothing is checked
out; the few files it compares are read as git blobs):

* git mode 120000 (a symbolic link) or 160000 (a submodule) is refused
  anywhere: a link could make a later step read a file outside the tree;
* names inside the data folders use a safe alphabet (letters, digits, ``.``,
  ``_``, ``-``; no leading dot or dash except ``.gitkeep``), so they are safe in
  logs, annotations and shell-free tooling alike;
* new or changed files above the size limit are refused;
* every changed path needs a role (see ``ROLES``), and a contributor's pull
  request (one that is not a maintainer's) is refused, path by path, where it
  needs a maintainer, or where it mixes a review with a submission.

The roles, as docs/maintainer.md's "Roles" section states them:

``reviewer``
    adds scorings (``scoring/``, ``scoring_multi/``) and the
    results they regenerate (generated ``results/`` files, and ``README.md``
    when its only change is the leaderboard block rewritten to equal the
    pull request's ``results/leaderboard.md``, as ``make metrics`` writes it);
``submission``
    adds one subject's responses (new files under ``responses/<version>/<id>/``)
    and its registry entry (``subjects/registry.yaml`` gaining entries without
    history, every existing entry unchanged), with the regenerated results;
``maintainer``
    everything else: golds, ``system/``, code, workflows, snapshots
    (``results/historico/``), any removal or rename, a changed response, a
    changed scoring (a committed grade: the pre-flight cannot tell whose it
    is), a changed registry entry or registry history, the reviewers and the
    planned second grades (``subjects/reviewers.yaml``,
    ``subjects/second_reviews.json``, the human draws ``subjects/human_draws.json``), ``results/README.md``,
    README prose.

Generated results and a regenerated README block need no role of their own:
they follow the inputs (``make check`` and ``check_provenance.py`` prove it).

With the pull request's author (``--author LOGIN``, as the gate passes it), a contributor's additions are
also checked against the base branch's registries (:mod:`.authorship`): responses only of subjects whose
``answered_by`` names the author (a new subject, a registry addition, is then a maintainer's change),
scorings only under reviewer ids whose ``handles`` name the author, adjudications only by an adjudicator.

Nothing passes unchecked: every path is an input where the layout puts it, a file the toolkit writes into
``results/`` (:func:`toolkit_result_names`; any other file there is a maintainer's), a documented file of its
role, or refused. A ``.gitkeep`` is
empty and only keeps a version folder of an input folder (:data:`KEEP_DIRS`); ``scoring_consolidated/``
(written by ``make agreement``, git-ignored) is never accepted from a pull request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..leaderboard.readme import README_FILE, replace_block, split_readme
from ..load.draws import DRAWS_FILE, DRAWS_MAX_BYTES, draw_list
from ..load.parsing import ParseError, decode_utf8, loads_yaml_strict
from ..load.registry import REGISTRY_FILE
from ..load.reviewers import ASSIGNMENTS_FILE, REVIEWERS_FILE
from ..load.safe_read import MAX_RESULT_BYTES
from ..problems import Problem
from .authorship import Authority, authorship_problem, registration_message
from .gitio import MODE_SUBMODULE, MODE_SYMLINK, Change
from .provenance import GENERATED_DIRS, is_generated_result

DATA_DIRS = ("responses", "scoring", "scoring_multi", "scoring_consolidated", "golds", "subjects", "results")
DEFAULT_MAX_BYTES = 1_000_000
REVIEWER, SUBMISSION, MAINTAINER = "reviewer", "submission", "maintainer"
ROLES = (REVIEWER, SUBMISSION, MAINTAINER)
LEADERBOARD_MARKDOWN = "results/leaderboard.md"
SCORING_DIRS = ("scoring", "scoring_multi")
GITKEEP = ".gitkeep"
# The input folders whose version folder (e.g. responses/v1.0/) may hold an empty .gitkeep, as `rgbench init` writes.
KEEP_DIRS = ("responses", "scoring", "scoring_multi", "golds")
_SAFE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_CONTRIBUTOR = ("a contributor's pull request either adds scorings (a review) or adds one subject's "
                "responses and its registry entry (a submission), with the regenerated results")


def in_data_dirs(path: str) -> bool:
    return any(path.startswith(folder + "/") for folder in DATA_DIRS)


def unsafe_name(path: str) -> str | None:
    """The first path component outside the safe alphabet, or None."""
    for part in path.split("/"):
        if part != GITKEEP and not _SAFE_PART.match(part):
            return part
    return None


def readme_is_regenerated(old: bytes | None, new: bytes | None, leaderboard: bytes | None) -> bool:
    """True when README.md ``new`` is ``old`` with its leaderboard block replaced by ``leaderboard``
    (what ``build_leaderboard.py --readme`` writes), and nothing else changed."""
    if old is None or new is None or leaderboard is None:
        return False
    try:
        old_text, new_text, table = decode_utf8(old), decode_utf8(new), decode_utf8(leaderboard)
    except ParseError:
        return False
    if isinstance(split_readme(old_text), str):
        return False
    return replace_block(old_text, table) == new_text


def registry_additions(old: bytes | None, new: bytes | None) -> set[str] | None:
    """The subject ids a registry change only adds (new entries without history, every old entry kept as it
    was); None when the change does anything else. A registry that does not parse counts as additions of
    nothing (``validate.py`` names its problem)."""
    def subjects(data: bytes) -> list[Any] | None:
        try:
            document = loads_yaml_strict(decode_utf8(data))
        except ParseError:
            return None
        items = document.get("subjects") if isinstance(document, dict) else None
        return items if isinstance(items, list) else None

    if old is None or new is None:
        return None
    before, after = subjects(old), subjects(new)
    if before is None or after is None:
        return set() if before is not None else None
    if any(item not in after for item in before):
        return None
    added = [item for item in after if item not in before]
    if any(not isinstance(item, dict) or "history" in item or not isinstance(item.get("subject_id"), str)
           for item in added):
        return None
    return {item["subject_id"] for item in added}


def draws_appended(old: bytes | None, new: bytes | None) -> str | None:
    """Why the pull request's ``subjects/human_draws.json`` (``new``, None: deleted) does more than append draws to
    the base's (``old``): a draw of the base changed or removed (as parsed: its bytes may be re-indented), a judge
    changed, or the new draws not numbered on; None when it only appends (or the base has no file, or either does
    not parse: ``rgbench validate`` names that). A draw is never edited, so nobody chooses which runs count after
    seeing their grades; the reviewers its runs name may change (`rgbench assign --reassign`: who grades a run is
    not which runs count)."""
    base = draw_list(old)
    head = draw_list(new) if new is not None else base and (base[0], [])
    if base is None or head is None:
        return None
    (judge, kept), (new_judge, drawn) = base, head
    fix = f"a pull request only appends draws: restore the base's, git checkout <base> -- {DRAWS_FILE}, then rgbench assign"
    if new_judge != judge and kept:
        return f"the judge of the base's draws changed ({fix})"
    changed = next((i for i, draw in enumerate(kept) if i >= len(drawn) or _unnamed(drawn[i]) != _unnamed(draw)), None)
    if changed is not None:
        return f"draw {changed + 1} of the base is {'changed' if changed < len(drawn) else 'removed'} ({fix})"
    wrong = next((i for i in range(len(kept), len(drawn))
                  if not isinstance(drawn[i], dict) or drawn[i].get("draw") != i + 1), None)
    return None if wrong is None else f"the new draw at position {wrong + 1} is not numbered {wrong + 1} ({fix})"


def _unnamed(draw: object) -> object:
    """A parsed draw (unchecked) without the reviewer each of its runs names."""
    if not isinstance(draw, dict) or not isinstance(draw.get("runs"), list):
        return draw
    return {**draw, "runs": [{k: v for k, v in run.items() if k != "reviewer_id"} if isinstance(run, dict) else run
                             for run in draw["runs"]]}


@dataclass(frozen=True)
class Facts:
    """What the pre-flight reads as blobs: whether README.md's change is only the regenerated block, the
    subject ids the registry change only adds (None when it changes anything else), why the human draws' change
    is more than an append (:func:`draws_appended`), and, when the pull request's author is known (``author``, a
    login), what the base's registries let that author add."""

    readme_regenerated: bool = False
    draws_problem: str | None = None
    registry_added: set[str] | None = field(default_factory=set)
    author: str | None = None
    authority: Authority = field(default_factory=Authority)


SUBJECT_FILES = (REGISTRY_FILE, REVIEWERS_FILE, ASSIGNMENTS_FILE, DRAWS_FILE)


def toolkit_result_names() -> frozenset[str]:
    """The names of the files the toolkit writes into ``results/`` (``make metrics``: the metric tables, the
    agreement and judge tables, the leaderboard); imported only when a change touches results/."""
    from ..leaderboard.html_page import HTML_FILE
    from ..leaderboard.leaderboard_csv import LEADERBOARD_FILE
    from ..leaderboard.markdown import MARKDOWN_FILE
    from ..results.breakdowns import (
        ADVANCED_FILE,
        BASELINE_FILE,
        CASE_TYPE_FILE,
        CASES_FILE,
        COST_FILE,
        CRITERION_FILE,
        EXPLORER_FILE,
        METADATA_FILE,
        TAG_FILE,
    )
    from ..results.tables import FAMILY_FILE, MANIFEST_FILE, PER_RUN_FILE, SUBJECT_FILE
    from ..stats.agreement_outputs import AGREEMENT_FILE
    from ..stats.judge_agreement import JUDGE_FILE
    from ..stats.outputs import STATS_TABLES
    from ..stats.reviewer_report import REVIEWERS_FILE as REVIEWERS_CSV
    return frozenset({PER_RUN_FILE, SUBJECT_FILE, FAMILY_FILE, MANIFEST_FILE, *STATS_TABLES, ADVANCED_FILE,
                      BASELINE_FILE, CASE_TYPE_FILE, CASES_FILE, COST_FILE, CRITERION_FILE, EXPLORER_FILE,
                      METADATA_FILE, TAG_FILE, AGREEMENT_FILE, JUDGE_FILE, REVIEWERS_CSV, HTML_FILE, LEADERBOARD_FILE,
                      MARKDOWN_FILE})


def layout_problem(path: str, version_dir: str | None) -> str | None:
    """Why a path in a data folder is refused whoever adds it: an input folder's file where no step reads it
    (the loader refuses it too), a ``.gitkeep`` out of place, anything in a generated, git-ignored folder;
    None otherwise. ``version_dir``: the benchmark's, e.g. ``v1.0`` (None when unknown: the input folders'
    layout is then not judged)."""
    parts = path.split("/")
    if parts[-1] == GITKEEP:
        if not in_data_dirs(path):
            return None
        if len(parts) == 3 and parts[0] in KEEP_DIRS and parts[1] == (version_dir or parts[1]):
            return None
        places = ", ".join(f"{folder}/{version_dir or '<version>'}/" for folder in KEEP_DIRS)
        return (f"a {GITKEEP} only keeps an empty input folder in git, and goes only in {places} "
                "(remove this one)")
    if parts[0] in GENERATED_DIRS:
        return (f"{parts[0]}/ is generated (`make agreement` writes it) and git-ignored: it is never committed "
                f"(remove it from the pull request: git rm -r --cached {parts[0]})")
    if version_dir is None:
        return None
    if parts[0] in ("responses", *SCORING_DIRS):
        layout = f"{parts[0]}/{version_dir}/<subject_id>/<file>.json"
        ok = len(parts) == 4 and parts[1] == version_dir and parts[3].endswith(".json")
    elif parts[0] == "golds":
        layout = f"golds/{version_dir}/<case_id>_gold.md"
        ok = len(parts) == 3 and parts[1] == version_dir and parts[2].endswith("_gold.md")
    elif parts[0] == "subjects":
        layout, ok = ", ".join(SUBJECT_FILES), path in SUBJECT_FILES
    else:
        return None
    return None if ok else (f"not where an input goes ({layout}), so no step would read it and it would count "
                            "for nothing (move it there or remove it)")


def role_of(change: Change, facts: Facts, result_names: frozenset[str] | None = None) -> tuple[str | None, str]:
    """(role, what the change does) for one change; role None for generated results, which follow the inputs
    (only the files the toolkit writes into results/: ``result_names``, :func:`toolkit_result_names` when
    None; another file there is a maintainer's, e.g. a new table that comes with the code writing it)."""
    path = change.path
    if change.status == "D":
        return MAINTAINER, "deletes a file (a removal)"
    if change.status == "R":
        return MAINTAINER, f"renames {change.old_path} (a removal)"
    parts = path.split("/")
    if parts[-1] == GITKEEP:
        return MAINTAINER, f"keeps an empty folder in git ({GITKEEP}): the layout's"
    if is_generated_result(path):
        names = result_names if result_names is not None else toolkit_result_names()
        if parts[0] == "results" and not (len(parts) == 2 and parts[1] in names):
            return MAINTAINER, ("adds a file the toolkit does not write into results/ (`make metrics` writes only its "
                                "tables, the manifest and the leaderboard there)")
        return None, "a generated result"
    if path == README_FILE and facts.readme_regenerated:
        return None, "the regenerated leaderboard block"
    if parts[0] in SCORING_DIRS and len(parts) >= 4:
        if change.status not in "AC":  # nothing maps a pull request's author to a reviewer id
            return MAINTAINER, "changes a committed grade (it may be another reviewer's)"
        return REVIEWER, "a scoring"
    if parts[0] == "responses" and len(parts) == 4 and change.status in "AC":
        return SUBMISSION, f"a new response of {parts[2]!r}"
    if path == REGISTRY_FILE and facts.registry_added is not None:
        return SUBMISSION, "new registry entries"
    reasons = {
        "responses": "changes a response that may already be graded",
        "golds": "changes a gold (a case)",
        "system": "changes the benchmark's definition (system/)",
        ".github": "changes the workflows or repository settings (.github/)",
        "scripts": "changes the code (scripts/)",
        "tests": "changes the tests",
        "subjects": "changes registry entries or their history",
        "results": "changes the hand-written documentation of results/",
    }
    if path == REVIEWERS_FILE:
        return MAINTAINER, f"changes who may grade ({REVIEWERS_FILE})"
    if path == ASSIGNMENTS_FILE:
        return MAINTAINER, f"changes the planned second grades ({ASSIGNMENTS_FILE}, written by `make assign`)"
    if path == DRAWS_FILE:
        return MAINTAINER, f"changes the human draws ({DRAWS_FILE}, written by `make draw`)"
    if path.startswith("results/historico/"):
        return MAINTAINER, "adds a snapshot (results/historico/, taken by `make snapshot`)"
    if path == README_FILE:
        return MAINTAINER, f"changes README.md beyond the regenerated leaderboard block (equal to {LEADERBOARD_MARKDOWN})"
    return MAINTAINER, reasons.get(parts[0], "is outside the data folders")


def check_changes(changes: Iterable[Change], sizes: dict[str, int], *, max_bytes: int = DEFAULT_MAX_BYTES,
                  maintainer: bool = False, facts: Facts = Facts(),
                  version_dir: str | None = None) -> tuple[list[Problem], list[Problem], str]:
    """(errors, notices, the role the change needs) for a pull request; ``sizes`` maps blob ids to byte sizes.

    ``maintainer``: the pull request is a maintainer's, so what needs a maintainer is a notice, not an error.
    ``version_dir``: the benchmark's version folder (``v1.0``); with it, a file added where no input goes is
    an error (:func:`layout_problem`), whoever adds it. ``facts.author``: the pull request's author; with it,
    an added response or scoring the base's registries do not give the author needs a maintainer
    (:func:`.authorship.authorship_problem`), and so does a registry addition (a registration).
    """
    errors: list[Problem] = []
    notices: list[Problem] = []
    roles: dict[str, list[str]] = {role: [] for role in ROLES}
    changes = list(changes)
    result_names = (toolkit_result_names() if any(c.path.startswith("results/") for c in changes if c.status != "D")
                    else frozenset())
    for change in changes:
        adds_content = change.status != "D"
        if adds_content and change.new_mode == MODE_SYMLINK:
            errors.append(Problem(change.path, "is a symbolic link (git mode 120000); links are refused in a pull request "
                                                "(commit the file itself: `git rm --cached` the link, copy the file there)"))
            continue
        if adds_content and change.new_mode == MODE_SUBMODULE:
            errors.append(Problem(change.path, "is a submodule (git mode 160000); submodules are refused in a pull request "
                                                "(remove it with `git rm`, and commit its files themselves if they are needed)"))
            continue
        for path in sorted({change.path, change.old_path}):
            part = unsafe_name(path) if in_data_dirs(path) else None
            if part is not None:
                errors.append(Problem(path, f"name component {part!r} uses characters outside "
                                            "[A-Za-z0-9._-] or starts with '.' or '-' (rename it)"))
        misplaced = layout_problem(change.path, version_dir) if adds_content else None
        if misplaced is not None:
            errors.append(Problem(change.path, misplaced))
        size = sizes.get(change.new_blob)
        # what compute_metrics writes into results/ (and its snapshots) grows with the board, the draws with the runs
        limit = (MAX_RESULT_BYTES if change.path.startswith("results/") else
                 max(max_bytes, DRAWS_MAX_BYTES) if change.path == DRAWS_FILE else max_bytes)
        if adds_content and size is not None and size > limit:
            errors.append(Problem(change.path, f"is {size} bytes, above the limit of {limit} (is it the right file?)"))
        if adds_content and size and change.path.split("/")[-1] == GITKEEP:
            errors.append(Problem(change.path, f"is {size} bytes; a {GITKEEP} is empty (it only keeps a folder in "
                                                "git; empty it)"))
        if change.path == DRAWS_FILE and facts.draws_problem:   # whoever makes it: draws are appended only
            errors.append(Problem(DRAWS_FILE, facts.draws_problem))
        if misplaced is not None:
            continue  # refused whoever adds it: no role makes it an input
        role, what = role_of(change, facts, result_names)
        if role is None:
            continue
        own = None
        if facts.author is not None and role in (REVIEWER, SUBMISSION):
            own = (registration_message(facts.registry_added or set(), facts.author) if change.path == REGISTRY_FILE
                   else authorship_problem(change.path, facts.author, facts.authority))
            role = MAINTAINER if own is not None else role
        roles[role].append(change.path)
        if role == MAINTAINER:
            problem = Problem(change.old_path if change.status == "D" else change.path, own or
                              f"{what}: a maintainer's change; {_CONTRIBUTOR} (ask a maintainer to make this change)")
            (notices if maintainer else errors).append(problem)
    submitted = {path.split("/")[2] for path in roles[SUBMISSION] if path.startswith("responses/")}
    submitted |= facts.registry_added or set()
    if len(submitted) > 1 and not roles[MAINTAINER]:
        problem = Problem(REGISTRY_FILE if REGISTRY_FILE in roles[SUBMISSION] else roles[SUBMISSION][0], (
            f"a submission adds one subject; this pull request adds {', '.join(sorted(submitted))} "
            "(open one pull request per subject)"))
        (notices if maintainer else errors).append(problem)
    if roles[REVIEWER] and roles[SUBMISSION] and not roles[MAINTAINER]:
        problem = Problem(roles[SUBMISSION][0], (
            f"this pull request mixes a submission ({len(roles[SUBMISSION])} file(s)) with a review "
            f"({len(roles[REVIEWER])} scoring(s)); open them as two pull requests (a subject is graded after "
            "its submission is merged)"))
        (notices if maintainer else errors).append(problem)
    needed = MAINTAINER if roles[MAINTAINER] else SUBMISSION if roles[SUBMISSION] else REVIEWER
    return sorted(set(errors)), sorted(set(notices)), needed
