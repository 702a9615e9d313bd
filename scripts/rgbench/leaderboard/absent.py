"""What the board leaves out because the benchmark does not record it, and the one sentence that says why.

A benchmark declares in ``system/`` what it records (:mod:`rgbench.load.recorded`: the schemas; the pass
rule: benchmark.yaml's ``pass_threshold``); a tag breakdown exists when some gold has tags. The figures that
need a field it does not record are absent: their cells empty in the CSVs, their columns, sections and
charts left out of the page and the Markdown, and :func:`reasons` gives, once per page, the sentence that
says why (issue 23). A benchmark that records everything (the sample) gets no sentence and an unchanged page.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..load.scale import ScoreScale
from ..load.spec import Spec


@dataclass(frozen=True)
class Shown:
    """Which optional figures the board has (True: the benchmark records what they need)."""

    pass_rule: bool = True     # P, classification, P_family, pass@k, pass rate by difficulty, alpha
    confidence: bool = True
    correctness: bool = True
    difficulty: bool = True    # per-difficulty figures, P_weighted, Advanced+, the difficulty-label check
    case_type: bool = True     # the case-type breakdown
    rubric_floor: bool = True  # the floor rule of the classification
    rubric_ceiling: bool = True  # clipping at the case's ceiling
    tags: bool = True          # the tag breakdown (some gold has tags)
    judge_assisted: bool = False   # estimation: judge-assisted: only the estimator's P, s_bar, Q_final

    @property
    def calibration(self) -> bool:
        """BS, ECE, the calibration bins, diagrams and check need both confidence and correctness (and a board of
        human grades: the estimator gives none of them yet)."""
        return self.confidence and self.correctness and not self.judge_assisted

    @property
    def difficulty_figures(self) -> bool:
        """Pass rate by difficulty, P_weighted and the difficulty-label check: a difficulty and a pass rule (and a
        board of human grades)."""
        return self.difficulty and self.pass_rule and not self.judge_assisted


def shown_of(spec: Spec, has_tags: bool = True) -> Shown:
    """The figures ``spec``'s benchmark records; ``has_tags``: some gold has tags."""
    return Shown(spec.has_pass_rule, spec.has_confidence, spec.has_correctness, spec.has_difficulty,
                 spec.has_case_type, spec.has_rubric_floor, spec.has_rubric_ceiling, has_tags, spec.judge_assisted)


def reasons(shown: Shown, scale: ScoreScale) -> list[str]:
    """One sentence per kind of absent figure, in page order; empty when nothing is absent."""
    out = []
    if shown.judge_assisted:
        out.append("In judge-assisted mode the board gives P, s\u0304, Q_final and the criterion means by the "
                   "estimator only: BS, ECE, calibration, the figures by family, difficulty, tag and case type, pass@k "
                   "and the alpha "
                   "sensitivity are not estimated yet, so they are absent rather than computed from the human grades "
                   "of a draw that is not a uniform sample.")
    if not shown.pass_rule:
        out.append(f"This benchmark declares no pass rule (no pass_threshold), so runs are not classified and there "
                   f"is no P, P_family, pass@k or pass rate by difficulty: Q_final is the normalised score "
                   f"{scale.norm_text()} alone, and the board ranks on it.")
    missing = [word for word, known in (("model confidence", shown.confidence), ("correctness", shown.correctness))
               if not known]
    if missing:
        out.append(f"This benchmark records no {' and no '.join(missing)}, so BS, ECE and calibration are not "
                   "computed.")
    if not shown.difficulty:
        out.append("This benchmark records no case difficulty, so there are no figures by difficulty (pass rate by "
                   "difficulty, P_weighted, Advanced+, the difficulty-label check).")
    if not shown.case_type and not shown.tags:
        out.append("This benchmark records no case type and no case carries a tag, so there is no breakdown by case "
                   "type or by tag.")
    elif not shown.case_type:
        out.append("This benchmark records no case type, so there is no breakdown by case type.")
    elif not shown.tags:
        out.append("No case carries a tag, so there is no breakdown by tag.")
    if not shown.rubric_ceiling:
        out.append("This benchmark records no rubric ceiling, so scores are not clipped (s\u0304 is the mean raw "
                   "score).")
    if not shown.rubric_floor and shown.pass_rule:
        out.append("This benchmark records no rubric floor, so no run fails for scoring below its case's floor.")
    return out


def q_formula(shown: Shown, scale: ScoreScale) -> str:
    """How Q_final is made: ``Q_final = alpha · P + (1 − alpha) · s̄ / 12``, or ``Q_final = s̄ / 12`` without P."""
    if not shown.pass_rule:
        return f"Q_final = {scale.norm_text()}"
    return f"Q_final = alpha \u00b7 P + (1 \u2212 alpha) \u00b7 {scale.norm_text()}"


def tie_figures(shown: Shown) -> list[str]:
    """The figures two ranked rows must share to tie, in the ranking's order (:func:`rgbench.compute.ranking.tie_key`),
    those the benchmark has."""
    return [name for name, kept in (("Q_final", True), ("P", shown.pass_rule), ("s\u0304", True),
                                    ("BS", shown.calibration)) if kept]
