"""Second grades by design: a stratified, seeded sample of graded runs, each assigned to a second reviewer.

``rgbench assign --share S`` writes ``subjects/second_reviews.json``; the grading page reads it and
queues each assigned run for its reviewer, whose grade goes to ``scoring_multi/``. Agreement is then
measured on a planned sample, not on whoever felt like grading twice.

Sampling: the runs that have their first grade in ``scoring/`` are grouped into strata by (family,
subject). The sample size is round-half-up(S · N) over all N runs, shared between the strata by the
largest-remainder method on S · N_stratum (every stratum gets the floor or the ceiling of its share,
remainder ties broken by stratum order), and drawn within each stratum by ``random.Random(seed)``,
seeded from the sha256 of the share and the sorted population.

A rerun keeps what the file already holds (run it again as first grades arrive): every run it assigns that
still has its one first grade stays in the sample, up to its stratum's count (a lower share keeps first the
runs whose second grade is given, then the others in run order), and only the rest of each stratum's count is
drawn, from the runs not in the sample. Who grades a run, in this order: the human who already gave it a
second grade (nothing more is asked); the reviewer the file names, while they may still grade it and are not
marked ``away: true`` in subjects/reviewers.yaml; else the registered human not marked away, other than its
first reviewer and anyone who already graded it, with the fewest assignments so far (ties: reviewer id
order). So the same inputs, share and file give the same bytes, a rerun asks nobody for a third grade, and a
name changed by ``rgbench assign --reassign`` stays.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping
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
           graded_by: Mapping[RunKey, set[str]], share: Fraction,
           earlier: Mapping[RunKey, str] | None = None, away: Collection[str] = ()) -> list[dict[str, str]]:
    """The assignments (subject_id, case_id, run_id, reviewer_id), sorted by run.

    ``first_reviewer``: each graded run's reviewer in scoring/; ``families``: each run's family;
    ``humans``: the registered human reviewer ids; ``graded_by``: every reviewer who graded each run
    (scoring/ and scoring_multi/); ``earlier``: the file's assignments as it stands (run -> reviewer), kept as
    the module docstring says; ``away``: the humans marked away, named for no run still waiting (a second grade
    they gave stays theirs). A sampled run no eligible reviewer can take is left out.
    """
    earlier = earlier or {}
    humans = sorted(humans)
    def done_by(key: RunKey) -> str | None:
        """The human other than the first reviewer who already gave ``key`` its second grade (the named one first)."""
        given = sorted(h for h in graded_by.get(key, set()) if h in humans and h != first_reviewer[key])
        return earlier.get(key) if earlier.get(key) in given else (given[0] if given else None)
    strata: dict[tuple[str, str], list[RunKey]] = defaultdict(list)
    for key in sorted(first_reviewer):
        strata[(families[key], key[0])].append(key)
    counts = allocate({stratum: len(keys) for stratum, keys in strata.items()}, share)
    rng = random.Random(sample_seed(share, first_reviewer))
    sampled = []
    for stratum in sorted(strata):
        kept = sorted((key for key in strata[stratum] if key in earlier), key=lambda k: (done_by(k) is None, k))
        kept = kept[:counts[stratum]]
        rest = [key for key in strata[stratum] if key not in kept]
        sampled += kept + rng.sample(rest, counts[stratum] - len(kept))
    load = {reviewer: 0 for reviewer in humans if reviewer not in away}   # who may be named for a run still waiting
    named: dict[RunKey, str] = {}
    for key in sorted(sampled):   # the names that stay first, so the new runs go to the least loaded after them
        busy = graded_by.get(key, set()) | {first_reviewer[key]}
        who = done_by(key) or (earlier.get(key) if earlier.get(key) in load and earlier[key] not in busy else None)
        if who is not None:
            named[key] = who
            if who in load:
                load[who] += 1
    for key in sorted(set(sampled) - named.keys()):
        busy = graded_by.get(key, set()) | {first_reviewer[key]}
        eligible = [reviewer for reviewer in load if reviewer not in busy]
        if eligible:
            named[key] = min(eligible, key=lambda r: (load[r], r))
            load[named[key]] += 1
    return items(named)


def items(names: Mapping[RunKey, str]) -> list[dict[str, str]]:
    """The file's assignments (subject_id, case_id, run_id, reviewer_id) of ``names`` (run -> reviewer), by run."""
    return [{"case_id": key[1], "reviewer_id": who, "run_id": key[2], "subject_id": key[0]}
            for key, who in sorted(names.items())]


def reassigned(earlier: Mapping[RunKey, str], away: str, first_reviewer: Mapping[RunKey, str],
               humans: Iterable[str], graded_by: Mapping[RunKey, set[str]]) -> tuple[dict[RunKey, str], list[RunKey]]:
    """``--reassign`` in human mode: (the assignments with each run waiting for ``away``'s second grade named
    instead for the human of ``humans`` other than them, its first reviewer and anyone who graded it, with the
    fewest second grades waiting (ties: id order), in run order; the waiting runs nobody else may take, which keep
    their name). A run waits for its reviewer while they have not graded it."""
    waiting = Counter(who for key, who in earlier.items() if who not in graded_by.get(key, set()))
    load = {h: waiting[h] for h in sorted(humans) if h != away}
    out, stuck = dict(earlier), []
    for key in sorted(k for k, who in earlier.items() if who == away and away not in graded_by.get(k, set())):
        busy = graded_by.get(key, set()) | {first_reviewer.get(key, "")}
        eligible = [h for h in load if h not in busy]
        if not eligible:
            stuck.append(key)
            continue
        out[key] = min(eligible, key=lambda h: (load[h], h))
        load[out[key]] += 1
    return out, stuck


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


def with_names(root: Path, names: Mapping[RunKey, str]) -> bytes | None:
    """The file's canonical bytes with ``names`` (run -> reviewer) as its assignments, its share and count of
    graded runs kept; None when the file gives no share and count to keep (regenerate it with rgbench assign)."""
    try:
        document = loads_json_strict(decode_utf8(read_single_file(root, ASSIGNMENTS_FILE)[0] or b""))
        share, population = document["share"], document["graded_runs"]
    except (ParseError, TypeError, KeyError):
        return None
    if not (isinstance(share, str) and re.fullmatch(r"[1-9][0-9]{0,8}(/[1-9][0-9]{0,8})?", share)
            and type(population) is int):   # bounded digits: as the file writes a share (1/5), never an exponent
        return None
    return assignments_document(Fraction(share), items(names), population)


def drawn_assignments(draws: HumanDraws | None) -> dict[RunKey, str]:
    """Judge-assisted mode's drawn runs -> the human each draw named to grade it, in draw order (draw number, then
    the draw's order; a run named again keeps its first place): what the grading page queues."""
    named: dict[RunKey, str] = {}
    for draw in draws.draws if draws else ():
        for run in draw.runs:
            if run.reviewer_id and run.key not in named:
                named[run.key] = run.reviewer_id
    return named
