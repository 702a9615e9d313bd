"""Repeated runs: the unbiased pass@k estimator and pass^k (all k runs pass), exact."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from .run_columns import RunColumns


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Chance that at least one of k runs drawn without replacement from n (c of them Pass) passes.

    pass@k = 1 − C(n − c, k) / C(n, k), in [0, 1], higher is better; the
    unbiased estimator of Chen et al. (2021). pass@1 = c/n; it is 1 when
    n − c < k (every draw of k holds a Pass) and 0 when c = 0. Needs 1 <= k <= n.
    """
    _check(n, c, k)
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """Chance that all k runs drawn without replacement from n (c of them Pass) pass.

    pass^k = C(c, k) / C(n, k), in [0, 1], higher is better: the reliability an
    operator needs (the same answer quality every time). pass^1 = c/n; it is 0
    when c < k and 1 when c = n. pass^k <= pass@1 <= pass@k. Needs 1 <= k <= n.
    """
    _check(n, c, k)
    return Fraction(comb(c, k), comb(n, k))


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


@dataclass(frozen=True)
class PassAtK:
    """One row of pass_at_k.csv: means over the n_cases cases with at least k scored runs (None if none)."""

    subject_id: str
    k: int
    pass_at_k: Fraction | None
    pass_hat_k: Fraction | None
    n_cases: int


def pass_at_k_from_columns(columns: RunColumns) -> list[PassAtK]:
    """The pass_at_k.csv rows: every subject of ``columns`` and every k from 1 to the largest run count of any case
    of any subject, from exact per-(subject, case) counts of runs and passes.

    pass@k and pass^k of a subject at k are the means of :func:`pass_at_k` and :func:`pass_hat_k` over its
    n_cases cases with at least k scored runs. The table is rectangular: a subject with no case of k runs gets
    n_cases 0 and empty values for that k (and so does a subject with no scored run). pass@1 over all cases
    equals the mean per-case pass rate, which differs from P when cases have different run counts (P weights
    runs, this weights cases).
    """
    runs = columns.per_subject_case(np.ones_like(columns.subject))
    passes = columns.per_subject_case(columns.passed)
    width = int(runs.max(initial=0)) + 1
    code = (np.arange(len(columns.subjects))[:, None] * width + runs) * width + passes   # (subject, n, c)
    times = np.bincount(code[runs > 0], minlength=len(columns.subjects) * width * width)
    per_subject: dict[str, Counter[tuple[int, int]]] = {sid: Counter() for sid in columns.subjects}
    for cell, count in zip(np.flatnonzero(times).tolist(), times[times > 0].tolist()):
        s, rest = divmod(cell, width * width)
        per_subject[columns.subjects[s]][divmod(rest, width)] = count
    return _table(per_subject)


def _table(per_subject: dict[str, Counter[tuple[int, int]]]) -> list[PassAtK]:
    """The rows from each subject's count of cases per (n runs, c passes): cases with the same (n, c) have the
    same pass@k, so each distinct pair is evaluated once (:func:`pass_at_k`, :func:`pass_hat_k`) and weighted
    by its count."""
    k_max = max((n for counts in per_subject.values() for n, _ in counts), default=0)
    out = []
    for sid in sorted(per_subject):
        counts = sorted(per_subject[sid].items())
        for k in range(1, k_max + 1):
            eligible = [(n, c, times) for (n, c), times in counts if n >= k]
            n_cases = sum(times for _, _, times in eligible)
            if eligible:
                at = sum((times * pass_at_k(n, c, k) for n, c, times in eligible), Fraction(0))
                hat = sum((times * pass_hat_k(n, c, k) for n, c, times in eligible), Fraction(0))
                out.append(PassAtK(sid, k, at / n_cases, hat / n_cases, n_cases))
            else:
                out.append(PassAtK(sid, k, None, None, 0))
    return out
