"""One scoring per run from several: the declared policy, or the adjudicator's grade.

Policy ``median-v1`` (every tie resolved against the subject, i.e. toward the
lower score, the worse class, the fail counted):

- each criterion: the median of the reviewers' scores; with an even number of
  reviewers, the lower of the two middle values (keeps the integer scale);
- automatic fails: every critical fail that any reviewer flags counts; a
  recoverable fail counts when at least half of the reviewers flag it;
- correctness: the value most reviewers gave; a tie goes to the lowest tied value.

An adjudication (``adjudication-<reviewer>`` file) replaces the policy for its
run: the adjudicator's grade is taken as it is. A run graded once is carried
over unchanged. The originals are never modified.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..load.records import Scoring

POLICY = "median-v1"
POLICY_TEXT = ("median of each criterion (lower middle value when even), any critical fail counts, a recoverable "
               "fail counts when at least half flag it, correctness by majority with ties to the lower value")
CONSENSUS = "consensus"
SINGLE, BY_POLICY, ADJUDICATED = "single", "policy", "adjudication"


def lower_median(values: Sequence[int]) -> int:
    """The median of integers; with an even count the lower middle value (median of [1, 2] is 1). Needs values."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    return ordered[(len(ordered) - 1) // 2]


def majority_lowest(values: Sequence[Fraction]) -> Fraction:
    """The most frequent value; among equally frequent ones the lowest (majority of [1, 1/2] is 1/2). Needs values."""
    if not values:
        raise ValueError("majority of no values")
    counts = Counter(values)
    top = max(counts.values())
    return min(value for value, count in counts.items() if count == top)


def consolidated_fails(fail_lists: Sequence[Sequence[tuple[str, str]]]) -> tuple[tuple[str, str], ...]:
    """Critical codes flagged by anyone, recoverable codes flagged by at least half; sorted by code."""
    m = len(fail_lists)
    counts = Counter(fail for fails in fail_lists for fail in set(fails))
    kept = [(code, severity) for (code, severity), count in counts.items()
            if severity == "critical" or 2 * count >= m]
    return tuple(sorted(kept))


@dataclass(frozen=True)
class Consolidated:
    """The one scoring of a run that compute_metrics --scoring-dir reads, and where it came from."""

    scoring: Scoring  # path is the source path for SINGLE and ADJUDICATED, "" for BY_POLICY
    method: str  # SINGLE, BY_POLICY or ADJUDICATED
    sources: tuple[str, ...]  # relative paths of every grade of the run, adjudication last


def consolidate_run(scorings: Sequence[Scoring], adjudication: Scoring | None = None) -> Consolidated:
    """Consolidate the grades of one run (all of the same run key, at least one grade or an adjudication).

    The consolidated reviewer_id is the single reviewer's, the adjudicator's,
    or ``consensus`` when the policy combined several grades.
    """
    ordered = sorted(scorings, key=lambda s: s.reviewer_id)
    sources = tuple(s.path for s in ordered) + ((adjudication.path,) if adjudication else ())
    if adjudication is not None:
        return Consolidated(adjudication, ADJUDICATED, sources)
    if not ordered:
        raise ValueError("a run needs at least one grade")
    if len(ordered) == 1:
        return Consolidated(ordered[0], SINGLE, sources)
    first = ordered[0]
    criteria = [name for name, _ in first.criterion_scores]
    scores = tuple((name, lower_median([dict(s.criterion_scores)[name] for s in ordered])) for name in criteria)
    merged = Scoring(
        subject_id=first.subject_id, subject_version=first.subject_version, case_id=first.case_id,
        run_id=first.run_id, reviewer_id=CONSENSUS, criterion_scores=scores,
        fails=consolidated_fails([s.fails for s in ordered]),
        correctness=None if first.correctness is None else majority_lowest(
            [s.correctness for s in ordered if s.correctness is not None]),
        path="",
    )
    return Consolidated(merged, BY_POLICY, sources)


def consolidate_all(scorings: Sequence[Scoring],
                    adjudications: Mapping[tuple[str, str, str], Scoring]) -> list[Consolidated]:
    """One Consolidated per run that has a grade or an adjudication, sorted by run key."""
    by_run: dict[tuple[str, str, str], list[Scoring]] = {}
    for scoring in scorings:
        by_run.setdefault(scoring.run_key, []).append(scoring)
    return [consolidate_run(by_run.get(key, []), adjudications.get(key)) for key in sorted(set(by_run) | set(adjudications))]
