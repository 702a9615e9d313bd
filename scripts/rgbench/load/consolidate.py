"""One scoring per run from several: the declared policy, or the adjudicator's grade.

config.yaml's ``consolidation_policy`` names the policy (default ``median``):

Policy ``median-v1`` (``median``; every tie resolved against the subject, i.e. toward the lower score, the
worse class, the fail counted):

- each criterion: the median of the reviewers' scores; with an even number of
  reviewers, the lower of the two middle values (keeps the integer scale);
- automatic fails: every critical fail that any reviewer flags counts; a
  recoverable fail counts when at least half of the reviewers flag it;
- correctness: the value most reviewers gave; a tie goes to the lowest tied value.

Policy ``mean-v1`` (``mean``; the mean of the raters, as published for rating scales):

- each criterion: the exact mean of the reviewers' scores (a Fraction: 4/3 stays 4/3; how a consolidated
  file writes it: :func:`rgbench.stats.agreement_outputs.consolidated_number`);
- automatic fails: as median-v1 (a flag is not a number to average: any critical fail counts, a recoverable
  fail when at least half flag it);
- correctness: the exact mean of the reviewers' correctness (in [0, 1], a value Brier and ECE take as it is).

Under either policy an adjudication (``adjudication-<reviewer>`` file) replaces the policy for its run: the
adjudicator's grade is taken as it is. A run graded once is carried over unchanged. The grade combined by the
policy is by the policy's own reviewer (``consensus`` for median-v1, ``consensus-mean`` for mean-v1), which no
registry needs to hold. The originals are never modified.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from .records import Scoring

if TYPE_CHECKING:
    from .spec import Spec

SINGLE, BY_POLICY, ADJUDICATED = "single", "policy", "adjudication"
MEDIAN, MEAN = "median", "mean"   # config.yaml's consolidation_policy values
FAILS_TEXT = "any critical fail counts, a recoverable fail counts when at least half flag it"


@dataclass(frozen=True)
class Policy:
    """A consolidation policy: its config.yaml ``key``, its versioned ``name`` (recorded in the results), the
    ``reviewer`` id of the grades it combines, what it does in words, and its criterion and correctness rules
    (each takes the reviewers' values, at least one)."""

    key: str
    name: str
    reviewer: str
    text: str
    criterion: Callable[[Sequence[Fraction | int]], Fraction | int]
    correctness: Callable[[Sequence[Fraction]], Fraction]

    @property
    def exact_means(self) -> bool:
        """True when the policy's scores may leave the rubric's integer scale (4/3): the consolidated files
        then hold decimals (:func:`rgbench.load.extract.consolidated_schema`)."""
        return self.key == MEAN


def lower_median(values: Sequence[Fraction | int]) -> Fraction | int:
    """The median of the values; with an even count the lower middle value (median of [1, 2] is 1). Needs values."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    return ordered[(len(ordered) - 1) // 2]


def upper_median(values: Sequence[Fraction | int]) -> Fraction | int:
    """The median of the values; with an even count the upper middle value (median of [1, 2] is 2): against the
    subject on a lower-is-better scale (a penalty). Needs values."""
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def majority_lowest(values: Sequence[Fraction]) -> Fraction:
    """The most frequent value; among equally frequent ones the lowest (majority of [1, 1/2] is 1/2). Needs values."""
    if not values:
        raise ValueError("majority of no values")
    counts = Counter(values)
    top = max(counts.values())
    return min(value for value, count in counts.items() if count == top)


def exact_mean(values: Sequence[Fraction | int]) -> Fraction:
    """The exact mean of the values (mean of [1, 1, 2] is 4/3). Needs values."""
    if not values:
        raise ValueError("mean of no values")
    return Fraction(sum(values, Fraction(0)), len(values))


MEDIAN_V1 = Policy(MEDIAN, "median-v1", "consensus",
                   "median of each criterion (lower middle value when even), " + FAILS_TEXT
                   + ", correctness by majority with ties to the lower value", lower_median, majority_lowest)
MEAN_V1 = Policy(MEAN, "mean-v1", "consensus-mean",
                 "exact mean of each criterion, " + FAILS_TEXT + ", correctness the exact mean", exact_mean, exact_mean)
# median-v1 on a lower-is-better scale (score_direction lower_is_better): its ties still go against the subject,
# which there is the upper middle value (the larger penalty).
MEDIAN_V1_LOWER = Policy(MEDIAN, "median-v1-lower-is-better", "consensus",
                         "median of each criterion (upper middle value when even: lower is better), " + FAILS_TEXT
                         + ", correctness by majority with ties to the lower value", upper_median, majority_lowest)
POLICIES: dict[str, Policy] = {MEDIAN: MEDIAN_V1, MEAN: MEAN_V1}
KNOWN_POLICIES = (MEDIAN_V1, MEAN_V1, MEDIAN_V1_LOWER)


def policy_for(key: str, higher_is_better: bool = True) -> Policy:
    """The policy config.yaml's ``consolidation_policy`` names (``median`` or ``mean``), its ties resolved against
    the subject in the scale's direction: median-v1 takes the lower middle value when higher is better, the upper
    one (:data:`MEDIAN_V1_LOWER`) when lower is better; the mean has no ties."""
    if key == MEDIAN and not higher_is_better:
        return MEDIAN_V1_LOWER
    return POLICIES[key]


def policy_of(spec: Spec) -> Policy:
    """config.yaml's consolidation policy, in the direction of the benchmark's scale (:func:`policy_for`)."""
    return policy_for(spec.stats.consolidation_policy, spec.higher_is_better)
# The default policy's names, as before policies could be chosen.
CONSENSUS = MEDIAN_V1.reviewer


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


def consolidate_run(scorings: Sequence[Scoring], adjudication: Scoring | None = None,
                    policy: Policy = MEDIAN_V1) -> Consolidated:
    """Consolidate the grades of one run (all of the same run key, at least one grade or an adjudication).

    The consolidated reviewer_id is the single reviewer's, the adjudicator's,
    or the policy's reviewer (``consensus``, ``consensus-mean``) when the policy combined several grades;
    that grade's ``comments`` say so and name its graders.
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
    scores = tuple((name, policy.criterion([dict(s.criterion_scores)[name] for s in ordered])) for name in criteria)
    merged = Scoring(
        subject_id=first.subject_id, subject_version=first.subject_version, case_id=first.case_id,
        run_id=first.run_id, reviewer_id=policy.reviewer, criterion_scores=scores,
        fails=consolidated_fails([s.fails for s in ordered]),
        correctness=_correctness(policy, [s.correctness for s in ordered]), path="",
        comments=f"Grades of {', '.join(s.reviewer_id for s in ordered)} combined by policy {policy.name}.",
    )
    return Consolidated(merged, BY_POLICY, sources)


def _correctness(policy: Policy, values: Sequence[Fraction | None]) -> Fraction | None:
    """The policy's correctness of the grades' values; a benchmark that records no correctness (every grade's
    is None) keeps None."""
    recorded = [value for value in values if value is not None]
    return policy.correctness(recorded) if recorded else None


def consolidate_all(scorings: Sequence[Scoring], adjudications: Mapping[tuple[str, str, str], Scoring],
                    policy: Policy = MEDIAN_V1) -> list[Consolidated]:
    """One Consolidated per run that has a grade or an adjudication, sorted by run key."""
    by_run: dict[tuple[str, str, str], list[Scoring]] = {}
    for scoring in scorings:
        by_run.setdefault(scoring.run_key, []).append(scoring)
    return [consolidate_run(by_run.get(key, []), adjudications.get(key), policy)
            for key in sorted(set(by_run) | set(adjudications))]
