"""Pass rate per gold difficulty, the difficulty-weighted pass rate, and a check of the benchmark's own labels."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..compute.exact_sums import exact_bincount
from .run_columns import RunColumns

ALL_SUBJECTS = "ALL"  # the pooled row; cannot clash with a subject id (those are lowercase)


@dataclass(frozen=True)
class DifficultyRow:
    """One row of metrics_per_difficulty.csv."""

    subject_id: str
    difficulty: int
    weight: Fraction | None
    n_cases: int
    n_runs: int
    n_pass: int
    p: Fraction
    p_low: float
    p_high: float


# (scope, difficulty) -> the interval of that pass rate (:func:`rgbench.stats.outputs` gives the case-bootstrap one)
LevelInterval = Callable[[str, int], "tuple[float, float] | None"]


def _rows_from_counts(scope: str, counts: Mapping[int, tuple[int, int, int]], weights: Mapping[int, Fraction],
                      interval_of: LevelInterval) -> list[DifficultyRow]:
    """The rows of one scope from (distinct cases, runs, passes) per difficulty level present (runs > 0)."""
    out: list[DifficultyRow] = []
    for difficulty, (n_cases, n_runs, passes) in sorted(counts.items()):
        p = Fraction(passes, n_runs)
        interval = interval_of(scope, difficulty)
        assert interval is not None  # None only for no case, and every level here has runs
        low, high = interval
        out.append(DifficultyRow(scope, difficulty, weights.get(difficulty), n_cases, n_runs, passes, p, low, high))
    return out


def difficulty_from_columns(columns: RunColumns, difficulty_of: Mapping[str, int], weights: Mapping[int, Fraction],
                            interval_of: LevelInterval) -> tuple[list[DifficultyRow], dict[str, Fraction | None]]:
    """(metrics_per_difficulty.csv rows, subject id -> :func:`weighted_pass_rate`) for every subject of ``columns``.

    Rows: the pass rate (with the interval ``interval_of(scope, difficulty)``) per difficulty level
    present, pooled over all subjects (``ALL``) first, then per subject, sorted by (subject_id, difficulty).
    Whether the labels mean something is one case-level test (:mod:`.difficulty_trend`), not a flag per level.
    Subjects with no scored run have no rows. From exact counts per (subject, difficulty); equal to the
    straightforward per-row path of ``tests/reference_stats.py`` (tests prove it).
    """
    levels = sorted({difficulty_of[c] for c in columns.cases})
    level_of_case = np.array([levels.index(difficulty_of[c]) for c in columns.cases], dtype=np.int64)
    n_levels, n_subjects = len(levels), len(columns.subjects)
    level = level_of_case[columns.case] if columns.case.size else columns.case
    cell = columns.subject * n_levels + level
    runs = exact_bincount(cell, np.ones_like(cell), n_subjects * n_levels).reshape(n_subjects, n_levels)
    passes = exact_bincount(cell, columns.passed, n_subjects * n_levels).reshape(n_subjects, n_levels)
    seen = np.zeros((n_subjects, len(columns.cases)), dtype=bool)
    seen[columns.subject, columns.case] = True                                 # subject x case has a run
    cases = np.stack([seen[:, level_of_case == i].sum(axis=1) for i in range(n_levels)], axis=1) if n_levels \
        else np.zeros((n_subjects, 0), dtype=np.int64)
    any_seen: np.ndarray = np.any(seen, axis=0)   # (ndarray.any's stub also allows a scalar; with an axis it is an array)
    pooled_cases = [int(any_seen[level_of_case == i].sum()) for i in range(n_levels)]
    runs_l, passes_l, cases_l = runs.tolist(), passes.tolist(), cases.tolist()
    pooled = {levels[i]: (pooled_cases[i], int(runs[:, i].sum()), int(passes[:, i].sum()))
              for i in range(n_levels) if runs[:, i].sum()}
    table = _rows_from_counts(ALL_SUBJECTS, pooled, weights, interval_of)
    weighted: dict[str, Fraction | None] = {}
    for s, sid in enumerate(columns.subjects):
        counts = {levels[i]: (cases_l[s][i], runs_l[s][i], passes_l[s][i]) for i in range(n_levels) if runs_l[s][i]}
        table += _rows_from_counts(sid, counts, weights, interval_of)
        weighted[sid] = weighted_pass_rate({d: n for d, (_, n, _) in counts.items()},
                                           {d: p for d, (_, _, p) in counts.items()}, weights)
    return table, weighted


def weighted_pass_rate(runs: Mapping[int, int], passes: Mapping[int, int],
                       weights: Mapping[int, Fraction]) -> Fraction | None:
    """P_weighted = Σ_r w(d_r) · [r is Pass] / Σ_r w(d_r), in [0, 1], higher is better.

    From the runs and passes per gold difficulty d (``runs[d]``, ``passes[d]``) of one subject's scored runs:
    Σ_d w(d) · passes[d] / Σ_d w(d) · runs[d], so a Pass on a hard case counts more (as needle-bench weights
    its tiers). Equals P when every weight is equal. None when N = 0; a difficulty with runs and no
    configured weight is a ValueError (the config check prevents it).
    """
    present = {d for d, n in runs.items() if n}
    if not present:
        return None
    missing = sorted(present - set(weights))
    if missing:
        raise ValueError(f"no weight for difficulty {missing[0]} (difficulty_weights in config.yaml)")
    total = sum((weights[d] * runs[d] for d in present), Fraction(0))
    return sum((weights[d] * passes.get(d, 0) for d in present), Fraction(0)) / total
