"""Calibration bins: each subject's (calibration_bins.csv, the bins of its ECE), and the per-bin integer sums of every
subject and case (:func:`bin_sums`) that the Brier decomposition and the case summaries' calibration gaps are made of."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..compute.derive import RunRow
from ..compute.metrics import CalibrationBin, calibration_bins, confidence_bin
from .run_columns import RunColumns, exact_bincount


def confidence_bins(confidence: np.ndarray, bins: int) -> np.ndarray:
    """Each integer confidence's bin index, :func:`rgbench.compute.metrics.confidence_bin` looked up in a table
    of 0..100 (int64, the shape of ``confidence``); ValueError outside 0..100."""
    if confidence.size and not 0 <= int(confidence.min()) <= int(confidence.max()) <= 100:
        raise ValueError("confidence outside 0..100")
    return np.array([confidence_bin(value, bins) for value in range(101)], dtype=np.int64)[confidence]


def bin_sums(columns: RunColumns, bins: int) -> np.ndarray:
    """int64 (subjects x cases x bins x 6): per subject, case and confidence bin (:func:`confidence_bins`) the
    exact integer sums (n, Σc, Σk, Σc², Σk², Σck) of its runs, with c the confidence in percent and
    k = correctness · ``columns.scale``. The one source of per-bin sums: summed over cases they are the Brier
    decomposition's (:func:`rgbench.stats.brier_decomposition.decompose`), and scale · Σc − 100 · Σk is a case's
    calibration gap per bin (:class:`rgbench.stats.case_summary.CaseSummary`). OverflowError when a sum does
    not fit exactly (:func:`rgbench.stats.run_columns.exact_bincount`)."""
    c, k = columns.confidence, columns.correctness
    shape = (len(columns.subjects), len(columns.cases), bins)
    cell = (columns.subject * len(columns.cases) + columns.case) * bins + confidence_bins(c, bins)
    table = [exact_bincount(cell, w, math.prod(shape)) for w in (np.ones_like(c), c, k, c * c, k * k, c * k)]
    return np.stack(table, axis=1).reshape(*shape, 6)


def calibration_tables(runs_by_subject: Mapping[str, Sequence[RunRow]], bins: int) -> dict[str, list[CalibrationBin]]:
    """Subject id -> :func:`rgbench.compute.metrics.calibration_bins` of its runs (the bins its ECE is made
    of): the non-empty bins by index, exact; a subject without runs has no bin. calibration_bins.csv."""
    return {sid: calibration_bins(rows, bins) for sid, rows in runs_by_subject.items()}
