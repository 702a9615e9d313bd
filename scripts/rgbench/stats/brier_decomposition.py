"""Murphy's decomposition of the (soft) Brier score over the ECE confidence bins, exact."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .run_columns import RunColumns


@dataclass(frozen=True)
class BrierDecomposition:
    """BS = reliability - resolution + uncertainty + within_bin, exactly."""

    reliability: Fraction
    resolution: Fraction
    uncertainty: Fraction
    within_bin: Fraction


def decompose(bin_sums: Iterable[Sequence[int]], scale: int) -> BrierDecomposition | None:
    """The decomposition from integer sums per non-empty bin: (n, Σc, Σk, Σc², Σk², Σck) with c the
    confidence in percent and k = correctness · ``scale``; None when there is no run. Any order of bins.

    Integer arithmetic: with G = 100 · L (L = ``scale``), f = c/100 = c·L/G and o = k/L = 100·k/G, each
    term times N · G² is an integer sum over the bins of terms over n_k, brought to the common
    denominator lcm(n_k, N); one exact fraction is made per term.
    """
    L = scale
    sums = [acc for acc in bin_sums if acc[0]]
    if not sums:
        return None
    n = sum(acc[0] for acc in sums)
    common = math.lcm(n, *(acc[0] for acc in sums))
    total_k = sum(acc[2] for acc in sums)
    reliability = resolution = within = 0                                # each times N · G² · common
    for count, sc, sk, scc, _, sck in sums:
        share = common // count
        reliability += (L * sc - 100 * sk) ** 2 * share                  # n_k (f_k − o_k)²
        resolution += (100 * sk) ** 2 * share                            # n_k o_k², minus N o² below
        # Σ (f − f_k)² − 2 Σ (f − f_k)(o − o_k) = (Σf² − F²/n) − 2 (Σfo − F·O/n)
        within += (L * L * scc - 200 * L * sck) * common - (L * L * sc * sc - 200 * L * sc * sk) * share
    mean_part = (100 * total_k) ** 2 * (common // n)                     # N o², times G² · common
    resolution -= mean_part
    uncertainty = 10000 * sum(acc[4] for acc in sums) * common - mean_part   # Σ (o − o_mean)²
    denominator = n * (100 * L) ** 2 * common
    return BrierDecomposition(Fraction(reliability, denominator), Fraction(resolution, denominator),
                              Fraction(uncertainty, denominator), Fraction(within, denominator))


def brier_decompositions(columns: RunColumns, bins: int) -> dict[str, BrierDecomposition | None]:
    """Subject id -> the decomposition of its BS over the ECE bins (None when it has no scored run).

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
    exactly for any data (tests check it), with the soft correctness of BS. The
    per-bin integer sums of every subject are :meth:`.run_columns.RunColumns.bin_sums`; :func:`decompose`
    turns each subject's sums into the four terms.
    """
    per_subject = _bin_sums(columns, bins)
    return {sid: decompose(per_subject[i], columns.scale) for i, sid in enumerate(columns.subjects)}


@dataclass(frozen=True)
class CorrectedDecomposition:
    """Ferro and Fricker's (2012) bias-corrected reliability, resolution and uncertainty (see
    :func:`bias_corrected`); reliability − resolution + uncertainty is the same as uncorrected."""

    reliability: Fraction
    resolution: Fraction
    uncertainty: Fraction


def bias_corrected(bin_sums: Iterable[Sequence[int]], scale: int) -> CorrectedDecomposition | None:
    """The bias-corrected terms from the per-bin integer sums of :func:`decompose`; None when N < 2.

    Ferro and Fricker (2012, "A bias-corrected decomposition of the Brier score", QJRMS 138) note that
    with n_k runs in a bin the plug-in reliability and resolution are biased upward by the sampling
    variance of the bin's mean outcome, Var(o_k) = σ_k² / n_k, estimated without bias by
    S_k / (n_k (n_k − 1)) with S_k = Σ_{i in B_k} (o_i − o_k)². With W = (1/N) Σ_{k: n_k ≥ 2} S_k / (n_k − 1):

    - reliability' = reliability − W  (may fall below 0: then no miscalibration is detectable);
    - resolution'  = resolution − W + uncertainty / (N − 1);
    - uncertainty' = uncertainty · N / (N − 1)  (the unbiased variance of correctness).

    For 0/1 outcomes S_k / (n_k − 1) = n_k o_k (1 − o_k) / (n_k − 1), their formulas; written with S_k it
    holds for the soft correctness too. Bins with one run have no variance estimate and are not corrected
    (their bias, Var(o_i) / N each, stays). The corrections assume independent runs given the confidence;
    runs of one case are positively correlated, so the remaining bias is still upward.
    """
    sums = [acc for acc in bin_sums if acc[0]]
    n = sum(acc[0] for acc in sums)
    if n < 2:
        return None
    plain = decompose(sums, scale)
    assert plain is not None
    L2 = scale * scale
    w = sum((Fraction(kk * count - k * k, count * L2) / (count - 1) for count, _, k, _, kk, _ in sums if count >= 2),
            Fraction(0)) / n
    return CorrectedDecomposition(plain.reliability - w, plain.resolution - w + plain.uncertainty / (n - 1),
                                  plain.uncertainty * n / (n - 1))


def _bin_sums(columns: RunColumns, bins: int) -> list:
    """Per subject, per bin: the integer sums (n, Σc, Σk, Σc², Σk², Σck) of :func:`decompose`
    (:meth:`.run_columns.RunColumns.bin_sums` over the cases)."""
    return columns.bin_sums(bins).sum(axis=1).tolist()


def corrected_decompositions(columns: RunColumns, bins: int) -> dict[str, CorrectedDecomposition | None]:
    """Subject id -> :func:`bias_corrected` of its runs over the ECE bins (None with fewer than 2 runs)."""
    per_subject = _bin_sums(columns, bins)
    return {sid: bias_corrected(per_subject[i], columns.scale) for i, sid in enumerate(columns.subjects)}
