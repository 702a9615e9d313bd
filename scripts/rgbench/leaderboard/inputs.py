"""Everything the leaderboard reads (``system/``, the result tables, the manifest, the registry and the
scorings behind critical fails), loaded and cross-checked in one call that returns every problem found, so
one broken file never hides another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from ..load.registry import REGISTRY_FILE
from ..load.safe_read import read_result_file
from ..load.spec import Spec, load_spec
from ..problems import Problem
from ..stats.alpha_sensitivity import AlphaRow, OrderRow
from ..stats.pairwise import PairwiseRow
from .consistency import check_all, check_stats_tables, incomplete_subjects, recomputed_subjects
from .critical_fails import CriticalFail, read_critical_fails
from .difficulty_text import DifficultyTrendRow
from .grades_text import grades_problems
from .lab_tables import LabTables, read_lab_tables
from .manifest import Manifest, read_manifest, recorded_now, stale_inputs, stale_outputs
from .rank_ranges import RankRange
from .registry import Registry, read_registered_subjects
from .results_tables import ResultTables, read_result_tables, read_stats_tables


@dataclass(frozen=True)
class LeaderboardInputs:
    """The validated inputs of one leaderboard build."""

    spec: Spec
    tables: ResultTables
    registry: Registry
    manifest: Manifest
    critical_fails: dict[str, tuple[CriticalFail, ...]]
    pairwise: list[PairwiseRow] | None = None  # exact, checked against pairwise.csv; None without the file
    alpha_rows: list[AlphaRow] | None = None   # exact, checked against alpha_sensitivity.csv; None without it
    lab: LabTables | None = None               # issue 15's tables (explorer, breakdowns, cost), those present
    rank_sets: dict[str, RankRange] | None = None  # rank_sets.csv, by subject_id
    incomplete: frozenset[str] = frozenset()   # subjects below min_case_coverage (metrics_per_subject.csv)
    order: list[OrderRow] | None = None        # rank_stability.csv, checked
    difficulty_trend: DifficultyTrendRow | None = None  # difficulty_trend.csv (the manifest vouches for it)


def unread_output_digests(root: Path, manifest: Manifest, read: Collection[str]) -> dict[str, str]:
    """sha256 of every output the manifest lists that the leaderboard does not read (calibration_bins.csv,
    ...), so that a set left mixed by an interrupted run is refused whichever files it mixes. A listed file
    that is missing gets an empty digest (it differs from the recorded one)."""
    digests = {}
    for name in sorted(manifest.outputs):
        rel = f"results/{name}"
        if rel not in read and "/" not in name:
            data, _ = read_result_file(root, rel)
            digests[rel] = hashlib.sha256(data).hexdigest() if data is not None else ""
    return digests


def load_inputs(root: Path) -> tuple[LeaderboardInputs | None, list[Problem]]:
    """Load and cross-check every input of the leaderboard under ``root``."""
    root = Path(root)
    spec, problems = load_spec(root)
    if spec is None:
        return None, problems
    tables, problems = read_result_tables(root)
    registry, more = read_registered_subjects(root, spec)
    problems += more
    manifest, more = read_manifest(root)
    problems += more
    if tables is None or registry is None or manifest is None:
        return None, problems
    recomputed = recomputed_subjects(tables, spec)
    core = check_all(tables, registry.subjects, manifest, spec, recomputed)
    problems += core + grades_problems(manifest, spec)
    stats, more = read_stats_tables(root, manifest)
    problems += more
    pairwise = alpha_rows = rank_sets = order = None
    if stats is not None and not core:  # recomputing from tables that disagree would only echo their problems
        pairwise, alpha_rows, more, rank_sets, order = check_stats_tables(stats, tables, manifest, spec, recomputed)
        problems += more
    grades = manifest.grades
    critical = read_critical_fails(root, spec, tables.runs,
                                   None if grades is None else str(grades["consolidated_reviewer"]))
    problems += critical.problems
    lab, more = read_lab_tables(root, manifest.outputs)
    problems += more + stale_outputs(manifest, lab.digests)
    problems += stale_inputs(manifest, recorded_now(root, {REGISTRY_FILE: registry.sha256, **critical.digests}))
    read = {**tables.digests, **(stats.digests if stats else {})}
    skip = read.keys() | {problem.path for problem in problems}  # a file with a problem of its own is not blamed twice
    problems += stale_outputs(manifest, {**unread_output_digests(root, manifest, skip), **read})
    if problems:
        return None, problems
    return LeaderboardInputs(spec, tables, registry, manifest, critical.fails, pairwise, alpha_rows, lab, rank_sets,
                             incomplete_subjects(tables, spec), order, stats.difficulty_trend if stats else None), []
