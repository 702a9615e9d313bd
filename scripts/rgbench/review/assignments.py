"""Second grades by design: a stratified, seeded sample of graded runs, each assigned to a second reviewer.

``rgbench assign --share S`` writes ``subjects/second_reviews.json``; the grading page reads it and
queues each assigned run for its reviewer, whose grade goes to ``scoring_multi/``. Agreement is then
measured on a planned sample, not on whoever felt like grading twice.

Sampling: the runs that have their first grade in ``scoring/`` are grouped into strata by (family,
subject). The sample size is round-half-up(S · N) over all N runs, shared between the strata by the
largest-remainder method on S · N_stratum (every stratum gets the floor or the ceiling of its share,
remainder ties broken by stratum order), and drawn within each stratum by ``random.Random(seed)``,
seeded from the sha256 of the share and the sorted population (so the sample changes only when the
graded runs or the share change). Each sampled run goes to the registered human reviewer, other
than its first reviewer and anyone who already graded it, with the fewest assignments so far
(ties: reviewer id order).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping
from fractions import Fraction
from math import floor
from pathlib import Path
from typing import Any

from ..load.draws import HumanDraws
from ..load.parsing import ParseError, decode_utf8, loads_json_strict
from ..load.reviewers import ASSIGNMENTS_FILE
from ..load.safe_read import read_single_file
from ..problems import Problem
from .runs import RunKey


def allocate(sizes: Mapping[Any, int], share: Fraction) -> dict[Any, int]:
    """Per-stratum sample sizes: largest remainder on share · size, total round-half-up(share · Σ size).

    Ties of remainders go to the earlier stratum in sorted order. A stratum never gets more than its size.
    """
    quotas = {stratum: share * size for stratum, size in sorted(sizes.items())}
    total = floor(share * sum(sizes.values()) + Fraction(1, 2))
    counts = {stratum: floor(quota) for stratum, quota in quotas.items()}
    left = total - sum(counts.values())
    by_remainder = sorted(quotas, key=lambda s: -(quotas[s] - counts[s]))  # stable: sorted strata first
    for stratum in by_remainder[:max(left, 0)]:
        counts[stratum] += 1
    return counts


def sample_seed(share: Fraction, population: Iterable[RunKey]) -> int:
    digest = hashlib.sha256(f"assign:{share}\n".encode())
    for key in sorted(population):
        digest.update(("\x00".join(key) + "\n").encode("utf-8"))
    return int.from_bytes(digest.digest()[:8], "big")


def assign(first_reviewer: Mapping[RunKey, str], families: Mapping[RunKey, str], humans: Iterable[str],
           graded_by: Mapping[RunKey, set[str]], share: Fraction) -> list[dict[str, str]]:
    """The assignments (subject_id, case_id, run_id, reviewer_id), sorted by run.

    ``first_reviewer``: each graded run's reviewer in scoring/; ``families``: each run's family;
    ``humans``: the registered human reviewer ids; ``graded_by``: every reviewer who graded each run
    (scoring/ and scoring_multi/). A sampled run no eligible reviewer can take is left out.
    """
    strata: dict[tuple[str, str], list[RunKey]] = defaultdict(list)
    for key in sorted(first_reviewer):
        strata[(families[key], key[0])].append(key)
    counts = allocate({stratum: len(keys) for stratum, keys in strata.items()}, share)
    rng = random.Random(sample_seed(share, first_reviewer))
    sampled = sorted(key for stratum in sorted(strata) for key in rng.sample(strata[stratum], counts[stratum]))
    load = {reviewer: 0 for reviewer in sorted(humans)}
    out = []
    for key in sampled:
        busy = graded_by.get(key, set()) | {first_reviewer[key]}
        eligible = [reviewer for reviewer in load if reviewer not in busy]
        if not eligible:
            continue
        chosen = min(eligible, key=lambda r: (load[r], r))
        load[chosen] += 1
        out.append({"case_id": key[1], "reviewer_id": chosen, "run_id": key[2], "subject_id": key[0]})
    return out


def assignments_document(share: Fraction, assignments: list[dict[str, str]], population: int) -> bytes:
    """The file's canonical bytes (sorted keys, 2-space indent, final newline)."""
    document = {"assignments": assignments, "graded_runs": population, "share": str(share),
                "stratified_by": ["family", "subject_id"]}
    return (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def read_assignments(root: Path) -> tuple[dict[RunKey, str], list[Problem]]:
    """Assigned second reviewer by run; ({}, []) when there is no file; problems when it is unusable."""
    if not (Path(root) / ASSIGNMENTS_FILE).exists():
        return {}, []
    data, problems = read_single_file(root, ASSIGNMENTS_FILE)
    if data is None:
        return {}, problems
    try:
        document = loads_json_strict(decode_utf8(data))
    except ParseError as exc:
        return {}, [Problem(ASSIGNMENTS_FILE, str(exc))]
    items = document.get("assignments") if isinstance(document, dict) else None
    keys = ("subject_id", "case_id", "run_id", "reviewer_id")
    if not isinstance(items, list) or not all(isinstance(i, dict) and all(isinstance(i.get(k), str) for k in keys)
                                              for i in items):
        return {}, [Problem(ASSIGNMENTS_FILE, "$.assignments: expected a list of {subject_id, case_id, run_id, "
                                              "reviewer_id} (regenerate it with rgbench assign)")]
    return {(i["subject_id"], i["case_id"], i["run_id"]): i["reviewer_id"] for i in items}, []


def drawn_assignments(draws: HumanDraws | None) -> dict[RunKey, str]:
    """Judge-assisted mode's drawn runs -> the human each draw named to grade it, in draw order (draw number, then
    the draw's order; a run named again keeps its first place): what the grading page queues."""
    named: dict[RunKey, str] = {}
    for draw in draws.draws if draws else ():
        for run in draw.runs:
            if run.reviewer_id and run.key not in named:
                named[run.key] = run.reviewer_id
    return named
