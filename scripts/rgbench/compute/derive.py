"""Per-run derivation: from a scoring, its response and its gold to one row of per_run.csv."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ..load.records import Gold, Response, Scoring
from ..load.scale import Score, ScoreScale, default_scale
from ..load.spec import Spec

PASS, CONDITIONAL, FAIL = "Pass", "Conditional", "Fail"
# confidence c -> c/100, built once: 101 shared exact values instead of one Fraction per run.
_CONFIDENCE_UNIT = tuple(Fraction(c, 100) for c in range(101))
_SEED_SCALE = default_scale()


class RunRow(NamedTuple):
    """One scored (subject, case, run, reviewer): the columns of per_run.csv, exact."""

    subject_id: str
    subject_version: str
    case_id: str
    run_id: str
    reviewer_id: str
    family: str
    raw_score: Score        # exact: an int on an integer scale, else a Fraction (rgbench.load.scale)
    rubric_floor: Score | None       # None: the benchmark records no floor (no floor rule)
    rubric_ceiling: Score | None     # None: no ceiling (clipped_score = raw_score)
    clipped_score: Score
    has_critical_fail: bool
    has_recoverable_fail: bool
    classification: str | None     # None: the benchmark has no pass rule
    reported_confidence: int | None   # None: the benchmark records no confidence
    confidence_unit: Fraction | None
    correctness: Fraction | None   # None: the benchmark records no correctness


def classify(*, has_critical: bool, has_recoverable: bool, clipped: Score, floor: Score | None,
             pass_threshold: Score | None, conditional_threshold: Score | None,
             scale: ScoreScale = _SEED_SCALE) -> str | None:
    """The rubric's classification, first matching rule wins.

    1. a critical fail -> Fail; 2. a recoverable fail -> Conditional;
    3. clipped < floor -> Fail; 4. clipped >= pass_threshold -> Pass;
    5. clipped >= conditional_threshold -> Conditional; 6. otherwise Fail (thresholds: system/benchmark.yaml).
    Each comparison is :meth:`ScoreScale.at_least` of ``scale`` (only its direction is read): with score_direction
    lower_is_better, clipped > floor -> Fail, clipped <= pass_threshold -> Pass, clipped <= conditional_threshold
    -> Conditional. None when there is no pass rule (``pass_threshold`` None: nothing is classified); a ``floor``
    of None (the benchmark records none) skips rule 3, a ``conditional_threshold`` of None rule 5.
    """
    if pass_threshold is None:
        return None
    if has_critical:
        return FAIL
    if has_recoverable:
        return CONDITIONAL
    if floor is not None and not scale.at_least(clipped, floor):
        return FAIL
    if scale.at_least(clipped, pass_threshold):
        return PASS
    if conditional_threshold is not None and scale.at_least(clipped, conditional_threshold):
        return CONDITIONAL
    return FAIL


def derive_run(scoring: Scoring, response: Response, gold: Gold, spec: Spec, scale: ScoreScale | None = None) -> RunRow:
    """Per-run values of aggregate_metrics.md: raw and clipped score, fail flags, classification.

    raw_score is the total of the criteria (their sum, or their mean with score_total mean: within
    score_min..score_max); clipped_score is min(raw_score, rubric_ceiling), or max(...) with
    score_direction lower_is_better (the ceiling is the best total the case credits); confidence_unit is
    confidence/100 exactly. A field the benchmark does not record stays None (and so do the values made of
    it): no ceiling, no clipping; no floor, no floor rule. ``scale`` is ``spec.scale`` (pass it when
    deriving many runs: built once).
    """
    scale = scale or spec.scale
    raw = scale.total_of(score for _, score in scoring.criterion_scores)
    ceiling = gold.rubric_ceiling
    clipped = raw if ceiling is None else scale.clip(raw, ceiling)
    critical = recoverable = False
    for _, severity in scoring.fails:
        critical = critical or severity == "critical"
        recoverable = recoverable or severity == "recoverable"
    return RunRow(
        subject_id=scoring.subject_id,
        subject_version=scoring.subject_version,
        case_id=scoring.case_id,
        run_id=scoring.run_id,
        reviewer_id=scoring.reviewer_id,
        family=gold.family,
        raw_score=raw,
        rubric_floor=gold.rubric_floor,
        rubric_ceiling=gold.rubric_ceiling,
        clipped_score=clipped,
        has_critical_fail=critical,
        has_recoverable_fail=recoverable,
        classification=classify(
            has_critical=critical,
            has_recoverable=recoverable,
            clipped=clipped,
            floor=gold.rubric_floor,
            pass_threshold=spec.pass_threshold,
            conditional_threshold=spec.conditional_threshold,
            scale=scale,
        ),
        reported_confidence=response.confidence,
        confidence_unit=None if response.confidence is None else _CONFIDENCE_UNIT[response.confidence],
        correctness=scoring.correctness,
    )
