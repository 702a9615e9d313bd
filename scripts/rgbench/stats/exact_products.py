"""Integer sums and matrix products computed with fast floating-point kernels, exactly.

A float with a p-bit significand holds every integer of magnitude up to 2**p
exactly, and adding or multiplying such integers is exact while every partial
result stays below 2**p. A product ``left @ right`` of integer matrices has
partial sums bounded by Σ_k |left[i, k]| · |right[k, j]|, so when that bound is
below 2**24 (float32) or 2**53 (float64) the BLAS result is the exact integer
whatever the order of summation, blocking or FMA the library uses. Both
functions check the bound and refuse (OverflowError) rather than round.
"""

from __future__ import annotations

import numpy as np

FLOAT32_EXACT = 1 << 24
FLOAT64_EXACT = 1 << 53


def product_bound(left: np.ndarray, right: np.ndarray) -> int:
    """An upper bound on |partial sum| of ``left @ right``: min(max row |·|-sum of left · max |right|,
    max |left| · max column |·|-sum of right); 0 for empty operands."""
    if left.size == 0 or right.size == 0:
        return 0
    # float64 sums of integers are exact below 2**53, and at or above it the bound refuses anyway
    by_rows = int(np.abs(left).sum(axis=1, dtype=np.float64).max()) * int(np.abs(right).max())
    by_cols = int(np.abs(left).max()) * int(np.abs(right).sum(axis=0, dtype=np.float64).max())
    return min(by_rows, by_cols)


def exact_matmul(left: np.ndarray, right: np.ndarray, bound: int | None = None,
                 keep_float32: bool = False) -> np.ndarray:
    """``left @ right`` of integer-valued matrices, exact, as float64 (every value an exact integer below 2**53).

    Uses float32 BLAS when the bound on partial sums (``bound`` if the caller
    knows one, else :func:`product_bound`) is below 2**24 (twice as fast),
    float64 BLAS below 2**53, and raises OverflowError above. With
    ``keep_float32`` a float32 result is returned as it is (exact too).
    """
    bound = product_bound(left, right) if bound is None else bound
    if bound < FLOAT32_EXACT:
        product = left.astype(np.float32, copy=False) @ right.astype(np.float32, copy=False)
        return product if keep_float32 else product.astype(np.float64)
    if bound < FLOAT64_EXACT:
        return left.astype(np.float64, copy=False) @ right.astype(np.float64, copy=False)
    raise OverflowError(f"integer sums up to {bound} do not fit exactly in float64 (2**53)")


def exact_bincount(index: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """int64 array of length ``size``: out[i] = sum of the integer ``weights`` whose ``index`` is i, exact.

    np.bincount sums in float64, which is exact while Σ|weights| < 2**53 (checked).
    """
    weights = np.asarray(weights, dtype=np.int64)
    if weights.size and float(np.abs(weights).sum(dtype=np.float64)) >= FLOAT64_EXACT:
        raise OverflowError("integer sums do not fit exactly in float64 (2**53)")
    return np.bincount(index, weights=weights.astype(np.float64), minlength=size).astype(np.int64)
