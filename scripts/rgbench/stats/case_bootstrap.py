"""A percentile bootstrap of any statistic of rated units, resampling cases (a case's runs move together).

For the reviewer report and the judge's agreement, whose statistics (Krippendorff's alpha, macro-F1, a
mean deviation) are not ratios of per-case sums, so each replicate recomputes the statistic exactly on
the drawn units. Clusters are the cases: the units of one case are drawn together, as everywhere in
rgbench.stats (aggregate_metrics.md: the case is the unit). The stream is
:func:`rgbench.stats.seeds.generator` over the input digest and a label, so the same inputs give the same
bytes; the interval is :func:`rgbench.stats.exact_quantiles.percentile_interval` (Hyndman-Fan type 7,
exact) on the replicates where the statistic is defined. :func:`ratio_interval` is the exact,
vectorised form for a mean that is a ratio of per-case sums.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TypeVar

import numpy as np

from .exact_quantiles import percentile_interval
from .seeds import generator

U = TypeVar("U")


def case_interval(clusters: Sequence[Sequence[U]], statistic: Callable[[list[U]], Fraction | None], *,
                  digest: str, label: str, resamples: int,
                  confidence: Fraction) -> tuple[Fraction | None, Fraction | None, int]:
    """(low, high, undefined): the percentile interval of ``statistic`` over case-resampled units.

    ``clusters``: the units of each case (in a fixed order). Each of ``resamples`` replicates draws as
    many cases as there are, with replacement, and evaluates ``statistic`` on their units; replicates
    where it is None (e.g. no variation) are counted in ``undefined`` and left out. (None, None, B)
    when no replicate is defined or there is no cluster.
    """
    if not clusters:
        return None, None, resamples
    draws = generator(label, [digest]).integers(0, len(clusters), size=(resamples, len(clusters)))
    values: list[Fraction] = []
    for row in draws:
        value = statistic([unit for index in row for unit in clusters[int(index)]])
        if value is not None:
            values.append(value)
    if not values:
        return None, None, resamples
    low, high = percentile_interval(values, confidence)
    return low, high, resamples - len(values)



def ratio_interval(parts: Sequence[tuple[Fraction, int]], *, digest: str, label: str, resamples: int,
                   confidence: Fraction) -> tuple[Fraction | None, Fraction | None]:
    """(low, high) of Σ sum_c / Σ n_c over case-resampled cases, ``parts`` = (sum_c, n_c ≥ 1) per case, exactly.

    A mean over units that decomposes into per-case sums (a mean deviation) needs no per-replicate
    recomputation: replicate = Σ_c m_c·sum_c / Σ_c m_c·n_c, with m_c the times case c is drawn, as an
    exact ratio. The draws are those of :func:`case_interval` under the same digest and label. (None, None)
    when ``parts`` is empty.
    """
    if not parts:
        return None, None
    scale = math.lcm(*(total.denominator for total, _ in parts))
    sums = np.array([int(total * scale) for total, _ in parts], dtype=np.int64)
    counts = np.array([n for _, n in parts], dtype=np.int64)
    cases = len(parts)
    draws = generator(label, [digest]).integers(0, cases, size=(resamples, cases))
    multiplicity = np.zeros((resamples, cases), dtype=np.int64)
    np.add.at(multiplicity, (np.repeat(np.arange(resamples), cases), draws.ravel()), 1)
    replicates = (Fraction(int(n), int(d) * scale) for n, d in zip(multiplicity @ sums, multiplicity @ counts))
    return percentile_interval(replicates, confidence)
