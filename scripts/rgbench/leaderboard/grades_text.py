"""What a board of consolidated grades says once: the grades its figures rest on (manifest.json's ``grades``,
written by ``board_grades: consolidated``), checked against config.yaml."""

from __future__ import annotations

from ..load.consolidate import KNOWN_POLICIES, policy_of
from ..load.spec import Spec
from ..numfmt import counted
from ..problems import Problem
from ..stats.consolidated_board import CONSOLIDATED_BOARD
from .manifest import MANIFEST_PATH, Manifest

OUT_OF_STEP = "the results are out of step with config.yaml; run `make metrics`"


def grades_problems(manifest: Manifest, spec: Spec) -> list[Problem]:
    """The manifest's grades agree with config.yaml's board_grades and consolidation_policy."""
    grades, board = manifest.grades, spec.stats.board_grades
    policy = policy_of(spec)
    if grades is None:
        return [] if board != CONSOLIDATED_BOARD else [Problem(
            MANIFEST_PATH, f"no $.grades, but {spec.config_path} sets board_grades: {board} ({OUT_OF_STEP})")]
    if board != CONSOLIDATED_BOARD:
        return [Problem(MANIFEST_PATH, f"$.grades: the results rest on consolidated grades, but {spec.config_path} "
                                       f"sets board_grades: {board} ({OUT_OF_STEP})")]
    recorded = (grades["board_grades"], grades["consolidation_policy"], grades["consolidated_reviewer"])
    if recorded != (CONSOLIDATED_BOARD, policy.name, policy.reviewer):
        return [Problem(MANIFEST_PATH, f"$.grades: policy {grades['consolidation_policy']} (reviewer "
                                       f"{grades['consolidated_reviewer']!r}), but {spec.config_path} sets "
                                       f"consolidation_policy: {policy.key} ({policy.name}) ({OUT_OF_STEP})")]
    return []


def grades_note(grades: dict[str, object] | None, assisted: bool = False) -> str:
    """The one sentence a board of consolidated grades carries (plain text); "" for one grade per run. ``assisted``
    (judge-assisted mode): the figures rest on the judge's grades too, so the sentence speaks of the human values."""
    if grades is None:
        return ""
    name = str(grades["consolidation_policy"])
    policy = next(p for p in KNOWN_POLICIES if p.name == name)   # grades_problems checked it is config.yaml's
    n = {key: int(str(grades[key])) for key in ("grades", "raters", "runs", "runs_adjudicated", "runs_combined")}
    lead = (f"The human value of each of the {counted(n['runs'], 'run')} a human graded is its consolidated grade"
            if assisted else f"Every figure rests on the consolidated grade of each of the {counted(n['runs'], 'run')}")
    return (f"{lead}, from "
            f"{counted(n['grades'], 'grade')} by {counted(n['raters'], 'rater')}: the grades of "
            f"{counted(n['runs_combined'], 'run')} are combined by policy {name} ({policy.text}; grader "
            f"{policy.reviewer}), an adjudicator's grade decides {counted(n['runs_adjudicated'], 'run')}, and a run "
            "graded once keeps its grade.")
