"""Per-case summaries: the one input of every interval, test and rank set (the case is the unit of inference).

For one subject, each case it has scored runs on becomes one cluster with integer sums over its runs:
the number of runs n_c, passes, clipped scores, the Q_final numerator (:func:`rgbench.compute.metrics.q_numerator`),
the squared Brier gaps and the calibration gaps per ECE bin. Every subject-level metric is a ratio of
sums of these over cases, and the per-case means (Q_final contribution, Pass) are ratios within a case,
so what the statistics see does not depend on run labels, on the order of files or cases, or on how
often a case's runs are repeated identically (r1..r3 copied as r4..r6 doubles every sum of the case and
changes no ratio).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..compute.exact_sums import exact_bincount
from ..compute.metrics import q_numerator
from ..load.scale import ScoreScale, in_units, score_unit
from .run_columns import RunColumns


@dataclass(frozen=True)
class CaseSummary:
    """One subject's scored runs summed per case; every array has one entry (row) per case of ``case_ids``.

    ``clipped`` is clipped_score · ``score_unit`` summed over the case's runs (an integer: s_bar = Σ clipped /
    (score_unit · Σ runs)); ``q`` is Q_final · ``q_scale`` summed over the case's runs (q_scale = d · span · score_unit,
    alpha = a/d, span = score_max − score_min; :func:`rgbench.compute.metrics.q_numerator`);
    ``brier`` Σ (c·scale − 100·k)² and ``gaps[:, b]`` Σ (c·scale − 100·k) over the runs in ECE bin b, with
    c the integer confidence and k/scale the correctness (so BS = Σ brier / ((100·scale)² · N) and ECE =
    Σ_b |Σ_c gaps[c, b]| / (100·scale · N)).
    """

    case_ids: tuple[str, ...]
    runs: np.ndarray
    passes: np.ndarray
    clipped: np.ndarray
    q: np.ndarray
    brier: np.ndarray
    gaps: np.ndarray
    q_scale: int
    scale: int
    score_unit: int = 1

    @property
    def k(self) -> int:
        """The number of cases."""
        return len(self.case_ids)

    def subset(self, keep: Sequence[str]) -> CaseSummary:
        """The summary restricted to the cases ``keep`` (in this summary's order; unknown ids are ignored)."""
        wanted = set(keep)
        rows = np.array([i for i, c in enumerate(self.case_ids) if c in wanted], dtype=np.int64)
        return CaseSummary(tuple(self.case_ids[i] for i in rows), self.runs[rows], self.passes[rows],
                           self.clipped[rows], self.q[rows], self.brier[rows], self.gaps[rows], self.q_scale,
                           self.scale, self.score_unit)

    def case_means(self, runs_multiple: int) -> tuple[np.ndarray, np.ndarray]:
        """(Q numerators, Pass numerators), int64, one entry per case, exact: the case's mean Q_final
        contribution is ``q_num / (runs_multiple · q_scale)`` and its pass rate ``p_num / runs_multiple``.

        The Q_final contribution of a run is alpha · [Pass] + (1 − alpha) · norm(clipped) (norm: the score on
        [0, 1], rgbench.load.scale).
        ``runs_multiple`` puts every case (of every subject) on one denominator: it must be a positive
        multiple of every case's run count (ValueError otherwise), e.g. their lcm.
        """
        if runs_multiple < 1 or (runs_multiple % self.runs).any():
            raise ValueError(f"{runs_multiple} is not a multiple of every case's run count")
        factor = runs_multiple // self.runs
        return self.q * factor, self.passes * factor


def case_summaries(columns: RunColumns, *, alpha: Fraction, scale: ScoreScale, bins: int) -> dict[str, CaseSummary]:
    """Subject id -> its :class:`CaseSummary` (cases sorted by code point), for every subject with a scored run.

    Scores are integers in units of 1/U, U the lcm of the columns' score_unit and the denominators of the
    scale's bounds; a case's credit (norm times span, in those units) is Σ clipped − n_c · score_min, or
    n_c · score_max − Σ clipped when lower is better.
    """
    n_cases = len(columns.cases)
    cell = columns.subject * n_cases + columns.case
    size = len(columns.subjects) * n_cases
    gap = columns.confidence * columns.scale - 100 * columns.correctness

    def per_cell(weights: np.ndarray) -> np.ndarray:
        return exact_bincount(cell, weights, size).reshape(len(columns.subjects), n_cases)

    runs = per_cell(np.ones_like(cell))
    unit = score_unit((scale.low, scale.high), columns.score_unit)
    passes, clipped = per_cell(columns.passed), per_cell(columns.clipped) * (unit // columns.score_unit)
    low, high = in_units(scale.low, unit), in_units(scale.high, unit)
    credit = clipped - runs * low if scale.higher_is_better else runs * high - clipped
    brier = per_cell(gap * gap)
    per_bin = columns.bin_sums(bins)
    gaps = columns.scale * per_bin[..., 1] - 100 * per_bin[..., 2]      # Σ (c·scale − 100·k) per ECE bin
    q_all = q_numerator(passes, credit, Fraction(alpha), high - low)
    out = {}
    for s, sid in enumerate(columns.subjects):
        rows = np.flatnonzero(runs[s])
        if not rows.size:
            continue
        out[sid] = CaseSummary(tuple(columns.cases[i] for i in rows), runs[s, rows], passes[s, rows],
                               clipped[s, rows], q_all[s, rows], brier[s, rows], gaps[s, rows],
                               Fraction(alpha).denominator * (high - low), columns.scale, unit)
    return out


def pooled_summary(summaries: Sequence[CaseSummary]) -> CaseSummary:
    """Every subject's runs of a case in one cluster (the ``ALL`` rows): sums per case id over the summaries."""
    ids = tuple(sorted({c for s in summaries for c in s.case_ids}))
    index = {c: i for i, c in enumerate(ids)}
    first = summaries[0]
    fields = {name: np.zeros((len(ids),) + getattr(first, name).shape[1:], dtype=np.int64)
              for name in ("runs", "passes", "clipped", "q", "brier", "gaps")}
    for s in summaries:
        rows = np.array([index[c] for c in s.case_ids], dtype=np.int64)
        for name, total in fields.items():
            total[rows] += getattr(s, name)
    return CaseSummary(ids, q_scale=first.q_scale, scale=first.scale, score_unit=first.score_unit, **fields)
