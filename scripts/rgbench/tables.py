"""From a validated tree to the result tables (exact values), and from tables to file bytes."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Iterable, Mapping, NamedTuple, Sequence

from .metrics import FamilyMetrics, SubjectMetrics, q_final
from .numfmt import fmt_bool, fmt_fixed
from .parsing import dumps_json_canonical
from .records import Gold, Tree
from .spec import Spec
from .stats.outputs import (
    FAMILY_STATS_COLUMNS, SUBJECT_STATS_COLUMNS, Statistics, compute_statistics_from_columns, family_stats_cells,
    statistics_files, statistics_manifest, subject_stats_cells,
)
from .stats.run_columns import RunColumns
from .timings import STAGES
from .subject_slice import InputBlock, SubjectSlice, build_slice, input_block

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
    """Everything compute_metrics produces, still exact: the subjects' slices and what is computed across them."""

    slices: tuple[SubjectSlice, ...]  # every registered subject, by subject_id
    subjects: list[SubjectMetrics]
    families: list[FamilyMetrics]
    alpha: Fraction
    n_golds: int
    inputs: "InputListing"
    statistics: Statistics | None = None  # intervals, pairwise, pass@k, ... (rgbench.stats)

    @property
    def n_runs(self) -> int:
        return sum(s.n_runs for s in self.slices)


class InputListing(NamedTuple):
    """Every input file's sha256 in path order: the manifest's ``inputs`` lines (UTF-8 chunks, each a run of
    lines joined by ``,\\n``; the lines are the chunks joined by ``,\\n``) and the input digest, sha256 over
    ``<sha256>  <path>\\n`` lines sorted by path (the format of ``sha256sum``)."""

    count: int
    json_chunks: tuple[bytes, ...]
    digest: str


def input_listing(loose: Mapping[str, str], blocks: Iterable[InputBlock]) -> InputListing:
    """The listing of ``loose`` files (path -> sha256) and of folder ``blocks``, merged in path order.

    Paths sharing a block's prefix form one run in sorted order, so sorting the
    blocks by prefix among the loose paths sorts every path (no loose path may
    start with a block's prefix).
    """
    units = [(path, input_block(path, [(path, digest)])) for path, digest in loose.items()]
    units += [(block.prefix, block) for block in blocks if block.count]
    units.sort(key=lambda unit: unit[0])
    ordered = [block for _, block in units]
    digest = hashlib.sha256()
    for block in ordered:
        digest.update(block.listing)
    return InputListing(sum(b.count for b in ordered), tuple(b.json for b in ordered), digest.hexdigest())


def slices_of_tree(tree: Tree, spec: Spec, scoring_dir: str = "scoring") -> tuple[tuple[SubjectSlice, ...], dict[str, str]]:
    """Every registered subject's slice from a validated tree, and the inputs outside subject folders."""
    responses: dict[str, dict] = {sid: {} for sid in tree.subjects}
    for key, response in tree.responses.items():
        responses[key[0]][key] = response
    scorings: dict[str, list] = {sid: [] for sid in tree.subjects}
    for scoring in tree.scorings:
        scorings[scoring.subject_id].append(scoring)
    folders = {f"{top}/{spec.version_dir}/": top for top in ("responses", scoring_dir)}
    per_folder: dict[str, list[tuple[str, str]]] = {}
    loose: dict[str, str] = {}
    for path, digest in tree.inputs.items():
        parts = path.split("/")
        head = f"{parts[0]}/{parts[1]}/" if len(parts) == 4 else None
        if head in folders:
            per_folder.setdefault(f"{head}{parts[2]}/", []).append((path, digest))
        else:
            loose[path] = digest
    slices = []
    for sid, subject in sorted(tree.subjects.items()):
        prefixes = [f"{head}{sid}/" for head in folders]
        blocks = [input_block(prefix, per_folder.get(prefix, ())) for prefix in prefixes]
        slices.append(build_slice(subject, responses[sid], scorings[sid], tree.golds, spec, blocks))
    return tuple(slices), loose


def merge_slices(slices: Sequence[SubjectSlice], golds: Mapping[str, Gold], spec: Spec,
                 loose_inputs: Mapping[str, str]) -> Results:
    """Results of every subject's slice (sorted by subject_id) plus the statistics across subjects."""
    with STAGES.stage("merge subjects"):
        slices = tuple(sorted(slices, key=lambda s: s.subject_id))
        # A slice does not depend on alpha (the memo keeps it across --alpha): Q_final is formed here.
        subjects = [replace(s.metrics, alpha=spec.alpha, q_final=q_final(s.metrics.p, s.metrics.s_bar, spec.alpha,
                                                                         spec.max_score)) for s in slices]
        families = [f for s in slices for f in s.families]
        inputs = input_listing(loose_inputs, (block for s in slices for block in s.blocks))
        columns = RunColumns.from_parts({s.subject_id: s.columns for s in slices})
        difficulty_of = {case_id: gold.difficulty for case_id, gold in golds.items()}
    with STAGES.stage("statistics"):
        statistics = compute_statistics_from_columns(columns, difficulty_of, spec, subjects, families, inputs.digest)
    return Results(slices=slices, subjects=subjects, families=families, alpha=spec.alpha, n_golds=len(golds),
                   inputs=inputs, statistics=statistics)


def compute_results(tree: Tree, spec: Spec, scoring_dir: str = "scoring") -> Results:
    """Derive per-run rows and aggregate them per registered subject and per (subject, family)."""
    slices, loose = slices_of_tree(tree, spec, scoring_dir)
    return merge_slices(slices, tree.golds, spec, loose)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """CSV with a header row, ``\\n`` line endings and minimal quoting."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def per_run_csv(slices: Sequence[SubjectSlice]) -> bytes:
    """per_run.csv: the header, then every subject's rows (slices in subject_id order)."""
    return csv_text(PER_RUN_COLUMNS, ()).encode("utf-8") + b"".join(s.per_run_rows for s in slices)


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


def manifest_json(spec: Spec, results: Results, outputs: dict[str, bytes]) -> bytes:
    """Provenance of one computation: alpha, version, counts, input digests and output digests; no clock."""
    manifest = {
        "alpha": fmt_fixed(spec.alpha),
        "benchmark_version": spec.benchmark_version,
        "counts": {
            "golds": results.n_golds,
            "responses": sum(s.n_responses for s in results.slices),
            "scorings": sum(s.n_scorings for s in results.slices),
            "scored_runs": results.n_runs,
            "subjects": len(results.slices),
            "unscored_responses": sum(m.n_unscored for m in results.subjects),
        },
        "generator": "scripts/compute_metrics.py",
        "input_digest": results.inputs.digest,
        "inputs": _INPUTS_PLACEHOLDER,
        "outputs": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(outputs.items())},
        "statistics": statistics_manifest(results.statistics),
    }
    # The inputs map can hold 180,000 entries; json's indenting encoder is pure Python, so that
    # block is pasted in from the listing, in exactly the canonical layout (2-space indent, sorted).
    before, placeholder, after = dumps_json_canonical(manifest).partition(json.dumps(_INPUTS_PLACEHOLDER))
    assert placeholder, "the inputs placeholder is in the manifest"
    return b"".join([before.encode("utf-8"), *inputs_block_parts(results.inputs), after.encode("utf-8")])


def inputs_block_parts(inputs: InputListing) -> list[bytes]:
    """``{path: sha256}`` as dumps_json_canonical would write it at nesting depth 1 (sorted, 2-space indent),
    as pieces to join (the listing is tens of MB: it is copied once, into the manifest)."""
    if not inputs.count:
        return [b"{}"]
    parts = [b"{\n"]
    for chunk in inputs.json_chunks:
        parts += (chunk, b",\n")
    parts[-1] = b"\n  }"
    return parts


_INPUTS_PLACEHOLDER = "\u0000inputs\u0000"


def render_results(spec: Spec, results: Results) -> dict[str, bytes]:
    """File name (inside results/) -> exact bytes of every file compute_metrics writes."""
    outputs = {
        PER_RUN_FILE: per_run_csv(results.slices),
        SUBJECT_FILE: subject_csv(results.subjects, results.statistics).encode("utf-8"),
        FAMILY_FILE: family_csv(results.families, results.statistics).encode("utf-8"),
        **statistics_files(results.statistics, csv_text),
    }
    outputs[MANIFEST_FILE] = manifest_json(spec, results, outputs)
    return outputs
