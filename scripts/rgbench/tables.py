"""From a validated tree to the result tables (exact values), and from tables to file bytes."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Sequence

from .derive import RunRow, derive_runs
from .metrics import FamilyMetrics, SubjectMetrics, family_metrics, subject_metrics
from .numfmt import fmt_bool, fmt_fixed
from .parsing import dumps_json_canonical
from .records import Tree
from .spec import Spec
from .stats.outputs import (
    FAMILY_STATS_COLUMNS, SUBJECT_STATS_COLUMNS, Statistics, compute_statistics, family_stats_cells,
    statistics_files, statistics_manifest, subject_stats_cells,
)

PER_RUN_COLUMNS = (
    "subject_id", "subject_version", "case_id", "run_id", "reviewer_id", "family",
    "raw_score", "rubric_floor", "rubric_ceiling", "clipped_score", "has_critical_fail",
    "has_recoverable_fail", "classification", "reported_confidence", "confidence_unit", "correctness",
)
SUBJECT_COLUMNS = (
    "subject_id", "subject_version", "N", "n_unscored", "P", "s_bar", "BS", "ECE", "Q_final",
    "alpha", "disqualified", "n_critical",
)
FAMILY_COLUMNS = ("subject_id", "subject_version", "family", "n_family", "P_family", "s_bar_family")

PER_RUN_FILE = "per_run.csv"
SUBJECT_FILE = "metrics_per_subject.csv"
FAMILY_FILE = "metrics_per_family.csv"
MANIFEST_FILE = "manifest.json"


@dataclass(frozen=True)
class Results:
    """Everything compute_metrics produces, still exact."""

    runs: list[RunRow]
    subjects: list[SubjectMetrics]
    families: list[FamilyMetrics]
    alpha: Fraction
    statistics: Statistics | None = None  # intervals, pairwise, pass@k, ... (rgbench.stats)


def compute_results(tree: Tree, spec: Spec) -> Results:
    """Derive per-run rows and aggregate them per registered subject and per (subject, family)."""
    runs = derive_runs(tree, spec)
    by_subject: dict[str, list[RunRow]] = {sid: [] for sid in tree.subjects}
    for row in runs:
        by_subject[row.subject_id].append(row)
    scored = {(row.subject_id, row.case_id, row.run_id) for row in runs}
    unscored = {sid: 0 for sid in tree.subjects}
    for key in tree.responses:
        if key not in scored:
            unscored[key[0]] += 1
    subjects = [
        subject_metrics(
            sid, subject.subject_version, by_subject[sid], unscored[sid],
            alpha=spec.alpha, bins=spec.ece_bins, max_score=spec.max_score,
        )
        for sid, subject in sorted(tree.subjects.items())
    ]
    families = family_metrics(runs)
    statistics = compute_statistics(tree, spec, runs, subjects, families, input_digest(tree.inputs))
    return Results(runs=runs, subjects=subjects, families=families, alpha=spec.alpha, statistics=statistics)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """CSV with a header row, ``\\n`` line endings and minimal quoting."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def per_run_csv(runs: Sequence[RunRow]) -> str:
    # confidence_unit and correctness take few distinct values: format each once.
    unit_text = [fmt_fixed(Fraction(c, 100)) for c in range(101)]
    correctness_text: dict[Fraction, str] = {}
    rows = []
    for r in runs:
        correctness = correctness_text.get(r.correctness)
        if correctness is None:
            correctness = correctness_text[r.correctness] = fmt_fixed(r.correctness)
        rows.append((r.subject_id, r.subject_version, r.case_id, r.run_id, r.reviewer_id, r.family,
                     r.raw_score, r.rubric_floor, r.rubric_ceiling, r.clipped_score,
                     "true" if r.has_critical_fail else "false", "true" if r.has_recoverable_fail else "false",
                     r.classification, r.reported_confidence, unit_text[r.reported_confidence], correctness))
    return csv_text(PER_RUN_COLUMNS, rows)


def subject_csv(subjects: Sequence[SubjectMetrics], statistics: Statistics) -> str:
    return csv_text(SUBJECT_COLUMNS + SUBJECT_STATS_COLUMNS, (
        (m.subject_id, m.subject_version, str(m.n), str(m.n_unscored), fmt_fixed(m.p), fmt_fixed(m.s_bar),
         fmt_fixed(m.bs), fmt_fixed(m.ece), fmt_fixed(m.q_final), fmt_fixed(m.alpha),
         fmt_bool(m.disqualified), str(m.n_critical)) + subject_stats_cells(statistics, m.subject_id)
        for m in subjects
    ))


def family_csv(families: Sequence[FamilyMetrics], statistics: Statistics) -> str:
    return csv_text(FAMILY_COLUMNS + FAMILY_STATS_COLUMNS, (
        (f.subject_id, f.subject_version, f.family, str(f.n_family), fmt_fixed(f.p_family), fmt_fixed(f.s_bar_family))
        + family_stats_cells(statistics, f.subject_id, f.family)
        for f in families
    ))


def input_digest(inputs: dict[str, str]) -> str:
    """sha256 over ``<sha256>  <path>\\n`` lines sorted by path (the format of ``sha256sum``)."""
    listing = "".join(f"{digest}  {path}\n" for path, digest in sorted(inputs.items()))
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def manifest_json(tree: Tree, spec: Spec, results: Results, outputs: dict[str, bytes]) -> str:
    """Provenance of one computation: alpha, version, counts, input digests and output digests; no clock."""
    manifest = {
        "alpha": fmt_fixed(spec.alpha),
        "benchmark_version": spec.benchmark_version,
        "counts": {
            "golds": len(tree.golds),
            "responses": len(tree.responses),
            "scorings": len(tree.scorings),
            "scored_runs": len(results.runs),
            "subjects": len(tree.subjects),
            "unscored_responses": sum(m.n_unscored for m in results.subjects),
        },
        "generator": "scripts/compute_metrics.py",
        "input_digest": input_digest(tree.inputs),
        "inputs": _INPUTS_PLACEHOLDER,
        "outputs": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(outputs.items())},
        "statistics": statistics_manifest(results.statistics),
    }
    # The inputs map can hold 180,000 entries; json's indenting encoder is pure Python, so that
    # block is rendered line by line with the C string encoder, in exactly the canonical layout.
    text = dumps_json_canonical(manifest)
    return text.replace(json.dumps(_INPUTS_PLACEHOLDER), _inputs_block(tree.inputs), 1)


_INPUTS_PLACEHOLDER = "\u0000inputs\u0000"


def _inputs_block(inputs: dict[str, str]) -> str:
    """``{path: sha256}`` as dumps_json_canonical would write it at nesting depth 1 (sorted, 2-space indent)."""
    if not inputs:
        return "{}"
    encode = json.encoder.encode_basestring
    lines = ",\n".join(f"    {encode(path)}: {encode(digest)}" for path, digest in sorted(inputs.items()))
    return "{\n" + lines + "\n  }"


def render_results(tree: Tree, spec: Spec, results: Results) -> dict[str, bytes]:
    """File name (inside results/) -> exact bytes of every file compute_metrics writes."""
    outputs = {
        PER_RUN_FILE: per_run_csv(results.runs).encode("utf-8"),
        SUBJECT_FILE: subject_csv(results.subjects, results.statistics).encode("utf-8"),
        FAMILY_FILE: family_csv(results.families, results.statistics).encode("utf-8"),
        **statistics_files(results.statistics, csv_text),
    }
    outputs[MANIFEST_FILE] = manifest_json(tree, spec, results, outputs).encode("utf-8")
    return outputs
