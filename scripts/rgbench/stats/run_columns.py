"""The scored runs of one computation as integer columns: read once, then every statistic is array arithmetic.

One pass over the RunRow objects gives, per run: its subject, case and
(case_id, run_id) item as indices, and Pass, clipped_score, confidence and
correctness as integers. Per-subject or per-case sums are then exact
``bincount``s (:mod:`.exact_products`) instead of Python loops over 90,000 rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..derive import PASS, RunRow
from .exact_products import exact_bincount


@dataclass(frozen=True)
class RunColumns:
    """Runs grouped by subject (``subjects`` sorted, including subjects without runs), one array entry per run.

    ``case`` indexes ``cases`` (the sorted distinct case ids); ``item`` indexes
    ``items`` (the sorted distinct (case_id, run_id)); ``correctness`` is the
    integer k with correctness = k / ``scale`` (``scale`` the common denominator
    of every correctness value).
    """

    subjects: tuple[str, ...]
    cases: tuple[str, ...]
    items: tuple[tuple[str, str], ...]
    subject: np.ndarray
    case: np.ndarray
    item: np.ndarray
    passed: np.ndarray
    clipped: np.ndarray
    confidence: np.ndarray
    correctness: np.ndarray
    scale: int

    @staticmethod
    def of(runs_by_subject: Mapping[str, Sequence[RunRow]]) -> "RunColumns":
        """The columns of ``runs_by_subject`` (runs in subject order, then in the order given)."""
        subjects = tuple(sorted(runs_by_subject))
        rows = [row for sid in subjects for row in runs_by_subject[sid]]
        n = len(rows)
        subject = np.repeat(np.arange(len(subjects), dtype=np.int64),
                            [len(runs_by_subject[sid]) for sid in subjects])
        if not n:
            empty = np.zeros(0, dtype=np.int64)
            return RunColumns(subjects, (), (), subject, empty, empty, empty, empty, empty, empty, 1)
        # one list per field and nested dicts for the items: no tuple per run, so no garbage-collector churn
        case_ids = [row.case_id for row in rows]
        run_ids = [row.run_id for row in rows]
        runs_of: dict[str, dict[str, int]] = {}
        for case_id, run_id in zip(case_ids, run_ids):
            runs_of.setdefault(case_id, {})[run_id] = 0
        cases = tuple(sorted(runs_of))
        items_list, item_case_list = [], []
        for c, case_id in enumerate(cases):
            per_case = runs_of[case_id]
            for run_id in sorted(per_case):
                per_case[run_id] = len(items_list)
                items_list.append((case_id, run_id))
                item_case_list.append(c)
        items = tuple(items_list)
        item = np.array([runs_of[case_id][run_id] for case_id, run_id in zip(case_ids, run_ids)], dtype=np.int64)
        item_case = np.array(item_case_list, dtype=np.int64)
        correctness = [row.correctness for row in rows]
        denominators = [value.denominator for value in correctness]   # (hashing Fractions is slow: ints only)
        scale = math.lcm(1, *set(denominators))
        return RunColumns(
            subjects=subjects,
            cases=cases,
            items=items,
            subject=subject,
            case=item_case[item],
            item=item,
            passed=np.array([row.classification == PASS for row in rows], dtype=np.int64),
            clipped=np.array([row.clipped_score for row in rows], dtype=np.int64),
            confidence=np.array([row.reported_confidence for row in rows], dtype=np.int64),
            correctness=np.array([value.numerator for value in correctness], dtype=np.int64)
            * (scale // np.array(denominators, dtype=np.int64)),
            scale=scale,
        )

    def per_subject_case(self, weights: np.ndarray, universe: Mapping[str, int] | None = None) -> np.ndarray:
        """(subjects x cases) int64 sums of the integer ``weights`` per run; columns are ``cases``, or the
        case ids of ``universe`` (case id -> column) when given."""
        case, width = self.case, len(self.cases)
        if universe is not None:
            case = np.array([universe[c] for c in self.cases], dtype=np.int64)[self.case] if self.case.size else case
            width = len(universe)
        return exact_bincount(self.subject * width + case, weights, len(self.subjects) * width).reshape(
            len(self.subjects), width)
