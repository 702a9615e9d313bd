"""From a validated tree to the result tables (exact values), and from tables to file bytes."""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from typing import Iterable, Sequence

from .derive import RunRow, derive_runs
from .metrics import FamilyMetrics, SubjectMetrics, family_metrics, subject_metrics
from .numfmt import fmt_bool, fmt_fixed
from .parsing import dumps_json_canonical
from .records import Tree
from .spec import Spec

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
    alpha: object


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
    return Results(runs=runs, subjects=subjects, families=family_metrics(runs), alpha=spec.alpha)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """CSV with a header row, ``\\n`` line endings and minimal quoting."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def per_run_csv(runs: Sequence[RunRow]) -> str:
    return csv_text(PER_RUN_COLUMNS, (
        (r.subject_id, r.subject_version, r.case_id, r.run_id, r.reviewer_id, r.family,
         str(r.raw_score), str(r.rubric_floor), str(r.rubric_ceiling), str(r.clipped_score),
         fmt_bool(r.has_critical_fail), fmt_bool(r.has_recoverable_fail), r.classification,
         str(r.reported_confidence), fmt_fixed(r.confidence_unit), fmt_fixed(r.correctness))
        for r in runs
    ))


def subject_csv(subjects: Sequence[SubjectMetrics]) -> str:
    return csv_text(SUBJECT_COLUMNS, (
        (m.subject_id, m.subject_version, str(m.n), str(m.n_unscored), fmt_fixed(m.p), fmt_fixed(m.s_bar),
         fmt_fixed(m.bs), fmt_fixed(m.ece), fmt_fixed(m.q_final), fmt_fixed(m.alpha),
         fmt_bool(m.disqualified), str(m.n_critical))
        for m in subjects
    ))


def family_csv(families: Sequence[FamilyMetrics]) -> str:
    return csv_text(FAMILY_COLUMNS, (
        (f.subject_id, f.subject_version, f.family, str(f.n_family), fmt_fixed(f.p_family), fmt_fixed(f.s_bar_family))
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
        "inputs": dict(sorted(tree.inputs.items())),
        "outputs": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(outputs.items())},
    }
    return dumps_json_canonical(manifest)


def render_results(tree: Tree, spec: Spec, results: Results) -> dict[str, bytes]:
    """File name (inside results/) -> exact bytes of every file compute_metrics writes."""
    outputs = {
        PER_RUN_FILE: per_run_csv(results.runs).encode("utf-8"),
        SUBJECT_FILE: subject_csv(results.subjects).encode("utf-8"),
        FAMILY_FILE: family_csv(results.families).encode("utf-8"),
    }
    outputs[MANIFEST_FILE] = manifest_json(tree, spec, results, outputs).encode("utf-8")
    return outputs
