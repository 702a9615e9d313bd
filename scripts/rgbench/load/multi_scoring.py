"""The several-reviewers folder: further scorings and adjudications of runs already in the tree.

Layout (same file format as scoring/, validated by the same schema)::

    scoring_multi/<version>/<subject_id>/<case_id>__<run_id>__eval-<reviewer_id>.json
    scoring_multi/<version>/<subject_id>/<case_id>__<run_id>__adjudication-<reviewer_id>.json

An ``eval-`` file is one more reviewer's independent grade of a run; an
``adjudication-`` file is an adjudicator's final grade of a run, which wins
over every other grade when the run is consolidated. compute_metrics never
reads this folder; scripts/aggregate_scoring.py and validate.py do.

It is read by the loader (rgbench.load.loader) with the listing, extraction and checks
of scoring/ and their messages; each file is checked on its own, since scoring/'s
one-scoring-per-run rule is not this folder's. Refused besides: a reviewer grading
the same run twice (here and in scoring/), and two adjudications of one run.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..problems import Problem
from .extract import EVALUATION, extract_files
from .loader import Collector, build_scorings, list_subject_files
from .records import Scoring, Tree
from .spec import Spec

MULTI_DIR = "scoring_multi"
ADJUDICATION = "adjudication-"


@dataclass(frozen=True)
class MultiScorings:
    """Valid extra scorings and adjudications, and the sha256 of every file read (by relative path)."""

    extra: tuple[Scoring, ...]
    adjudications: dict[tuple[str, str, str], Scoring]
    inputs: dict[str, str]


def load_multi(root: Path, spec: Spec, tree: Tree, folder: str = MULTI_DIR) -> tuple[MultiScorings | None, list[Problem]]:
    """Read ``<folder>/<version>/`` under ``root`` against the validated ``tree``: (records, []) or (None, problems).

    A missing folder is no problem (no extra reviewer yet). Grades by ``llm-judge`` reviewers are kept
    (aggregate_scoring sets them apart); a reviewer not in subjects/reviewers.yaml is refused.
    """
    col = Collector(root)
    col.reviewers = tree.reviewers
    jobs = list_subject_files(col, spec, folder, EVALUATION, tree.subjects, reviewer_prefixes=("eval-", ADJUDICATION))
    extracted = extract_files(root, spec, [(entry, kind) for entry, kind, _ in jobs])
    present = {key: tree.inputs[response.path] for key, response in tree.responses.items()}
    gold_digests = {case_id: tree.inputs[gold.path] for case_id, gold in tree.golds.items()}
    graded: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for scoring in tree.scorings:
        graded[scoring.run_key + (scoring.reviewer_id,)].append(scoring.path)
    extra: list[Scoring] = []
    adjudications: dict[tuple[str, str, str], list[Scoring]] = defaultdict(list)
    for job in jobs:
        for scoring in build_scorings(col, spec, [job], extracted, tree.subjects, tree.golds, set(tree.golds),
                                      tree.responses, present, gold_digests):
            if job[0].name.split("__")[2].startswith(ADJUDICATION):
                adjudications[scoring.run_key].append(scoring)
            else:
                graded[scoring.run_key + (scoring.reviewer_id,)].append(scoring.path)
                extra.append(scoring)
    base = f"{folder}/{spec.version_dir}/"
    for (sid, case_id, run_id, reviewer_id), paths in graded.items():
        if len(paths) > 1:
            for rel in paths:
                if rel.startswith(base):
                    col.add(rel, f"reviewer {reviewer_id!r} grades ({sid}, {case_id}, {run_id}) more than once: "
                                 f"{', '.join(sorted(paths))}; keep one grade per reviewer")
    for key, found in adjudications.items():
        if len(found) > 1:
            listed = ", ".join(sorted(s.path for s in found))
            for scoring in found:
                col.add(scoring.path, f"more than one adjudication of {key}: {listed}; keep one")
    if col.problems:
        return None, sorted(set(col.problems))
    return MultiScorings(
        extra=tuple(sorted(extra, key=lambda s: (s.run_key, s.reviewer_id))),
        adjudications={key: found[0] for key, found in sorted(adjudications.items())},
        inputs={rel: digest for rel, (digest, _, _) in sorted(extracted.items()) if digest},
    ), []
