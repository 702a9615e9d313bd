"""Where every random draw comes from: the declared seed, the stream's label and the parsed data it resamples.

Every stream is ``numpy.random.Generator(PCG64(SeedSequence(words)))`` with ``words`` the eight 32-bit
big-endian words of sha256(``label`` + ``\\n`` + the digests sorted and joined by ``\\n``) (:func:`generator`).
Each digest is sha256 of the **canonical text** (:func:`canonical_text`) of a list that starts with the
declared seed (config.yaml ``seed``, a non-negative integer, default 0: changing it is the one declared way to
re-draw) and holds the parsed values and ids the stream resamples, never file bytes, paths, prose, JSON
formatting, file order or run labels. So appending prose to aggregate_metrics.md, the rubric, a README or
docs/, re-indenting a scoring (same JSON value), editing a reviewer's free-text comments, listing files in
another order, or renaming or reordering the runs of a case (same values) changes no draw, hence no byte of
any results CSV.

**Canonical text** (:func:`canonical_text`): JSON without spaces, keys sorted, after :func:`canonical`
turns every value into a JSON value: a whole number (int, or a Fraction with denominator 1) is an integer, any
other Fraction the string ``"p/q"`` in lowest terms, a bool true/false, None null, a tuple or list a list. So
``7``, ``7.0`` and ``14/2`` in a scoring are the same value, and ``7.5`` and ``15/2`` are too.

**A subject's digest** (:func:`subject_digests`; every stream of one subject: ``subject``, ``family:<code>``,
``difficulty:<d>``, ``criteria``, ``tag:<t>``, ``case_type:<t>``, ``advanced``, and with the
others ``ranks`` and ``difficulty:<d>`` of ``ALL``) is over ``["subject", seed, subject_id, cases]`` with
``cases`` one entry per case with a scored run of the subject, sorted by case id:
``[case_id, [family, difficulty, case_type, tags sorted], runs]``, the gold fields that group cases (the
gold's prose, title and path do not enter), and ``runs`` the sorted multiset (sorted by canonical text) of
the case's scored runs (one per grade the board counts: with ``board_grades: consolidated`` the consolidated
grade), each ``[raw_score, rubric_floor, rubric_ceiling, clipped_score, has_critical_fail,
has_recoverable_fail, classification, reported_confidence, correctness, criterion scores]`` with the
criterion scores as ``[name, score]`` pairs sorted by name (:func:`run_text`). Those are every value a
subject's streams resample: scores, pass, correctness, confidence, the fails (as the two flags the figures
use; a fail's code does not enter), the criterion scores. Run ids, reviewer ids, the subject's version,
the response text and the reviewer's comments do not enter. Another subject's runs and the registry are not
in it either, so a change to one subject's data leaves every other subject's draws, hence its rows,
byte-identical (rank sets and Holm's adjusted p-values are joint by nature).

**The pairs' streams** (:func:`rgbench.stats.pairwise.pair_stream`) take :func:`seed_digest` (the declared
seed alone) and the pair's shared case ids; no golds, no system/. **The agreement and judge streams** take
the declared seed and the values their row resamples (:func:`rgbench.stats.agreement_bootstrap.units_digest`,
:func:`grades_digest`); the difficulty separation's, the seed and its (difficulty, pass rate) pairs.

The manifest still hashes every input file (results/manifest.json ``inputs``): that is provenance (are the
results current?), not seeding.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:   # only for the annotations: seeds stays importable without the compute package
    from ..compute.derive import RunRow
    from ..load.records import Gold, Scoring


def canonical(value: Any) -> Any:
    """``value`` as a JSON value, canonically: a whole number (int or Fraction with denominator 1) an int,
    another Fraction ``"p/q"`` (lowest terms), a bool, None and a str as they are, a tuple or list a list.
    Raises TypeError on anything else (a float would make the text depend on its printing)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, (tuple, list)):
        return [canonical(v) for v in value]
    raise TypeError(f"no canonical form for {type(value).__name__}")


def canonical_text(value: Any) -> str:
    """The canonical text of ``value``: ``json.dumps(canonical(value), ensure_ascii=False, separators=(",", ":"))``,
    built directly (it is called for every unit of every agreement row)."""
    if type(value) in (list, tuple):
        return "[" + ",".join(map(canonical_text, value)) + "]"
    return _text(value)


def data_digest(value: Any) -> str:
    """Hex sha256 of :func:`canonical_text` of ``value`` (the list a stream's digest is over)."""
    return hashlib.sha256(canonical_text(value).encode("utf-8")).hexdigest()


def seed_digest(seed: int) -> str:
    """The digest of the declared seed alone (``["seed", seed]``): the pairs' streams add their case ids."""
    return data_digest(["seed", seed])


def _text(value: Any) -> str:
    """:func:`canonical_text` of a scalar, directly (the subject digests encode ~10⁶ values on a large board)."""
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is Fraction:
        return str(value.numerator) if value.denominator == 1 else f'"{value.numerator}/{value.denominator}"'
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is str:
        return _string(value)
    if isinstance(value, (list, tuple)):
        return canonical_text(value)
    if isinstance(value, bool):   # subclasses: as the JSON value they stand for
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, Fraction):
        return _text(Fraction(value))
    if isinstance(value, str):
        return _string(str(value))
    raise TypeError(f"no canonical form for {kind.__name__}")


@functools.lru_cache(maxsize=4096)
def _string(value: str) -> str:
    """A string's JSON text (few distinct ones: case ids, criterion names, labels)."""
    return json.dumps(value, ensure_ascii=False)


@functools.lru_cache(maxsize=65536)
def _criteria_text(criterion_scores: tuple) -> str:
    """The canonical text of a run's criterion scores as [name, score] pairs sorted by name."""
    return "[" + ",".join(f"[{_string(name)},{_text(score)}]" for name, score in sorted(criterion_scores)) + "]"


def run_text(row: RunRow, criterion_scores: Iterable[tuple[str, int | Fraction]]) -> str:
    """:func:`canonical_text` of the run's values in the module doc's order (the same string, built directly: it is
    the hot loop; tests/reference_stats.py's ``run_values`` builds the list)."""
    values = (row.raw_score, row.rubric_floor, row.rubric_ceiling, row.clipped_score, row.has_critical_fail,
              row.has_recoverable_fail, row.classification, row.reported_confidence, row.correctness)
    return "[" + ",".join(map(_text, values)) + "," + _criteria_text(tuple(criterion_scores)) + "]"


def case_fields(gold: Gold) -> list:
    """The gold fields that group a case: family, difficulty, case type, tags (sorted)."""
    return [gold.family, gold.difficulty, gold.case_type, sorted(gold.tags)]


def subject_text(subject_id: str, seed: int, runs: Iterable[tuple[str, str]], golds: Mapping[str, Gold],
                 heads: dict[str, str] | None = None) -> str:
    """:func:`canonical_text` of ``["subject", seed, subject_id, cases]`` from the subject's runs as (case_id,
    :func:`run_text`): one entry per case, sorted by case id, ``[case_id, case_fields, runs]`` with its runs a
    sorted multiset (sorted by their canonical text). ``heads`` caches each case's ``case_id,case_fields``."""
    heads = {} if heads is None else heads
    by_case: dict[str, list[str]] = defaultdict(list)
    for case_id, text in runs:
        by_case[case_id].append(text)
    parts = []
    for case_id, texts in sorted(by_case.items()):
        head = heads.get(case_id)
        if head is None:
            head = heads[case_id] = f"{_string(case_id)},{canonical_text(case_fields(golds[case_id]))}"
        parts.append(f"[{head},[{','.join(sorted(texts))}]]")
    return f'["subject",{_text(seed)},{_string(subject_id)},[{",".join(parts)}]]'


def subject_digests(seed: int, runs_of: Mapping[str, Sequence[RunRow]], scorings: Iterable[Scoring],
                    golds: Mapping[str, Gold]) -> dict[str, str]:
    """Subject id -> its digest (the module doc: sha256 of :func:`subject_text`), for every subject of
    ``runs_of`` (its scored runs, as derived from ``scorings``: the grades the board counts, one run row per
    grade)."""
    criteria: dict[tuple[str, str, str, str], tuple] = {
        (s.subject_id, s.case_id, s.run_id, s.reviewer_id): s.criterion_scores for s in scorings}
    heads: dict[str, str] = {}
    out = {}
    for sid, rows in runs_of.items():
        runs = [(r.case_id, run_text(r, criteria.get((r.subject_id, r.case_id, r.run_id, r.reviewer_id), ())))
                for r in rows]
        out[sid] = hashlib.sha256(subject_text(sid, seed, runs, golds, heads).encode("utf-8")).hexdigest()
    return out


def grades_digest(seed: int, grades: Iterable[Scoring], adjudications: Iterable[Scoring] = ()) -> str:
    """The digest of the reviewer report's and the judge's streams: ``["grades", seed, runs]``, ``runs`` the
    sorted multiset of the runs graded, each ``[subject_id, case_id, grades, adjudications]`` with its
    grades as a sorted multiset of ``[reviewer_id, criterion scores sorted, fails sorted, correctness]``.
    Run ids, file paths, comments and formatting do not enter."""
    def grade(s: Scoring) -> list:
        return [s.reviewer_id, sorted([n, v] for n, v in s.criterion_scores), sorted(map(list, s.fails)),
                s.correctness]
    per_run: dict[tuple[str, str, str], tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for s in grades:
        per_run[s.run_key][0].append(canonical_text(grade(s)))
    for s in adjudications:
        per_run[s.run_key][1].append(canonical_text(grade(s)))
    runs = sorted(canonical_text([key[0], key[1], sorted(g), sorted(a)]) for key, (g, a) in per_run.items())
    return data_digest(["grades", seed, runs])


def generator(label: str, digests: Iterable[str]) -> np.random.Generator:
    """The stream of ``label`` over the given digests (order-free: they are sorted first)."""
    text = label + "\n" + "\n".join(sorted(digests))
    words = np.frombuffer(hashlib.sha256(text.encode("utf-8")).digest(), dtype=">u4").astype(np.uint32)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words.tolist())))
