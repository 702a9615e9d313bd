"""Murphy's decomposition of the (soft) Brier score over the ECE confidence bins, exact."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Sequence

import numpy as np

from ..derive import RunRow
from ..metrics import confidence_bin
from .calibration import bin_cells
from .exact_products import exact_bincount
from .run_columns import RunColumns


@dataclass(frozen=True)
class BrierDecomposition:
    """BS = reliability - resolution + uncertainty + within_bin, exactly."""

    reliability: Fraction
    resolution: Fraction
    uncertainty: Fraction
    within_bin: Fraction


def brier_decomposition(rows: Sequence[RunRow], bins: int) -> BrierDecomposition | None:
    """Reliability, resolution, uncertainty and within-bin terms of BS; None when N = 0.

    With the runs grouped in the ECE bins B_k (n_k runs, mean confidence f_k,
    mean correctness o_k) and o the mean correctness of all N runs:

    - reliability = (1/N) Σ_k n_k (f_k − o_k)², in [0, 1], lower is better
      (0 when every bin's mean confidence equals its mean correctness);
    - resolution  = (1/N) Σ_k n_k (o_k − o)², in [0, 1/4], higher is better
      (0 when every bin has the same accuracy: confidence does not sort right
      from wrong);
    - uncertainty = (1/N) Σ_i (o_i − o)², the variance of correctness, in
      [0, 1/4], a property of the answers, not of the confidence; with 0/1
      correctness it is o(1 − o); 0 when all correctness values are equal;
    - within_bin  = (1/N) Σ_k Σ_{i in B_k} [(f_i − f_k)² − 2 (f_i − f_k)(o_i − o_k)],
      the part of BS due to confidences differing inside a bin; 0 when every
      run of a bin states the same confidence (Murphy's setting), and small
      next to the others with 10 bins.

    The identity BS = reliability − resolution + uncertainty + within_bin holds
    exactly for any data (tests check it), with the soft correctness of BS.
    """
    if not rows:
        return None
    scale = math.lcm(1, *(row.correctness.denominator for row in rows))
    sums: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])  # n, Σc, Σk, Σc², Σk², Σck
    for row in rows:
        c = row.reported_confidence
        k = row.correctness.numerator * (scale // row.correctness.denominator)
        acc = sums[confidence_bin(c, bins)]
        acc[0] += 1
        acc[1] += c
        acc[2] += k
        acc[3] += c * c
        acc[4] += k * k
        acc[5] += c * k
    return decompose(sums.values(), scale)


def decompose(bin_sums: Iterable[Sequence[int]], scale: int) -> BrierDecomposition | None:
    """The decomposition from integer sums per non-empty bin: (n, Σc, Σk, Σc², Σk², Σck) with c the
    confidence in percent and k = correctness · ``scale``; None when there is no run. Any order of bins."""
    L = scale
    sums = [acc for acc in bin_sums if acc[0]]
    if not sums:
        return None
    n = sum(acc[0] for acc in sums)
    o_total = Fraction(sum(acc[2] for acc in sums), L)
    o_squares = Fraction(sum(acc[4] for acc in sums), L * L)
    reliability = resolution = within = Fraction(0)
    for count, sc, sk, scc, _, sck in sums:
        f_sum, o_sum = Fraction(sc, 100), Fraction(sk, L)
        reliability += (f_sum - o_sum) ** 2 / count                      # n_k (f_k − o_k)²
        resolution += o_sum ** 2 / count                                 # n_k o_k², minus N o² below
        # Σ (f − f_k)² − 2 Σ (f − f_k)(o − o_k) = (Σf² − F²/n) − 2 (Σfo − F·O/n)
        within += (Fraction(scc, 10000) - f_sum ** 2 / count) - 2 * (Fraction(sck, 100 * L) - f_sum * o_sum / count)
    resolution -= o_total ** 2 / n
    uncertainty = o_squares - o_total ** 2 / n                          # Σ (o − o_mean)²
    return BrierDecomposition(reliability / n, resolution / n, uncertainty / n, within / n)


def brier_decompositions(columns: RunColumns, bins: int) -> dict[str, BrierDecomposition | None]:
    """``brier_decomposition`` of every subject of ``columns`` at once: the per-bin sums as exact bincounts."""
    c, k = columns.confidence, columns.correctness
    cell, size = bin_cells(columns, bins)
    table = np.stack([exact_bincount(cell, w, size) for w in (np.ones_like(c), c, k, c * c, k * k, c * k)], axis=1)
    per_subject = table.reshape(len(columns.subjects), bins, 6).tolist()
    return {sid: decompose(per_subject[i], columns.scale) for i, sid in enumerate(columns.subjects)}
