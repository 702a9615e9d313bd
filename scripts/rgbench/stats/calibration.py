"""The calibration bins of every subject at once (calibration_bins.csv), from the integer run columns."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..compute.metrics import CalibrationBin, confidence_bin
from .exact_products import exact_bincount
from .run_columns import RunColumns


def bin_cells(columns: RunColumns, bins: int) -> tuple[np.ndarray, int]:
    """Each run's (subject, confidence bin) cell index, subject * bins + bin, and the number of cells.

    Bins are ``metrics.confidence_bin`` of the integer confidence; ValueError outside 0..100.
    """
    c = columns.confidence
    if c.size and not 0 <= int(c.min()) <= int(c.max()) <= 100:
        raise ValueError("confidence outside 0..100")
    bin_of = np.array([confidence_bin(value, bins) for value in range(101)], dtype=np.int64)
    return columns.subject * bins + bin_of[c], len(columns.subjects) * bins


def calibration_tables(columns: RunColumns, bins: int) -> dict[str, list[CalibrationBin]]:
    """Subject id -> ``metrics.calibration_bins`` of its runs: the non-empty bins by index, exact.

    Each bin's count, Σ confidence_unit (Σ c / 100) and Σ correctness (Σ k / L)
    are exact bincounts per (subject, bin); a subject without runs has no bin.
    """
    c, k = columns.confidence, columns.correctness
    cell, size = bin_cells(columns, bins)
    counts, confidence, correctness = (exact_bincount(cell, w, size).reshape(len(columns.subjects), bins).tolist()
                                       for w in (np.ones_like(c), c, k))
    scale = columns.scale
    return {sid: [CalibrationBin(i, counts[s][i], Fraction(confidence[s][i], 100), Fraction(correctness[s][i], scale))
                  for i in range(bins) if counts[s][i]]
            for s, sid in enumerate(columns.subjects)}
