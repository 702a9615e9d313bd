"""The case bootstrap and its bias-corrected and accelerated (BCa) interval.

A replicate draws K cases uniformly with replacement from the K cases resampled
(:func:`case_counts`: how often each case was drawn, B x K); a case brings all
its runs. A statistic is a function of case weights: ``statistic(W)`` maps a
(R x K) array of weights to R values, so the estimate is ``statistic(ones)``,
the replicates ``statistic(counts)`` and the leave-one-case-out jackknife
``statistic(ones − I)``, one code path for all three.

:func:`bca_interval` is the BCa interval of Efron (1987), "Better bootstrap
confidence intervals", JASA 82:171-185 (Efron & Tibshirani 1993, §14.3): with
z0 = Φ⁻¹(share of replicates below the estimate, ties counted half) and the
acceleration a = Σ(θ̄ − θ₍ᵢ₎)³ / (6 (Σ(θ̄ − θ₍ᵢ₎)²)^{3/2}) over the jackknife
values θ₍ᵢ₎, the bounds are the replicates' quantiles (linear interpolation,
numpy's default) at Φ(z0 + (z0 + z_q)/(1 − a (z0 + z_q))) for q = (1 − c)/2 and
(1 + c)/2. It corrects the percentile interval's bias and skew, which matter for
ratios like BS and for proportions near 0 or 1 with ~30 cases.

Every interval of the library takes it: the headline figures (:mod:`.intervals`), the lab's breakdowns
(per criterion, tag, case type, Advanced+), the reviewers' leniency, the judge's and the reviewers'
agreement, each over a seeded draw (:func:`case_weights`: :func:`case_counts` on the stream
:func:`rgbench.stats.seeds.generator` of a label over a digest of the inputs resampled).
:func:`ratio_interval` is the interval of a ratio of per-case sums (a mean over runs: a pass rate, a
mean score, a mean deviation). Bounds are floats, formatted once at output
(:func:`rgbench.stats.outputs.fmt_float`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from .seeds import generator

Statistic = Callable[[np.ndarray], np.ndarray]
Terms = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""A statistic written once as W (replicates x cases) -> (numerator, denominator) per replicate, in the arithmetic
of W: :func:`exact_value` gives the exact value (W one row of Fraction ones), :func:`replicates` the float64
replicates of the same function."""
Interval = tuple[float, float]   # (low, high) bounds of a confidence interval
_NORMAL = NormalDist()
_TIE = 1e-12   # replicates this close to the estimate (relative) count as equal to it
_BLOCK = 512   # leave-one-out weight rows built at a time: k x k weights for thousands of units would not fit


def case_counts(rng: np.random.Generator, k: int, resamples: int) -> np.ndarray:
    """(resamples x k): how often each of the k cases is drawn in each replicate (k draws with replacement).

    Whole numbers held as float64 (exact), the type every statistic multiplies them in, converted once. The
    picks are drawn as int32: numpy draws any range below 2**32 from the same 32-bit stream whatever the dtype,
    so they are the int64 draw's numbers (tests/test_large_board.py holds it), at a third of the time (the
    pairs of a 150-subject board draw about 11,000 of these).
    """
    picks = rng.integers(0, k, size=(resamples, k), dtype=np.int32 if k < 2 ** 31 else np.int64)
    offsets = (np.arange(resamples, dtype=np.int64) * k)[:, None]
    counts = np.bincount((picks + offsets).ravel(), minlength=resamples * k).reshape(resamples, k)
    return counts.astype(np.float64)


def ratio_statistic(numerator: Sequence[Fraction | int] | np.ndarray, denominator: Sequence[int] | np.ndarray,
                    scale: float = 1.0) -> Statistic:
    """W -> (W @ numerator) / (W @ denominator) / scale: a ratio of per-case sums (P, s_bar, BS, Q_final).

    A replicate whose denominator is 0 gives NaN (only possible when some cases have no weight in it).
    """
    weighted = replicates(ratio_terms(numerator, denominator))
    return lambda weights: weighted(weights) / scale


def ratio_terms(numerator: Sequence[Fraction | int] | np.ndarray, denominator: Sequence[int] | np.ndarray) -> Terms:
    """W -> (W @ numerator, W @ denominator): a ratio of per-case sums as :data:`Terms` (a mean deviation, percent
    agreement: exact through :func:`exact_value`, float64 through :func:`replicates`)."""
    return lambda w: (w @ numbers_like(w, numerator), w @ numbers_like(w, denominator))


def numbers_like(w: np.ndarray, values: Sequence[Fraction | int] | np.ndarray) -> np.ndarray:
    """``values`` in the arithmetic of the weights ``w``: Python numbers (an object array, exact) when ``w`` is
    one (:func:`exact_value`), else float64 (each value rounded once, as ``float(value)``)."""
    return np.asarray(values, dtype=object if w.dtype == object else np.float64)


def exact_value(terms: Terms, k: int) -> Fraction | None:
    """The statistic ``terms`` describes at unit weights, exactly: its numerator over its denominator with every
    sum taken in Fractions (``terms`` evaluated on one row of k ``Fraction(1)`` in a numpy object array). None
    when k = 0 or the denominator is 0 (the statistic is undefined). TypeError if ``terms`` left exact
    arithmetic (a float in the sums)."""
    if k == 0:
        return None
    num, den = terms(np.full((1, k), Fraction(1), dtype=object))
    return None if den[0] == 0 else Fraction(num[0], den[0])


def replicates(terms: Terms) -> Statistic:
    """W -> numerator / denominator of ``terms`` per replicate in float64 (W taken as float64); NaN where the
    denominator is 0 (an undefined replicate). With :func:`exact_value`, one function for value and replicates."""
    return lambda weights: safe_ratio(*terms(np.asarray(weights, dtype=np.float64)))


def safe_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator elementwise, NaN where the denominator is 0 (an undefined replicate)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator != 0, numerator / np.where(denominator != 0, denominator, 1), np.nan)


def linearised_covariances(weights: np.ndarray, sums: np.ndarray, runs: np.ndarray, totals: tuple[np.ndarray, np.ndarray],
                           first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(covariance, magnitude), each R x m: in each replicate of the case weights ``weights`` (R x K), the linearised
    (delta-method) covariance of the ratios of per-case sums R_j = Σ_c w_c a_cj / Σ_c w_c b_cj and R_k, for the m
    pairs (j, k) = (``first[i]``, ``second[i]``); j = k gives a variance. The ratio estimator's linearisation
    (Efron and Tibshirani 1993, §21.3): the replicate's own standard error, which a bootstrap-t divides each
    replicate by (Hall 1992, "The Bootstrap and Edgeworth Expansion", §3.10).

    ``sums`` (K x p) a_cj and ``runs`` (K x p) b_cj are whole numbers, so every weighted sum below is exact
    whatever the order BLAS adds in (the same bytes on every machine); ``totals`` = (weights @ sums,
    weights @ runs) (R x p each), A_j and T_j. With u_cj = a_cj − R_j·b_cj the covariance is the plug-in

        Σ_c w_c u_cj u_ck / (T_j T_k)
          = (Σ w a_j a_k − R_k Σ w a_j b_k − R_j Σ w b_j a_k + R_j R_k Σ w b_j b_k) / (T_j T_k)

    (no K/(K − 1) factor: a factor common to every standard error cancels between a studentised estimate and
    its studentised replicates). ``magnitude`` is the same sum of the four terms' absolute values: the rounding
    error of the covariance is about 1e-16 of it, so a variance at most 1e-12 of its magnitude is 0 (the pair
    differs by the same amount on every case drawn). Weights of ones give the estimates' own. NaN where a total
    of runs is 0 (the replicate drew none of that ratio's cases).
    """
    w = np.asarray(weights, dtype=np.float64)
    a, b = np.asarray(sums, dtype=np.float64), np.asarray(runs, dtype=np.float64)
    m = len(first)
    a1, a2, b1, b2 = a[:, first], a[:, second], b[:, first], b[:, second]
    moments = w @ np.concatenate([a1 * a2, a1 * b2, b1 * a2, b1 * b2], axis=1)
    aa, ab, ba, bb = (moments[:, i * m:(i + 1) * m] for i in range(4))
    sum_totals, run_totals = totals
    t1, t2 = run_totals[:, first], run_totals[:, second]
    r1, r2 = safe_ratio(sum_totals[:, first], t1), safe_ratio(sum_totals[:, second], t2)
    terms = (aa, -r2 * ab, -r1 * ba, r1 * r2 * bb)
    scale = t1 * t2
    return (safe_ratio(terms[0] + terms[1] + terms[2] + terms[3], scale),
            safe_ratio(np.abs(terms[0]) + np.abs(terms[1]) + np.abs(terms[2]) + np.abs(terms[3]), scale))


def jackknife_accelerations(jackknife: np.ndarray) -> np.ndarray:
    """Per column of ``jackknife`` (K x m: the K leave-one-out values θ₍ᵢ₎ of m statistics),
    a = Σ(θ̄ − θ₍ᵢ₎)³ / (6 · (Σ(θ̄ − θ₍ᵢ₎)²)^{3/2}) over its finite values; 0 where they are all equal or
    fewer than 2 are finite."""
    columns = np.asarray(jackknife, dtype=np.float64)
    finite = np.isfinite(columns)
    count = finite.sum(axis=0)
    kept = np.where(finite, columns, 0.0)
    mean = kept.sum(axis=0) / np.maximum(count, 1)
    d = np.where(finite, mean - kept, 0.0)
    s2 = (d * d).sum(axis=0)
    s3 = (d ** 3).sum(axis=0)
    defined = (count >= 2) & (s2 > 0)
    return np.where(defined, s3 / (6.0 * np.where(defined, s2, 1.0) ** 1.5), 0.0)


def jackknife_acceleration(jackknife: np.ndarray) -> float:
    """:func:`jackknife_accelerations` of one statistic's K leave-one-out values (0 when K < 2)."""
    values = np.asarray(jackknife, dtype=np.float64)
    return float(jackknife_accelerations(values[:, None])[0]) if values.size else 0.0


def column_quantiles(ordered: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Column j's ``levels[j]`` quantile of ``ordered`` (B x m, each column sorted ascending), by the rule of
    numpy's default ``np.quantile(method="linear")``, operation for operation (so the same float): h =
    (B − 1)·q, a = x_⌊h⌋, b = x_⌊h⌋+1 (the last one at the end), t = h − ⌊h⌋, a + (b − a)·t, or b − (b − a)(1 − t)
    when t ≥ 0.5."""
    b_count, m = ordered.shape
    virtual = (b_count - 1) * np.asarray(levels, dtype=np.float64)
    previous = np.floor(virtual)
    upper = virtual >= b_count - 1
    previous = np.where(upper, -1, np.where(virtual < 0, 0, previous)).astype(np.int64)
    following = np.where(upper, -1, np.minimum(previous + 1, b_count - 1))
    gamma = virtual - previous
    columns = np.arange(m)
    low, high = ordered[previous, columns], ordered[following, columns]
    diff = high - low
    return np.where(gamma >= 0.5, high - diff * (1 - gamma), low + diff * gamma)


def bca_columns(estimates: np.ndarray, replicates: np.ndarray, accelerations: np.ndarray,
                confidence: Fraction) -> list[tuple[float, float]]:
    """The BCa bounds of each column of ``replicates`` (B x m, every value finite), with its estimate and
    acceleration: z0 = Φ⁻¹(share of replicates below the estimate, ties counted half, kept within
    [1/(2B), 1 − 1/(2B)]), bounds the replicates' quantiles (:func:`column_quantiles`) at
    Φ(z0 + (z0 + z_q)/(1 − a (z0 + z_q))) for q = (1 − c)/2 and (1 + c)/2. A column whose replicates all
    equal its estimate is that point (no case-level variation)."""
    b_count = len(replicates)
    estimates = np.asarray(estimates, dtype=np.float64)
    tie = _TIE * np.maximum(1.0, np.abs(estimates))
    below = np.count_nonzero(replicates < estimates - tie, axis=0)
    equal = np.count_nonzero(np.abs(replicates - estimates) <= tie, axis=0)
    z_levels = [_NORMAL.inv_cdf(float(q)) for q in ((1 - confidence) / 2, (1 + confidence) / 2)]
    levels = np.zeros((2, len(estimates)))
    for j, (under, same, acceleration) in enumerate(zip(below.tolist(), equal.tolist(), accelerations)):
        share = min(max((under + same / 2) / b_count, 0.5 / b_count), 1 - 0.5 / b_count)
        z0 = _NORMAL.inv_cdf(share)
        for side, z in enumerate(z_levels):
            zq = z0 + z
            levels[side, j] = _NORMAL.cdf(z0 + zq / (1 - float(acceleration) * zq))
    ordered = np.sort(replicates, axis=0)
    lows, highs = column_quantiles(ordered, levels[0]), column_quantiles(ordered, levels[1])
    point = equal == b_count
    return [(float(e), float(e)) if flat else (float(lo), float(hi))
            for e, flat, lo, hi in zip(estimates, point, lows, highs)]


def bca_bounds(estimate: float, replicates: np.ndarray, acceleration: float,
               confidence: Fraction) -> tuple[float, float] | None:
    """:func:`bca_columns` of one statistic (NaN replicates dropped); None when no replicate is finite."""
    reps = replicates[np.isfinite(replicates)]
    if not reps.size:
        return None
    return bca_columns(np.array([estimate]), reps[:, None], np.array([acceleration]), confidence)[0]


def percentile_bounds(replicates: np.ndarray, confidence: Fraction) -> tuple[float, float] | None:
    """The replicates' (1 − c)/2 and (1 + c)/2 quantiles (numpy's linear rule, as :func:`column_quantiles`), NaN
    replicates dropped: the percentile interval at level c; None when no replicate is finite."""
    reps = replicates[np.isfinite(replicates)]
    if not reps.size:
        return None
    low, high = np.quantile(reps, [float((1 - confidence) / 2), float((1 + confidence) / 2)])
    return float(low), float(high)


def leave_one_out_weights(k: int, start: int, rows: int) -> np.ndarray:
    """Rows ``start``..``start + rows - 1`` of the k x k leave-one-case-out weights (all ones but a 0 at
    column i of row i), built without the whole k x k matrix."""
    return np.ones((rows, k)) - np.eye(rows, k, start)


def bca_interval(statistic: Statistic, k: int, counts: np.ndarray, confidence: Fraction) -> tuple[float, float] | None:
    """The case-bootstrap BCa interval of ``statistic`` over k cases with the draw ``counts`` (B x k).

    None when k = 0. One case: every replicate is the estimate, so the interval is a point (no
    case-level variation can be measured: read it as unknown, not as certain). ValueError when ``counts`` does
    not have one column per case (a draw sized for other units would be misaligned silently).
    """
    if k == 0:
        return None
    if counts.ndim != 2 or counts.shape[1] != k:
        raise ValueError(f"the draw has shape {counts.shape}, not one column for each of the {k} cases")
    estimate = float(statistic(np.ones((1, k)))[0])
    jackknife = np.concatenate([statistic(leave_one_out_weights(k, start, min(_BLOCK, k - start)))
                                for start in range(0, k, _BLOCK)]) if k > 1 else np.zeros(0)
    return bca_bounds(estimate, statistic(counts), jackknife_acceleration(jackknife), confidence)


def case_weights(k: int, *, digest: str, label: str, resamples: int) -> np.ndarray:
    """:func:`case_counts` of k cases from the stream of ``label`` over ``digest``; shared by every statistic
    of one (digest, label)."""
    return case_counts(generator(label, [digest]), k, resamples)


def ratio_interval(sums: Sequence[Fraction | int] | np.ndarray, runs: Sequence[int] | np.ndarray,
                   weights: np.ndarray, confidence: Fraction, scale: float = 1.0) -> Interval | None:
    """:func:`bca_interval` of Σ_c sum_c / Σ_c n_c / ``scale`` (:func:`ratio_statistic`) over the case draw
    ``weights`` (``sums[c]``: case c's total of the value, ``runs[c]`` ≥ 1 its runs). None without cases;
    one case, or every case at the same mean, gives the point."""
    return bca_interval(ratio_statistic(sums, runs, scale), len(runs), weights, confidence)


def extended_quantile(values: np.ndarray, q: float) -> float:
    """numpy's default (linear) ``q`` quantile of ``values`` (no NaN), read as ±∞ when it takes any weight from an
    infinite value (numpy's interpolation gives NaN between two infinities)."""
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    h = (len(ordered) - 1) * q
    low = int(np.floor(h))
    high = min(low + 1, len(ordered) - 1)
    if np.isfinite(ordered[low]) and np.isfinite(ordered[high]):
        return float(np.quantile(ordered, q))
    if h == low or ordered[low] == ordered[high]:
        return float(ordered[low])
    return float(ordered[high]) if np.isinf(ordered[high]) else float(ordered[low])


def undefined_replicates(statistic: Statistic, weights: np.ndarray) -> int:
    """How many replicates of the draw ``weights`` leave ``statistic`` undefined (NaN: no variation in them);
    :func:`bca_interval` leaves those out."""
    return int(np.count_nonzero(~np.isfinite(statistic(weights))))
