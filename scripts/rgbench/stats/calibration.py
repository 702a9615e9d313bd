"""Calibration bins: each subject's (calibration_bins.csv), and each run's (subject, bin) cell for the Brier decomposition."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..compute.derive import RunRow
from ..compute.metrics import CalibrationBin, calibration_bins, confidence_bin
from .run_columns import RunColumns


def confidence_bins(confidence: np.ndarray, bins: int) -> np.ndarray:
    """Each integer confidence's bin index, :func:`rgbench.compute.metrics.confidence_bin` looked up in a table
    of 0..100 (int64, the shape of ``confidence``); ValueError outside 0..100."""
    if confidence.size and not 0 <= int(confidence.min()) <= int(confidence.max()) <= 100:
        raise ValueError("confidence outside 0..100")
    return np.array([confidence_bin(value, bins) for value in range(101)], dtype=np.int64)[confidence]


def bin_cells(columns: RunColumns, bins: int) -> tuple[np.ndarray, int]:
    """Each run's (subject, confidence bin) cell index, subject * bins + bin, and the number of cells."""
    return columns.subject * bins + confidence_bins(columns.confidence, bins), len(columns.subjects) * bins


def calibration_tables(runs_by_subject: Mapping[str, Sequence[RunRow]], bins: int) -> dict[str, list[CalibrationBin]]:
    """Subject id -> :func:`rgbench.compute.metrics.calibration_bins` of its runs (the bins its ECE is made
    of): the non-empty bins by index, exact; a subject without runs has no bin. calibration_bins.csv."""
    return {sid: calibration_bins(rows, bins) for sid, rows in runs_by_subject.items()}
