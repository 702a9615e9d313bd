"""The consolidated grade of every run, and the board that rests on them (config.yaml ``board_grades``).

:func:`consolidated_grades` is the one consolidation every command shares: the grades of scoring/ and
scoring_multi/ that count (an ``llm-judge`` reviewer's only when config.yaml's ``llm_judge_in_metrics`` is
true, adjudications included), one per run by config.yaml's ``consolidation_policy``
(:mod:`rgbench.load.consolidate`: adjudication first, a run graded once carried over). scripts/aggregate_scoring.py
writes them to scoring_consolidated/; with ``board_grades: consolidated``, `make metrics` computes every figure of
the board from them, in memory and exact (a mean of 4/3 stays 4/3), through the same computation as one grade
per run (:func:`consolidated_tree`), and records how in manifest.json (:func:`grades_record`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..load.consolidate import ADJUDICATED, BY_POLICY, Consolidated, consolidate_all, policy_of
from ..load.loader import counted_scorings, counts
from ..load.multi_scoring import MultiScorings
from ..load.records import Scoring, Tree
from ..load.spec import Spec

CONSOLIDATED_BOARD = "consolidated"   # config.yaml's board_grades values


def counted_grades(spec: Spec, tree: Tree,
                   multi: MultiScorings) -> tuple[list[Scoring], dict[tuple[str, str, str], Scoring]]:
    """(the grades of ``tree`` (every scoring, as :func:`rgbench.cli.load_valid_grades` loads it) and of
    ``multi`` that count, the adjudications that count by run key): an llm-judge's only when config.yaml
    says so (:func:`rgbench.load.loader.counted_scorings`)."""
    grades = counted_scorings(tuple(tree.scorings) + multi.extra, spec, tree.reviewers)
    adjudications = {key: s for key, s in multi.adjudications.items() if counts(s.reviewer_id, spec, tree.reviewers)}
    return grades, adjudications


def consolidated_grades(spec: Spec, tree: Tree, multi: MultiScorings) -> list[Consolidated]:
    """One Consolidated per run with a counted grade or adjudication, by config.yaml's policy, sorted by run key."""
    grades, adjudications = counted_grades(spec, tree, multi)
    return consolidate_all(grades, adjudications, policy_of(spec))


def grades_record(spec: Spec, items: Sequence[Consolidated], grades: Sequence[Scoring],
                  adjudications: Mapping[tuple[str, str, str], Scoring]) -> dict[str, object]:
    """manifest.json's ``grades``: what a consolidated board rests on (``items``, from the counted ``grades`` and
    ``adjudications``). ``grades`` counts the grades (adjudications aside), ``raters`` the distinct reviewers
    whose grades or adjudications entered, ``runs`` the runs, ``runs_combined`` those the policy combined,
    ``runs_adjudicated`` those an adjudicator decided."""
    policy = policy_of(spec)
    raters = {s.reviewer_id for s in grades} | {s.reviewer_id for s in adjudications.values()}
    return {
        "board_grades": CONSOLIDATED_BOARD,
        "consolidation_policy": policy.name,
        "consolidated_reviewer": policy.reviewer,
        "grades": len(grades),
        "raters": len(raters),
        "runs": len(items),
        "runs_adjudicated": sum(1 for item in items if item.method == ADJUDICATED),
        "runs_combined": sum(1 for item in items if item.method == BY_POLICY),
    }


def consolidated_tree(spec: Spec, tree: Tree, multi: MultiScorings) -> tuple[Tree, dict[str, object]]:
    """(``tree`` with one scoring per run, its consolidated grade, and the inputs of scoring_multi/ too;
    :func:`grades_record` of it): what `make metrics` computes the board from with ``board_grades:
    consolidated``."""
    grades, adjudications = counted_grades(spec, tree, multi)
    items = consolidate_all(grades, adjudications, policy_of(spec))
    scorings = sorted((item.scoring for item in items), key=lambda s: (s.subject_id, s.case_id, s.run_id, s.reviewer_id))
    board = replace(tree, scorings=tuple(scorings), inputs=dict(sorted({**tree.inputs, **multi.inputs}.items())))
    return board, grades_record(spec, items, grades, adjudications)


def board_tree(spec: Spec, tree: Tree, multi: MultiScorings) -> tuple[Tree, dict[str, object] | None]:
    """(the tree the metric tables are computed from, manifest.json's ``grades`` record or None): with
    ``board_grades: consolidated`` :func:`consolidated_tree`, else ``tree`` with its counted scorings only
    (:func:`rgbench.load.loader.counted_scorings`; ``tree`` holds every scoring, as load_valid_grades loads it)."""
    if spec.stats.board_grades == CONSOLIDATED_BOARD:
        return consolidated_tree(spec, tree, multi)
    return replace(tree, scorings=tuple(counted_scorings(tree.scorings, spec, tree.reviewers))), None
