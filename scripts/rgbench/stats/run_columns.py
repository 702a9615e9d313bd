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
        return RunColumns.from_parts({sid: SubjectColumns.of(rows) for sid, rows in runs_by_subject.items()})

    @staticmethod
    def from_parts(parts: Mapping[str, "SubjectColumns"]) -> "RunColumns":
        """The columns of every subject's :class:`SubjectColumns` (subjects sorted; runs in each part's order).

        Equal to :meth:`of` on the same runs: items and cases are the sorted union
        of the parts', and correctness is rescaled to the least common denominator.
        """
        subjects = tuple(sorted(parts))
        ordered = [parts[sid] for sid in subjects]
        counts = [len(part.item) for part in ordered]
        subject = np.repeat(np.arange(len(subjects), dtype=np.int64), counts)
        if not sum(counts):
            empty = np.zeros(0, dtype=np.int64)
            return RunColumns(subjects, (), (), subject, empty, empty, empty, empty, empty, empty, 1)
        # Subjects usually answer the same (case, run) items: map each distinct item list once.
        first: dict[tuple, int] = {}
        which = [first.setdefault(part.items, len(first)) for part in ordered]
        distinct = list(first)
        items = distinct[0] if len(distinct) == 1 else tuple(sorted(set().union(*distinct)))
        position = {pair: index for index, pair in enumerate(items)}
        maps = [np.array([position[pair] for pair in seen], dtype=np.int64) for seen in distinct]
        cases = tuple(dict.fromkeys(case_id for case_id, _ in items))
        case_position = {case_id: index for index, case_id in enumerate(cases)}
        item_case = np.array([case_position[case_id] for case_id, _ in items], dtype=np.int64)
        item = np.concatenate([maps[w][part.item] for w, part in zip(which, ordered) if part.items])
        denominators = set()
        for part in ordered:
            denominators.update(np.unique(part.correctness_den).tolist())
        scale = math.lcm(1, *denominators)
        return RunColumns(
            subjects=subjects,
            cases=cases,
            items=items,
            subject=subject,
            case=item_case[item],
            item=item,
            passed=np.concatenate([part.passed for part in ordered]),
            clipped=np.concatenate([part.clipped for part in ordered]),
            confidence=np.concatenate([part.confidence for part in ordered]),
            correctness=np.concatenate([part.correctness_num * (scale // part.correctness_den) for part in ordered]),
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


_INT64 = np.dtype(np.int64)


@dataclass(frozen=True)
class SubjectColumns:
    """One subject's scored runs as integer columns, in the order given: the part of :class:`RunColumns`
    that depends on this subject alone (so it can be kept between runs and merged).

    ``items`` are the sorted distinct (case_id, run_id) of these runs and
    ``item`` indexes them; correctness is ``correctness_num / correctness_den``.
    """

    items: tuple[tuple[str, str], ...]
    item: np.ndarray
    passed: np.ndarray
    clipped: np.ndarray
    confidence: np.ndarray
    correctness_num: np.ndarray
    correctness_den: np.ndarray

    @staticmethod
    def of(rows: Sequence[RunRow]) -> "SubjectColumns":
        items = tuple(sorted({(row.case_id, row.run_id) for row in rows}))
        position = {pair: index for index, pair in enumerate(items)}
        correctness = [row.correctness for row in rows]
        return SubjectColumns(
            items=items,
            item=np.array([position[(row.case_id, row.run_id)] for row in rows], dtype=np.int64),
            passed=np.array([row.classification == PASS for row in rows], dtype=np.int64),
            clipped=np.array([row.clipped_score for row in rows], dtype=np.int64),
            confidence=np.array([row.reported_confidence for row in rows], dtype=np.int64),
            correctness_num=np.array([value.numerator for value in correctness], dtype=np.int64),
            correctness_den=np.array([value.denominator for value in correctness], dtype=np.int64),
        )

    def to_plain(self) -> tuple:
        """Builtin values only (for marshal): items, then each column's int64 bytes."""
        return (self.items, *(column.astype(_INT64, copy=False).tobytes() for column in self._columns()))

    @staticmethod
    def from_plain(plain: tuple) -> "SubjectColumns":
        """Inverse of :meth:`to_plain`; ValueError when it does not hold seven fields of equal length."""
        if not isinstance(plain, tuple) or len(plain) != 7:
            raise ValueError("subject columns: expected 7 fields")
        items = tuple(tuple(pair) for pair in plain[0])
        columns = [np.frombuffer(data, dtype=_INT64) for data in plain[1:]]
        if len({len(column) for column in columns}) != 1:
            raise ValueError("subject columns: columns of different lengths")
        if len(columns[0]) and (columns[0].min() < 0 or columns[0].max() >= len(items)):
            raise ValueError("subject columns: item index out of range")
        return SubjectColumns(items, *columns)

    def _columns(self) -> tuple[np.ndarray, ...]:
        return (self.item, self.passed, self.clipped, self.confidence, self.correctness_num, self.correctness_den)
