"""Typed records of the validated inputs. Loaders build them; everything downstream reads them.

The per-file records are immutable named tuples: a large tree holds hundreds of
thousands of them, and they build about twice as fast as frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .draws import HumanDraws
    from .reviewers import Reviewer


class Gold(NamedTuple):
    """The metric-relevant part of a case's gold file."""

    case_id: str
    family: str
    case_type: str | None        # None (and the next three): the gold schema does not record it
    rubric_floor: int | Fraction | None     # on the total's scale, in its direction (rgbench.load.scale)
    rubric_ceiling: int | Fraction | None
    difficulty: int | None
    path: str
    tags: tuple[str, ...] = ()   # the gold's optional keywords, as listed
    title: str = ""


@dataclass(frozen=True)
class Subject:
    """A registered leaderboard slot and the version being scored; ``extra`` keeps the other registry fields."""

    subject_id: str
    subject_version: str
    extra: tuple[tuple[str, Any], ...] = ()


class ResponseMeta(NamedTuple):
    """What a response declares about how it was produced (issue 15); None where not declared."""

    status: str = "answered"          # answered | refused | error (error runs are left out of N)
    participant: str | None = None    # the panel member of a human baseline
    input_tokens: int | None = None
    output_tokens: int | None = None
    temperature: str | None = None    # as written in generation_parameters
    max_tokens: int | None = None
    generated_on: str | None = None
    empty_answer: bool = False        # response_text is empty or only whitespace: graded like any answer


ANSWERED = ResponseMeta()


class Response(NamedTuple):
    """One subject's answer to one case in one run (the text itself is not needed by the metrics)."""

    subject_id: str
    subject_version: str
    case_id: str
    run_id: str
    confidence: int | None   # None: the response schema does not record confidence
    path: str
    meta: ResponseMeta = ANSWERED  # status, participant, usage, settings


class Scoring(NamedTuple):
    """One reviewer's grade of one response."""

    subject_id: str
    subject_version: str
    case_id: str
    run_id: str
    reviewer_id: str
    criterion_scores: tuple[tuple[str, int | Fraction], ...]   # exact; a Fraction for a decimal score
    fails: tuple[tuple[str, str], ...]  # (code, severity), sorted
    correctness: Fraction | None   # None: the evaluation schema does not record correctness
    path: str
    comments: str = ""   # the reviewer's free text, shown by the leaderboard's case explorer

    @property
    def run_key(self) -> tuple[str, str, str]:
        return (self.subject_id, self.case_id, self.run_id)


@dataclass(frozen=True)
class Tree:
    """A fully validated benchmark tree."""

    subjects: dict[str, Subject]
    golds: dict[str, Gold]
    responses: dict[tuple[str, str, str], Response]  # (subject_id, case_id, run_id)
    scorings: tuple[Scoring, ...]
    inputs: dict[str, str]  # relative path -> sha256 of its bytes
    # subjects/reviewers.yaml as read with the tree; None when the tree has no such file (no reviewer is checked)
    reviewers: dict[str, Reviewer] | None
    # subjects/human_draws.json in judge-assisted mode (rgbench.load.draws); None: human mode or no draw yet
    draws: HumanDraws | None = None
