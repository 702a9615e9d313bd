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
from collections.abc import Collection, Iterable, Mapping, MutableMapping
from fractions import Fraction
from math import floor
from pathlib import Path
from typing import Any, NamedTuple

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
        kept = sorted((key for key in strata[stratum] if key in earlier),
                      key=lambda k: (done_by(k) is None, k))[:counts[stratum]]
        taken = set(kept)
        rest = [key for key in strata[stratum] if key not in taken]
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
            named[key] = least_loaded(eligible, load)
    return items(named)


def least_loaded(humans: Iterable[str], load: MutableMapping[str, int]) -> str:
    """The human of ``humans`` with the fewest runs in ``load`` (ties: id order), counted one more there: the one rule
    by which ``rgbench assign`` names a reviewer (second grades, drawn runs, --reassign)."""
    who = min(humans, key=lambda h: (load[h], h))
    load[who] += 1
    return who


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
    pending = waiting(earlier, graded_by)
    load = Counter(pending.values())
    out, stuck = dict(earlier), []
    for key in sorted(k for k, who in pending.items() if who == away):
        busy = graded_by.get(key, set()) | {first_reviewer.get(key, "")}
        eligible = [h for h in sorted(humans) if h != away and h not in busy]
        if eligible:
            out[key] = least_loaded(eligible, load)
        else:
            stuck.append(key)
    return out, stuck


def waiting(named: Mapping[RunKey, str], graded_by: Mapping[RunKey, set[str]]) -> dict[RunKey, str]:
    """The second grades still waiting: the runs of ``named`` (run -> reviewer) their reviewer has not graded."""
    return {key: who for key, who in named.items() if who not in graded_by.get(key, set())}


def assignments_document(share: Fraction, assignments: list[dict[str, str]], population: int) -> bytes:
    """The file's canonical bytes (sorted keys, 2-space indent, final newline)."""
    document = {"assignments": assignments, "graded_runs": population, "share": str(share),
                "stratified_by": ["family", "subject_id"]}
    return (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


class Assignments(NamedTuple):
    """The file as read: ``names`` run -> reviewer; its ``share`` and ``population`` (graded runs) as it wrote them,
    None when they do not read so (a hand-edited file: ``rgbench assign --share S`` writes it anew)."""

    names: dict[RunKey, str]
    share: Fraction | None = None
    population: int | None = None


def read_file(root: Path) -> tuple[Assignments, list[Problem]]:
    """The file (empty :class:`Assignments` and [] when there is none; empty and problems when it is unusable). The
    share is read only as the file writes it (``1/5``, at most 9 digits each side), never as an exponent that
    ``Fraction`` would expand."""
    if not (Path(root) / ASSIGNMENTS_FILE).exists():
        return Assignments({}), []
    data, problems = read_single_file(root, ASSIGNMENTS_FILE)
    if data is None:
        return Assignments({}), problems
    try:
        document = loads_json_strict(decode_utf8(data))
    except ParseError as exc:
        return Assignments({}), [Problem(ASSIGNMENTS_FILE, str(exc))]
    items = document.get("assignments") if isinstance(document, dict) else None
    keys = ("subject_id", "case_id", "run_id", "reviewer_id")
    if not isinstance(items, list) or not all(isinstance(i, dict) and all(isinstance(i.get(k), str) for k in keys)
                                              for i in items):
        return Assignments({}), [Problem(ASSIGNMENTS_FILE, "$.assignments: expected a list of {subject_id, case_id, "
                                                           "run_id, reviewer_id} (regenerate it with rgbench assign)")]
    share, population = document.get("share"), document.get("graded_runs")
    readable = (isinstance(share, str) and re.fullmatch(r"[1-9][0-9]{0,8}(/[1-9][0-9]{0,8})?", share)
                and type(population) is int)
    return Assignments({(i["subject_id"], i["case_id"], i["run_id"]): i["reviewer_id"] for i in items},
                       Fraction(share) if readable else None, population if readable else None), []


def drawn_assignments(draws: HumanDraws | None) -> dict[RunKey, str]:
    """Judge-assisted mode's drawn runs -> the human each draw named to grade it, in draw order (draw number, then
    the draw's order; a run named again keeps its first place): what the grading page queues."""
    named: dict[RunKey, str] = {}
    for draw in draws.draws if draws else ():
        for run in draw.runs:
            if run.reviewer_id and run.key not in named:
                named[run.key] = run.reviewer_id
    return named
