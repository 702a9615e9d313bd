"""The one case bootstrap of the secondary tables: a seeded case draw and the BCa interval over it.

The lab's breakdowns (per criterion, tag, case type, Advanced+), the reviewers' leniency and the
judge's agreement all take their intervals here, through the same code as the headline statistics:
a replicate draws the cases with replacement (:func:`case_weights`: how often each case is drawn,
:func:`rgbench.stats.bootstrap.case_counts`, on the stream :func:`rgbench.stats.seeds.generator` of a
label over a digest of the inputs resampled), a case brings all its runs, and the bounds are
:func:`rgbench.stats.bootstrap.bca_interval` of a statistic of case weights. :func:`ratio_interval` is
that interval for a ratio of per-case sums (a mean over runs: a pass rate, a mean score, a mean
deviation). Bounds are floats, formatted once at output (:func:`rgbench.stats.outputs.fmt_float`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from .bootstrap import Interval, Statistic, bca_interval, case_counts, ratio_statistic
from .seeds import generator


def case_weights(k: int, *, digest: str, label: str, resamples: int) -> np.ndarray:
    """(resamples x k): how often each of the k cases is drawn in each replicate (:func:`.bootstrap.case_counts`),
    from the stream of ``label`` over ``digest``; shared by every statistic of one (digest, label)."""
    return case_counts(generator(label, [digest]), k, resamples)


def ratio_interval(sums: Sequence[Fraction | int] | np.ndarray, runs: Sequence[int] | np.ndarray,
                   weights: np.ndarray, confidence: Fraction) -> Interval | None:
    """The BCa interval of Σ_c sum_c / Σ_c n_c over the case draw ``weights`` (``sums[c]``: case c's total of
    the value, ``runs[c]`` ≥ 1 its runs): a replicate is Σ w_c·sum_c / Σ w_c·n_c. None without cases; one
    case, or every case at the same mean, gives the point."""
    if not len(runs):
        return None
    numerator = np.array([float(s) for s in sums], dtype=np.float64)
    return bca_interval(ratio_statistic(numerator, np.asarray(runs, dtype=np.float64)), len(runs), weights,
                        confidence)


def undefined_replicates(statistic: Statistic, weights: np.ndarray) -> int:
    """How many replicates of the draw ``weights`` leave ``statistic`` undefined (NaN: no variation in them);
    :func:`rgbench.stats.bootstrap.bca_interval` leaves those out."""
    return int(np.count_nonzero(~np.isfinite(statistic(weights))))
