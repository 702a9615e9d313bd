"""Eligibility for a rank: scored runs on at least ``min_case_coverage`` of the benchmark's cases.

A subject answering a few (easy) cases must not be ranked against subjects answering all of them: its
figures describe another, smaller benchmark. So a subject is Ranked only when the share of the
benchmark's cases (its golds) on which it has a scored run is at least ``min_case_coverage``
(config.yaml, default 0.9); otherwise its leaderboard_status is ``Incomplete``: figures shown, no rank,
its missing cases counted and listed. Disqualified wins over Incomplete (:mod:`rgbench.compute.ranking`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from fractions import Fraction


def missing_cases(scored_cases: Collection[str], benchmark_cases: Iterable[str]) -> tuple[str, ...]:
    """The benchmark's case ids without a scored run of the subject, sorted by code point."""
    return tuple(sorted(set(benchmark_cases) - set(scored_cases)))


def is_incomplete(n_cases: int, n_missing: int, min_case_coverage: Fraction) -> bool:
    """True when n_cases / (n_cases + n_missing) < min_case_coverage (exact); a subject with no case
    (N = 0) is Unscored, not Incomplete, and gives False."""
    total = n_cases + n_missing
    return n_cases > 0 and total > 0 and Fraction(n_cases, total) < min_case_coverage
