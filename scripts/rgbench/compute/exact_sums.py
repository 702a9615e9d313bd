"""Exact integer sums per index over numpy arrays: the bincount every per-bin, per-case and per-subject sum uses."""

from __future__ import annotations

import numpy as np

FLOAT64_EXACT = 2**53   # every integer below it is exact in float64


def exact_bincount(index: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """int64 array of length ``size``: out[i] = sum of the integer ``weights`` whose ``index`` is i, exact.

    np.bincount sums in float64, which is exact while Σ|weights| < 2**53 (checked; OverflowError otherwise).
    """
    weights = np.asarray(weights, dtype=np.int64)
    if weights.size and float(np.abs(weights).sum(dtype=np.float64)) >= FLOAT64_EXACT:
        raise OverflowError("integer sums do not fit exactly in float64 (2**53)")
    return np.bincount(index, weights=weights.astype(np.float64), minlength=size).astype(np.int64)
