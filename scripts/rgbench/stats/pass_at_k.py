"""Repeated runs: the unbiased pass@k estimator and pass^k (all k runs pass), exact."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Sequence

from ..derive import PASS, RunRow


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


def pass_at_k_table(runs_by_subject: dict[str, Sequence[RunRow]]) -> list[PassAtK]:
    """Rows for every subject and every k from 1 to the largest run count of any case of any subject.

    The table is rectangular: a subject with no case of k runs gets n_cases 0
    and empty values for that k (and so does a subject with no scored run).
    pass@1 over all cases equals the mean per-case pass rate, which differs from
    P when cases have different run counts (P weights runs, this weights cases).
    """
    per_subject: dict[str, list[tuple[int, int]]] = {}
    k_max = 0
    for sid, rows in runs_by_subject.items():
        cases: dict[str, list[RunRow]] = defaultdict(list)
        for row in rows:
            cases[row.case_id].append(row)
        per_subject[sid] = [(len(g), sum(1 for r in g if r.classification == PASS)) for _, g in sorted(cases.items())]
        k_max = max([k_max] + [n for n, _ in per_subject[sid]])
    out = []
    for sid in sorted(per_subject):
        for k in range(1, k_max + 1):
            eligible = [(n, c) for n, c in per_subject[sid] if n >= k]
            if eligible:
                at = sum((pass_at_k(n, c, k) for n, c in eligible), Fraction(0)) / len(eligible)
                hat = sum((pass_hat_k(n, c, k) for n, c in eligible), Fraction(0)) / len(eligible)
                out.append(PassAtK(sid, k, at, hat, len(eligible)))
            else:
                out.append(PassAtK(sid, k, None, None, 0))
    return out
