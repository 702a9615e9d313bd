"""Agreement between reviewers who graded the same runs: exact, pure functions over ratings.

A *unit* is one run (subject, case, run); its ratings map reviewer ids to the
value each reviewer gave (a criterion score, raw_score, classification, ...).
Units with one rating tell nothing about agreement and are skipped where a
statistic needs pairs. Every statistic returns None when it is undefined; the
caller says why (no pairable unit, no variation).

Every statistic is also available from sums over the units (``*_counts``,
``*_sums``): sums of disjoint sets of units add up, so a caller can keep them
per group of units (per subject, say) and combine them later; the statistic of
the combined sums is exactly (as a Fraction) the statistic of all the units.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction
from typing import Hashable, Mapping, Sequence

Unit = Mapping[str, Hashable]  # reviewer_id -> value
METRICS = ("nominal", "ordinal", "interval")


def pairable(units: Sequence[Unit]) -> list[Unit]:
    """The units rated by at least two reviewers."""
    return [unit for unit in units if len(unit) >= 2]


def coincidence_counts(units: Sequence[Unit]) -> Counter[tuple[int, Hashable, Hashable]]:
    """(m, c, k) -> number of ordered pairs of ratings by different reviewers with values (c, k) in units of m ratings.

    Over the pairable units; :func:`coincidences_from_counts` turns it into o_ck. Counts of disjoint sets of
    units add up (``Counter.update``).
    """
    counts: Counter[tuple[int, Hashable, Hashable]] = Counter()
    for unit in units:
        m = len(unit)
        if m < 2:
            continue
        if m == 2:
            c, k = unit.values()
            counts[(2, c, k)] += 1
            counts[(2, k, c)] += 1
            continue
        values = list(unit.values())
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    counts[(m, c, k)] += 1
    return counts


def coincidences_from_counts(counts: Mapping[tuple[int, Hashable, Hashable], int]) -> dict[tuple[Hashable, Hashable], Fraction]:
    """o_ck = Σ_m count(m, c, k) / (m − 1): the coincidence matrix of :func:`coincidence_counts`."""
    matrix: dict[tuple[Hashable, Hashable], Fraction] = defaultdict(Fraction)
    for (m, c, k), count in counts.items():
        if count:
            matrix[(c, k)] += Fraction(count, m - 1)
    return dict(matrix)


def coincidences(units: Sequence[Unit]) -> dict[tuple[Hashable, Hashable], Fraction]:
    """Krippendorff's coincidence matrix o_ck over the pairable units.

    Each unit u with m_u >= 2 ratings adds, for every ordered pair of ratings by
    different reviewers with values (c, k), 1/(m_u − 1) to o_ck; so each pairable
    unit contributes m_u in total and n = Σ o_ck is the number of pairable values.
    """
    return coincidences_from_counts(coincidence_counts(units))


def _distance(metric: str, marginals: dict[Hashable, Fraction]):
    """δ²(c, k) of the metric: nominal 0/1; interval (c − k)²; ordinal from the marginals n_g."""
    if metric == "nominal":
        return lambda c, k: Fraction(0 if c == k else 1)
    if metric == "interval":
        return lambda c, k: Fraction(c - k) ** 2
    order = sorted(marginals)
    position = {value: index for index, value in enumerate(order)}

    def ordinal(c, k):
        lo, hi = sorted((position[c], position[k]))
        between = sum((marginals[order[g]] for g in range(lo, hi + 1)), Fraction(0))
        return (between - (marginals[c] + marginals[k]) / 2) ** 2
    return ordinal


def krippendorff_alpha(units: Sequence[Unit], metric: str = "nominal") -> Fraction | None:
    """Krippendorff's alpha = 1 − D_o / D_e, at most 1, higher is better agreement.

    With the coincidences o_ck, marginals n_c = Σ_k o_ck and n = Σ_c n_c:
    D_o = Σ_ck o_ck δ²(c, k) / n and D_e = Σ_ck n_c n_k δ²(c, k) / (n (n − 1)).
    1 is perfect agreement, 0 agreement at chance level, below 0 systematic
    disagreement. ``metric``: ``nominal`` (δ² = 0 if equal else 1), ``ordinal``
    (δ²(c, k) = (Σ_{g=c..k} n_g − (n_c + n_k)/2)², ranks only) or ``interval``
    ((c − k)²). Works with any number of reviewers and missing ratings.
    Degenerate cases: None when no unit has two ratings, and None when every
    pairable rating has the same value (D_e = 0: no variation, so agreement
    cannot be told from chance; reported with that note rather than as 1).
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    return alpha_from_coincidences(coincidences(units), metric)


def alpha_from_coincidences(matrix: Mapping[tuple[Hashable, Hashable], Fraction], metric: str = "nominal") -> Fraction | None:
    """Krippendorff's alpha of a coincidence matrix (:func:`krippendorff_alpha` gives the formula and the
    degenerate cases: None for an empty matrix or when D_e = 0)."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    if not matrix:
        return None
    marginals: dict[Hashable, Fraction] = defaultdict(Fraction)
    for (c, _), weight in matrix.items():
        marginals[c] += weight
    n = sum(marginals.values(), Fraction(0))
    delta = _distance(metric, marginals)
    observed = sum((w * delta(c, k) for (c, k), w in matrix.items()), Fraction(0))
    expected = sum((marginals[c] * marginals[k] * delta(c, k) for c in marginals for k in marginals), Fraction(0))
    if expected == 0:
        return None
    return 1 - (n - 1) * observed / expected


def percent_agreement(units: Sequence[Unit]) -> Fraction | None:
    """Share of agreeing pairs: Σ_u #equal pairs / Σ_u C(m_u, 2) over pairable units, in [0, 1].

    With two reviewers per run it is the share of runs on which they gave the
    same value. Not chance-corrected (read it next to alpha). None when no unit
    has two ratings.
    """
    return percent_from_counts(*agreement_counts(units))


def agreement_counts(units: Sequence[Unit]) -> tuple[int, int]:
    """(Σ_u #equal pairs, Σ_u C(m_u, 2)) over the pairable units: the two sums of :func:`percent_agreement`."""
    agreeing = total = 0
    for unit in units:
        m = len(unit)
        if m < 2:
            continue
        if m == 2:
            c, k = unit.values()
            agreeing += c == k
            total += 1
            continue
        counts = Counter(unit.values())
        agreeing += sum(c * (c - 1) // 2 for c in counts.values())
        total += m * (m - 1) // 2
    return agreeing, total


def percent_from_counts(agreeing: int, total: int) -> Fraction | None:
    """agreeing / total, None when total is 0."""
    return Fraction(agreeing, total) if total else None


def cohen_weighted_kappa(pairs: Sequence[tuple[Fraction | int, Fraction | int]]) -> Fraction | None:
    """Cohen's kappa with quadratic weights for two reviewers' numeric ratings of the same units.

    kappa_w = 1 − D_o / D_e with D_o = (1/n) Σ_u (x_u − y_u)² and
    D_e = (1/n²) Σ_u Σ_v (x_u − y_v)² (disagreement expected if each reviewer's
    ratings were paired at random). At most 1, higher is better; 0 at chance,
    below 0 worse than chance. Equal to the usual table form with weights
    (i − j)² when categories are the consecutive integer scores. Degenerate
    cases: None when the reviewers share no unit (n = 0) or when both gave one
    and the same value everywhere (D_e = 0).
    """
    sums = [0, 0, 0, 0, 0, 0]
    for x, y in pairs:
        add_kappa_pair(sums, x, y)
    return kappa_from_sums(sums)


def add_kappa_pair(sums: list, x: Fraction | int, y: Fraction | int) -> None:
    """Add one unit's (x, y) to ``sums`` = [n, Σx, Σy, Σx², Σy², Σ(x − y)²] (:func:`kappa_from_sums`)."""
    sums[0] += 1
    sums[1] += x
    sums[2] += y
    sums[3] += x * x
    sums[4] += y * y
    sums[5] += (x - y) * (x - y)


def kappa_from_sums(sums: Sequence[Fraction | int]) -> Fraction | None:
    """:func:`cohen_weighted_kappa` from [n, Σx, Σy, Σx², Σy², Σ(x − y)²] over the shared units.

    D_o = Σ(x − y)² / n; D_e = (n Σx² − 2 Σx Σy + n Σy²) / n², which is (1/n²) Σ_u Σ_v (x_u − y_v)².
    """
    n, sx, sy, sxx, syy, sdd = sums
    if n == 0:
        return None
    observed = Fraction(sdd) / n
    expected = Fraction(n * sxx - 2 * sx * sy + n * syy) / (n * n)
    if expected == 0:
        return None
    return 1 - observed / expected


def pair_ratings(units: Sequence[Unit], a: str, b: str) -> list[tuple[Hashable, Hashable]]:
    """(a's value, b's value) for every unit both reviewers rated, in the units' order."""
    return [(unit[a], unit[b]) for unit in units if a in unit and b in unit]


def mean_deviation(units: Sequence[Unit], reviewer: str) -> tuple[Fraction | None, int]:
    """(mean of x_r − mean of the others' values, n): how lenient (> 0) or severe (< 0) a reviewer is.

    Over the n units the reviewer rated together with at least one other
    reviewer; in the target's units (points of raw_score, say). With two
    reviewers the two deviations are opposite. (None, 0) when the reviewer
    shares no unit with anyone.
    """
    deviations = []
    for unit in units:
        if reviewer in unit and len(unit) >= 2:
            deviations.append(unit_deviation(unit, reviewer))
    if not deviations:
        return None, 0
    return sum(deviations, Fraction(0)) / len(deviations), len(deviations)


def unit_deviation(unit: Unit, reviewer: str) -> Fraction:
    """x_r − mean of the other reviewers' values in one unit of at least two ratings."""
    others = [Fraction(v) for r, v in unit.items() if r != reviewer]
    return Fraction(unit[reviewer]) - sum(others) / len(others)
