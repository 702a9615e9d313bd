"""Several reviewers per run (the v2.0 path): agreement report and consolidated scorings.

Reads the tree (scoring/ holds one grade per run, as v1.0 requires) and the
further grades in scoring_multi/<version>/<subject_id>/:
  <case_id>__<run_id>__eval-<reviewer_id>.json          one more reviewer's grade
  <case_id>__<run_id>__adjudication-<reviewer_id>.json  an adjudicator's final grade
(same format and schema as scoring/, checked by the same loader). Writes
  results/agreement.csv                       Krippendorff's alpha, weighted kappa, percent
                                              agreement, reviewer leniency (results/README.md)
  results/reviewers.csv                       per reviewer: runs graded, criterion distributions,
                                              leniency on shared runs with an interval
  results/judge_agreement.csv                 only when llm-judge scorings exist: each judge against
                                              the human grade (alpha, macro-F1, mean deviation)
  scoring_consolidated/<version>/<subject_id>/<case_id>__<run_id>__eval-<reviewer_id>.json
                                              one grade per run by config.yaml's
                                              consolidation_policy (median: median-v1, by reviewer
                                              `consensus`; mean: mean-v1, by `consensus-mean`) or the
                                              adjudication; each names its sources and their sha256 in
                                              `comments`. A mean that no decimal writes exactly (4/3) is
                                              written rounded to 6 decimals, its exact value in `comments`.
Grades by llm-judge reviewers (subjects/reviewers.yaml), adjudications included, enter agreement.csv and
the consolidated grades only when config.yaml sets llm_judge_in_metrics: true.
The originals are never modified. The consolidated folder is regenerated whole (a file is
rewritten only when its bytes change; files no longer produced are removed; being derived
and git-ignored, they are not fsynced) and
is read only by `compute_metrics.py --scoring-dir scoring_consolidated` (and `validate.py --scoring-dir`), which
accept the policy's reviewer without registration; a board with `board_grades: consolidated` in config.yaml is
computed from the same grades in memory by `make metrics` and never reads this folder. With --no-consolidated only
the results/ tables are written (what `make metrics` writes when no consolidated folder exists) and an
existing consolidated folder is left as it is; `make metrics` rewrites the default one whenever it exists.

On any invalid input, prints every problem as `path: message` on stderr, exits 1
and writes nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..atomic import write_if_changed, write_many_atomic
from ..load.consolidate import policy_of
from ..load.loader import counted_scorings
from ..load.multi_scoring import MultiScorings
from ..load.records import Tree
from ..load.spec import Spec
from ..problems import refuse
from ..results.tables import csv_text
from ..results_csv import Table
from ..stats.agreement_outputs import (
    AGREEMENT_COLUMNS,
    AGREEMENT_FILE,
    agreement_csv_rows,
    agreement_table,
    consolidated_files,
)
from ..stats.consolidated_board import consolidated_grades
from ..stats.judge_agreement import JUDGE_COLUMNS, JUDGE_FILE, judge_rows
from ..stats.reviewer_report import REVIEWER_COLUMNS, REVIEWERS_FILE, reviewer_rows
from ..stats.seeds import grades_digest
from .common import bad_folder_name, collector_paused, load_valid_grades, one_blas_thread

CONSOLIDATED_DIR = "scoring_consolidated"
PROTECTED = {"scoring", "responses", "golds", "subjects", "system", "results", "tests", "scripts"}


def stale_files(root: Path, base: str, keep: set[str]) -> list[Path]:
    """Regular .json files under ``root/base`` (two levels: subject/file) that this run no longer produces."""
    return sorted(path for path in (root / base).glob("*/*.json")
                  if path.is_file() and not path.is_symlink() and path.relative_to(root).as_posix() not in keep)


def run(args: argparse.Namespace) -> int:
    root = args.root
    if bad_folder_name({"--multi-dir": args.multi_dir, "--output-dir": args.output_dir}):
        return 1
    if args.output_dir in PROTECTED | {args.multi_dir}:
        return refuse(f"--output-dir: {args.output_dir!r} holds inputs or results; choose another folder (default "
                      f"{CONSOLIDATED_DIR})")
    with collector_paused(), one_blas_thread():
        loaded = load_valid_grades(root, args.multi_dir)
        if loaded is None:
            return 1
        spec, tree, multi = loaded
        return write_agreement(root, spec, tree, multi, args.output_dir, write_consolidated=not args.no_consolidated)


def agreement_tables(spec: Spec, tree: Tree, multi: MultiScorings) -> dict[str, Table]:
    """agreement.csv, reviewers.csv and judge_agreement.csv (only when judges graded) of the valid ``tree``
    (every scoring, llm-judge ones included) and its further grades ``multi``, as cells by file name."""
    every_grade = tuple(tree.scorings) + multi.extra
    reviewers = tree.reviewers
    grades = tuple(counted_scorings(every_grade, spec, reviewers))   # no llm-judge's unless config.yaml says so
    # seeds the reviewer report's and the judge's draws: the declared seed and the parsed grades (never file bytes)
    digest = grades_digest(spec.stats.seed, every_grade, tuple(multi.adjudications.values()))
    tables: dict[str, Table] = {
        AGREEMENT_FILE: (AGREEMENT_COLUMNS, tuple(agreement_csv_rows(agreement_table(grades, tree, spec)))),
        REVIEWERS_FILE: (REVIEWER_COLUMNS, tuple(reviewer_rows(
            every_grade, tuple(multi.adjudications.values()), tree, spec, reviewers, digest=digest))),
    }
    judge = judge_rows(every_grade, multi.adjudications, tree, spec, reviewers, digest=digest)
    if judge:
        tables[JUDGE_FILE] = (JUDGE_COLUMNS, tuple(map(tuple, judge)))
    return tables


def drop_stale_judge_report(root: Path, tables: dict[str, Table]) -> None:
    """No judge grades any more: remove the judge report left from an earlier run (never a symlink)."""
    judge_path = root / "results" / JUDGE_FILE
    if JUDGE_FILE not in tables and judge_path.is_file() and not judge_path.is_symlink():
        judge_path.unlink()


def write_agreement(root: Path, spec: Spec, tree: Tree, multi: MultiScorings, output_dir: str = CONSOLIDATED_DIR,
                    write_consolidated: bool = True, tables: dict[str, Table] | None = None) -> int:
    """From the valid ``tree`` (every scoring, llm-judge ones included) and its further grades ``multi``, write
    the :func:`agreement_tables` as one set (unless ``tables``, already written by the caller, are given), then
    (unless ``write_consolidated`` is false) the consolidated scorings under ``output_dir``; print a summary line.
    0, or 1 when a consolidated scoring could not be written; OutputError when the tables could not be."""
    if tables is None:
        tables = agreement_tables(spec, tree, multi)
        write_many_atomic({root / "results" / name: csv_text(*table).encode("utf-8") for name, table in tables.items()})
        drop_stale_judge_report(root, tables)
    grades = tuple(counted_scorings(tuple(tree.scorings) + multi.extra, spec, tree.reviewers))
    consolidated = consolidated_grades(spec, tree, multi)
    base = f"{output_dir}/{spec.version_dir}"
    judge = JUDGE_FILE in tables
    several = sum(1 for item in consolidated if len(item.sources) > 1)
    summary = (f"{len(grades)} grades of {len(consolidated)} runs ({several} with several grades or an adjudication) -> "
               f"results/{AGREEMENT_FILE}, results/{REVIEWERS_FILE}" + (f", results/{JUDGE_FILE}" if judge else ""))
    if not write_consolidated:
        print(summary)
        return 0
    files = consolidated_files(consolidated, tree, spec, output_dir, {**tree.inputs, **multi.inputs}, policy_of(spec))
    try:  # derived and git-ignored: regenerated whole on the next run
        for rel in sorted(files):
            write_if_changed(root / rel, files[rel], durable=False)
        for path in stale_files(root, base, set(files)):
            path.unlink()
    except OSError as exc:
        return refuse(f"{exc.filename or base}: cannot be written: {exc.strerror or exc} (free some disk space or make "
                      f"the folder writable, then run again; results/{AGREEMENT_FILE} is written)")
    print(f"{summary}, {base}/")
    return 0

