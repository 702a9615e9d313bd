"""Reliability labels: how much weight a figure can bear, from the number of distinct cases behind it.

Counted in distinct cases, not runs: repeated runs of one case are not
independent evidence about the subject. The case counts are the benchmark's
(``reliability_cases`` of ``system/metrics/<version>/config.yaml``, read into
``Spec.reliability_cases``); the labels of each group are fixed:

* P, s_bar: "reasonable" below the first count, "stable" below the second, "robust" from it;
* BS, ECE, Q_final: "indicative", "stable", "robust";
* P_family, s_bar_family: "indicative", "reasonable", "stable".

A figure backed by zero cases is undefined and gets the empty label ``""``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

INDICATIVE, REASONABLE, STABLE, ROBUST = "indicative", "reasonable", "stable", "robust"
LABELS = (INDICATIVE, REASONABLE, STABLE, ROBUST)


@dataclass(frozen=True)
class Scale:
    """Labels for one group of figures: ``labels[i]`` applies below ``bounds[i]``, the last one from ``bounds[-1]``."""

    figures: tuple[str, ...]
    bounds: tuple[int, ...]
    labels: tuple[str, ...]

    def label(self, n_cases: int) -> str:
        """The label for ``n_cases`` distinct cases; ``""`` when there are none."""
        if n_cases < 0:
            raise ValueError(f"n_cases must be >= 0, got {n_cases}")
        return self.labels[bisect.bisect_right(self.bounds, n_cases)] if n_cases else ""

    def describe(self) -> str:
        """E.g. ``P, s_bar: reasonable below 80 cases, stable below 300, robust from 300``."""
        parts = [f"{self.labels[0]} below {self.bounds[0]} cases"]
        parts += [f"{label} below {bound}" for bound, label in zip(self.bounds[1:], self.labels[1:])]
        parts.append(f"{self.labels[-1]} from {self.bounds[-1]}")
        return f"{', '.join(self.figures)}: {', '.join(parts)}"


# Group name in config.yaml's reliability_cases -> (figures, labels below each count and from the last).
GROUPS = {
    "core": (("P", "s_bar"), (REASONABLE, STABLE, ROBUST)),
    "calibration": (("BS", "ECE", "Q_final"), (INDICATIVE, STABLE, ROBUST)),
    "family": (("P_family", "s_bar_family"), (INDICATIVE, REASONABLE, STABLE)),
}


def scales(cases: dict[str, tuple[int, ...]]) -> tuple[Scale, ...]:
    """The scale of each group (core, calibration, family) with the case counts of ``Spec.reliability_cases``."""
    return tuple(Scale(figures, tuple(cases[group]), labels) for group, (figures, labels) in GROUPS.items())

# The subject-level figures that carry a reliability column, in the CSV's order.
SUBJECT_FIGURES = ("P", "s_bar", "Q_final", "BS", "ECE")

# One sentence per label, for the page footer and the Markdown notes.
EXPLANATIONS = {
    INDICATIVE: "a hint, not a measurement: too few distinct cases for small differences between subjects to mean much.",
    REASONABLE: "a usable estimate, but differences of a few points between subjects are within sampling noise.",
    STABLE: "enough distinct cases that another sample of similar cases would move the figure little.",
    ROBUST: "enough distinct cases for fine-grained comparisons between subjects.",
}


def scale_for(figure: str, all_scales: tuple[Scale, ...]) -> Scale:
    """The scale of ``all_scales`` that labels ``figure`` (a subject-level or family-level column name)."""
    for scale in all_scales:
        if figure in scale.figures:
            return scale
    raise KeyError(f"no reliability scale for {figure!r}")


def subject_labels(n_cases: int, all_scales: tuple[Scale, ...]) -> dict[str, str]:
    """Label of each subject-level figure (SUBJECT_FIGURES) for a subject with ``n_cases`` distinct cases."""
    return {figure: scale_for(figure, all_scales).label(n_cases) for figure in SUBJECT_FIGURES}
