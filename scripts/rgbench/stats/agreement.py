"""Agreement between reviewers who graded the same runs: exact, pure functions over ratings.

A *unit* is one run (subject, case, run); its ratings map reviewer ids to the
value each reviewer gave (a criterion score, raw_score, classification, ...).
Units with one rating tell nothing about agreement and are skipped where a
statistic needs pairs. Every statistic returns None when it is undefined; the
caller says why (no pairable unit, no variation).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TypeVar

Score = Fraction | int  # a numeric rating: raw_score, a criterion score, correctness (a bool is an int)
Rating = Score | str  # any rating: a number or a label such as a classification
Unit = Mapping[str, Rating]  # reviewer_id -> value
R = TypeVar("R", bound=Rating)
METRICS = ("nominal", "ordinal", "interval")


def as_score(value: Rating) -> Score:
    """``value`` itself when it is numeric; TypeError for a label (interval distances, kappa and deviations need numbers)."""
    if isinstance(value, Fraction | int):
        return value
    raise TypeError(f"not a numeric rating: {value!r}")


def pairable(units: Sequence[Unit]) -> list[Unit]:
    """The units rated by at least two reviewers."""
    return [unit for unit in units if len(unit) >= 2]


def coincidences(units: Sequence[Unit]) -> dict[tuple[Rating, Rating], Fraction]:
    """Krippendorff's coincidence matrix o_ck over the pairable units.

    Each unit u with m_u >= 2 ratings adds, for every ordered pair of ratings by
    different reviewers with values (c, k), 1/(m_u − 1) to o_ck; so each pairable
    unit contributes m_u in total and n = Σ o_ck is the number of pairable values.
    """
    matrix: dict[tuple[Rating, Rating], Fraction] = defaultdict(Fraction)
    for unit in pairable(units):
        values = list(unit.values())
        weight = Fraction(1, len(values) - 1)
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    matrix[(c, k)] += weight
    return dict(matrix)


def _positions(metric: str, marginals: Mapping[Rating, Fraction]) -> dict[Rating, Fraction]:
    """Where each value sits for an ordinal or interval metric, so that δ²(c, k) = (p_k − p_c)².

    Interval: p_c = c. Ordinal: p_c = Σ_{g<c} n_g + n_c/2 (the mid-rank of c among the sorted values), since
    for c ≤ k, Σ_{g=c..k} n_g − (n_c + n_k)/2 = (Σ_{g<k} n_g + n_k/2) − (Σ_{g<c} n_g + n_c/2).
    """
    if metric == "interval":
        return {value: Fraction(as_score(value)) for value in marginals}
    positions: dict[Rating, Fraction] = {}
    below = Fraction(0)
    for value in sorted(marginals):
        positions[value] = below + marginals[value] / 2
        below += marginals[value]
    return positions


def krippendorff_alpha(units: Sequence[Unit], metric: str = "nominal") -> Fraction | None:
    """Krippendorff's alpha = 1 − D_o / D_e, at most 1, higher is better agreement.

    With the coincidences o_ck, marginals n_c = Σ_k o_ck and n = Σ_c n_c:
    D_o = Σ_ck o_ck δ²(c, k) / n and D_e = Σ_ck n_c n_k δ²(c, k) / (n (n − 1)).
    1 is perfect agreement, 0 agreement at chance level, below 0 systematic
    disagreement. ``metric``: ``nominal`` (δ² = 0 if equal else 1), ``ordinal``
    (δ²(c, k) = (Σ_{g=c..k} n_g − (n_c + n_k)/2)², ranks only) or ``interval``
    ((c − k)²). Works with any number of reviewers and missing ratings, and any
    numeric values (integers or Fractions, any range). Degenerate cases: None when no unit has two ratings,
    and None when every pairable rating has the same value (D_e = 0: no variation, so agreement
    cannot be told from chance; reported with that note rather than as 1).
    Time and memory grow with the number of ratings, never with values x values: Σ_ck n_c n_k δ²(c, k)
    is n² − Σ n_c² (nominal), else 2 n Σ n_c p_c² − 2 (Σ n_c p_c)² with δ²(c, k) = (p_k − p_c)²
    (:func:`_positions`), exactly the same Fraction.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    matrix = coincidences(units)
    if not matrix:
        return None
    marginals: dict[Rating, Fraction] = defaultdict(Fraction)
    for (c, _), weight in matrix.items():
        marginals[c] += weight
    n = sum(marginals.values(), Fraction(0))
    if metric == "nominal":
        observed = sum((w for (c, k), w in matrix.items() if c != k), Fraction(0))
        expected = n * n - sum((m * m for m in marginals.values()), Fraction(0))
    else:
        p = _positions(metric, marginals)
        observed = sum((w * (p[c] - p[k]) ** 2 for (c, k), w in matrix.items()), Fraction(0))
        first = sum((m * p[c] for c, m in marginals.items()), Fraction(0))
        second = sum((m * p[c] ** 2 for c, m in marginals.items()), Fraction(0))
        expected = 2 * n * second - 2 * first * first
    if expected == 0:
        return None
    return 1 - (n - 1) * observed / expected


def percent_agreement(units: Sequence[Unit]) -> Fraction | None:
    """Share of agreeing pairs: Σ_u #equal pairs / Σ_u C(m_u, 2) over pairable units, in [0, 1].

    With two reviewers per run it is the share of runs on which they gave the
    same value. Not chance-corrected (read it next to alpha). None when no unit
    has two ratings.
    """
    agreeing = total = 0
    for unit in pairable(units):
        counts = Counter(unit.values())
        m = len(unit)
        agreeing += sum(c * (c - 1) // 2 for c in counts.values())
        total += m * (m - 1) // 2
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
    n = len(pairs)
    if n == 0:
        return None
    observed = sum((Fraction(x - y) ** 2 for x, y in pairs), Fraction(0)) / n
    xs = [Fraction(x) for x, _ in pairs]
    ys = [Fraction(y) for _, y in pairs]
    # Σ_u Σ_v (x_u − y_v)² = n Σ x² − 2 Σx Σy + n Σ y²
    zero = Fraction(0)
    expected = (n * sum((x * x for x in xs), zero) - 2 * sum(xs, zero) * sum(ys, zero)
                + n * sum((y * y for y in ys), zero)) / (n * n)
    if expected == 0:
        return None
    return 1 - observed / expected


def pair_ratings(units: Sequence[Mapping[str, R]], a: str, b: str) -> list[tuple[R, R]]:
    """(a's value, b's value) for every unit both reviewers rated, in the units' order."""
    return [(unit[a], unit[b]) for unit in units if a in unit and b in unit]


def unit_deviations(units: Sequence[Unit], reviewer: str) -> list[Fraction]:
    """Per unit the reviewer rated together with at least one other reviewer: its value minus the mean of
    the others' values (in the units' order)."""
    deviations = []
    for unit in units:
        if reviewer in unit and len(unit) >= 2:
            others = [Fraction(v) for r, v in unit.items() if r != reviewer]
            deviations.append(Fraction(unit[reviewer]) - sum(others, Fraction(0)) / len(others))
    return deviations


def mean_deviation(units: Sequence[Unit], reviewer: str) -> tuple[Fraction | None, int]:
    """(mean of x_r − mean of the others' values, n): how lenient (> 0) or severe (< 0) a reviewer is.

    Over the n units the reviewer rated together with at least one other
    reviewer; in the target's units (points of raw_score, say). With two
    reviewers the two deviations are opposite. (None, 0) when the reviewer
    shares no unit with anyone.
    """
    deviations = unit_deviations(units, reviewer)
    if not deviations:
        return None, 0
    return sum(deviations, Fraction(0)) / len(deviations), len(deviations)
