"""Per-run derivation: from a scoring, its response and its gold to one row of per_run.csv."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ..load.records import Gold, Response, Scoring
from ..load.spec import Spec

PASS, CONDITIONAL, FAIL = "Pass", "Conditional", "Fail"
# confidence c -> c/100, built once: 101 shared exact values instead of one Fraction per run.
_CONFIDENCE_UNIT = tuple(Fraction(c, 100) for c in range(101))


class RunRow(NamedTuple):
    """One scored (subject, case, run, reviewer): the columns of per_run.csv, exact."""

    subject_id: str
    subject_version: str
    case_id: str
    run_id: str
    reviewer_id: str
    family: str
    raw_score: int | Fraction   # a Fraction when a consolidated mean leaves the integer scale (31/3)
    rubric_floor: int
    rubric_ceiling: int
    clipped_score: int | Fraction
    has_critical_fail: bool
    has_recoverable_fail: bool
    classification: str
    reported_confidence: int
    confidence_unit: Fraction
    correctness: Fraction


def classify(*, has_critical: bool, has_recoverable: bool, clipped: int | Fraction, floor: int,
             pass_threshold: int, conditional_threshold: int) -> str:
    """The rubric's classification, first matching rule wins.

    1. a critical fail -> Fail; 2. a recoverable fail -> Conditional;
    3. clipped < floor -> Fail; 4. clipped >= pass_threshold -> Pass;
    5. clipped >= conditional_threshold -> Conditional; 6. otherwise Fail (thresholds: system/benchmark.yaml).
    """
    if has_critical:
        return FAIL
    if has_recoverable:
        return CONDITIONAL
    if clipped < floor:
        return FAIL
    if clipped >= pass_threshold:
        return PASS
    if clipped >= conditional_threshold:
        return CONDITIONAL
    return FAIL


def derive_run(scoring: Scoring, response: Response, gold: Gold, spec: Spec) -> RunRow:
    """Per-run values of aggregate_metrics.md: raw and clipped score, fail flags, classification.

    raw_score is the sum of the criteria (0..max_score); clipped_score is
    min(raw_score, rubric_ceiling); confidence_unit is confidence/100 exactly.
    """
    raw: int | Fraction = 0
    for _, score in scoring.criterion_scores:
        raw += score
    clipped = raw if raw < gold.rubric_ceiling else gold.rubric_ceiling
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
        ),
        reported_confidence=response.confidence,
        confidence_unit=_CONFIDENCE_UNIT[response.confidence],
        correctness=scoring.correctness,
    )
