"""The scored runs of one computation as integer columns: read once, then every statistic is array arithmetic.

One pass over the RunRow objects gives, per run: its subject, case and
(case_id, run_id) item as indices, and Pass, clipped_score, confidence and
correctness as integers. Per-subject or per-case sums are then exact
``bincount``s (:func:`rgbench.compute.exact_sums.exact_bincount`) instead of Python loops over 90,000 rows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..compute.derive import PASS, RunRow
from ..compute.exact_sums import exact_bincount
from ..compute.metrics import bin_sums
from ..load.scale import in_units, score_unit


@dataclass(frozen=True)
class RunColumns:
    """Runs grouped by subject (``subjects`` sorted, including subjects without runs), one array entry per run.

    ``case`` indexes ``cases`` (the sorted distinct case ids); ``item`` indexes
    ``items`` (the sorted distinct (case_id, run_id)); ``correctness`` is the
    integer k with correctness = k / ``scale`` (``scale`` the common denominator
    of every correctness value); ``clipped`` the integer clipped_score times ``score_unit`` (the common
    denominator of every clipped score: 1 on an integer scale, 10 for scores in tenths, ...). A value the benchmark does not
    record (no pass rule: Pass; no confidence; no correctness) is 0 in its column: the statistics made of it are left
    out by the caller (:mod:`.outputs`, from the spec), never read from these zeros.
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
    score_unit: int = 1

    @staticmethod
    def of(runs_by_subject: Mapping[str, Sequence[RunRow]]) -> RunColumns:
        """The columns of ``runs_by_subject`` (subjects sorted; each subject's runs in the order given)."""
        subjects = tuple(sorted(runs_by_subject))
        rows = [row for sid in subjects for row in runs_by_subject[sid]]
        subject = np.repeat(np.arange(len(subjects), dtype=np.int64),
                            [len(runs_by_subject[sid]) for sid in subjects])
        items = tuple(sorted({(row.case_id, row.run_id) for row in rows}))
        cases = tuple(dict.fromkeys(case_id for case_id, _ in items))
        item_position = {pair: index for index, pair in enumerate(items)}
        case_position = {case_id: index for index, case_id in enumerate(cases)}
        scale = score_unit(row.correctness for row in rows if row.correctness is not None)
        unit = score_unit(row.clipped_score for row in rows)

        def column(values: Iterable[int]) -> np.ndarray:
            return np.array(list(values), dtype=np.int64)

        return RunColumns(
            subjects=subjects,
            cases=cases,
            items=items,
            subject=subject,
            case=column(case_position[row.case_id] for row in rows),
            item=column(item_position[(row.case_id, row.run_id)] for row in rows),
            passed=column(row.classification == PASS for row in rows),
            clipped=column(in_units(row.clipped_score, unit) for row in rows),
            confidence=column(row.reported_confidence or 0 for row in rows),
            correctness=column(0 if row.correctness is None else in_units(row.correctness, scale) for row in rows),
            scale=scale,
            score_unit=unit,
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

    def bin_sums(self, bins: int) -> np.ndarray:
        """int64 (subjects x cases x bins x 6): :func:`rgbench.compute.metrics.bin_sums` per subject, case and
        ECE bin, the sums (n, Σc, Σk, Σc², Σk², Σck) of its runs, with c the confidence in percent and k =
        correctness · ``scale``. Summed over cases they are the Brier decomposition's
        (:func:`rgbench.stats.brier_decomposition.decompose`); scale · Σc − 100 · Σk is a case's calibration gap per
        bin (:class:`rgbench.stats.case_summary.CaseSummary`)."""
        shape = (len(self.subjects), len(self.cases))
        sums = bin_sums(self.subject * shape[1] + self.case, self.confidence, self.correctness, math.prod(shape), bins)
        return sums.reshape(*shape, bins, 6)
