"""The runs a reviewer still has to grade: first grades (no scoring in ``scoring/`` yet) and the second
grades assigned to them (``subjects/second_reviews.json``), in a seeded shuffle per reviewer; in judge-assisted
mode the drawn runs assigned to them (``subjects/human_draws.json``) first, in draw order, and no other first grade.

Blind by design: a run is named on the page by an opaque handle (a hash of the reviewer and the run
key), so neither the URL nor the queue shows the subject.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..load.records import Tree

FIRST, SECOND = "first", "second"
RunKey = tuple[str, str, str]  # (subject_id, case_id, run_id)
ERROR_STATUS = "error"
# the loader's words for a scoring of such a run (load/loader.py build_scorings), from the page's side
ERROR_RUN = ("this run's response has status error (an API or harness failure, no answer to grade): it is never "
             "queued and never graded, since `make validate` refuses a scoring of it (correct the response's "
             "status if it did answer)")


@dataclass(frozen=True)
class QueuedRun:
    """One run to grade. ``role`` is ``first`` (goes to scoring/) or ``second`` (goes to scoring_multi/)."""

    handle: str
    key: RunKey
    family: str
    difficulty: int | None   # None (and case_type): the benchmark does not record it
    case_type: str | None
    role: str

    @property
    def case_id(self) -> str:
        return self.key[1]

    @property
    def run_id(self) -> str:
        return self.key[2]


def run_handle(reviewer_id: str, key: RunKey) -> str:
    """A stable, opaque 16-hex-digit name of ``key`` for this reviewer (hides the subject id)."""
    return hashlib.sha256("\x00".join((reviewer_id, *key)).encode("utf-8")).hexdigest()[:16]


def reviewer_seed(reviewer_id: str) -> int:
    """The shuffle's seed: the first 8 bytes of sha256("review-queue:" + reviewer id)."""
    return int.from_bytes(hashlib.sha256(f"review-queue:{reviewer_id}".encode()).digest()[:8], "big")


def build_queue(tree: Tree, reviewer_id: str, graded_first: Iterable[RunKey],
                graded_by_reviewer: Iterable[RunKey], assigned: Iterable[RunKey],
                drawn: Sequence[RunKey] | None = None) -> list[QueuedRun]:
    """The reviewer's queue in a seeded shuffle (the same order every session for one reviewer).

    ``graded_first``: runs with a scoring in scoring/ (anyone's); ``graded_by_reviewer``: runs this
    reviewer graded anywhere; ``assigned``: runs assigned to this reviewer for a second grade. A run
    without a first grade is queued as ``first``; an assigned run that has its first grade, by someone
    else, and no grade by this reviewer is queued as ``second``. A run whose response has status
    ``error`` is never queued (:data:`ERROR_RUN`).

    ``drawn`` (judge-assisted mode; None in human mode): the drawn runs assigned to this reviewer that no human
    has graded yet, in draw order. They come first, in that order (``first`` when scoring/ has no grade of the
    run, else ``second``, beside the judge's), then the second grades; no other run is open for a first grade.
    """
    first = set(graded_first)
    mine = set(graded_by_reviewer)
    wanted = set(assigned)
    queue = []
    for key, response in sorted(tree.responses.items()):
        if key in mine or response.meta.status == ERROR_STATUS:
            continue
        if key not in first and drawn is None:
            role = FIRST
        elif key in wanted and key in first:
            role = SECOND
        else:
            continue
        queue.append(_queued(tree, reviewer_id, key, role))
    random.Random(reviewer_seed(reviewer_id)).shuffle(queue)
    head = [_queued(tree, reviewer_id, key, SECOND if key in first else FIRST) for key in drawn or ()
            if key not in mine and tree.responses[key].meta.status != ERROR_STATUS]
    return head + [run for run in queue if run.key not in set(drawn or ())]


def _queued(tree: Tree, reviewer_id: str, key: RunKey, role: str) -> QueuedRun:
    gold = tree.golds[key[1]]
    return QueuedRun(run_handle(reviewer_id, key), key, gold.family, gold.difficulty, gold.case_type, role)


def filtered(queue: list[QueuedRun], filters: Mapping[str, str]) -> list[QueuedRun]:
    """The runs matching every given filter (``family``, ``difficulty``, ``case_type``; "" means any)."""
    return [run for run in queue if all(str(getattr(run, key)) == filters[key] for key in
                                        ("family", "difficulty", "case_type") if filters.get(key, ""))]
