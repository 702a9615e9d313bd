"""Everything the leaderboard shows, as one value (:class:`LeaderboardInputs`), from a results set in memory
(:class:`~rgbench.results.tables.Published`): the one ``make metrics`` has just computed, or results/ read back
by ``make leaderboard`` alone (:func:`load_inputs`, through :func:`.results_tables.read_published`). Either way
the board shows the results as written (every figure as its CSV cell has it), so both give the same bytes and
the page never disagrees with a CSV a reader downloads. Every problem is returned, so one broken file never
hides another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..compute.derive import RunRow
from ..compute.metrics import FamilyMetrics, SubjectMetrics
from ..load.registry import REGISTRY_FILE
from ..load.spec import Spec, load_spec
from ..numfmt import fmt_fixed
from ..problems import Problem
from ..results.tables import (
    FAMILY_COLUMNS,
    FAMILY_FILE,
    PER_RUN_COLUMNS,
    PER_RUN_FILE,
    SUBJECT_COLUMNS,
    SUBJECT_FILE,
    Published,
)
from ..stats.alpha_sensitivity import AlphaRow, OrderRow
from ..stats.eligibility import is_incomplete
from ..stats.judge_agreement import JUDGE_FILE
from ..stats.judge_assisted_board import ASSISTED_COLUMNS, ASSISTED_FILE, CRITERIA_COLUMNS, CRITERIA_FILE
from ..stats.outputs import (
    ALPHA_FILE,
    DIFFICULTY_TREND_COLUMNS,
    DIFFICULTY_TREND_FILE,
    PAIRWISE_FILE,
    RANK_SETS_FILE,
    RANK_STABILITY_FILE,
)
from ..stats.pairwise import PairwiseRow
from ..stats.reviewer_report import REVIEWERS_FILE
from .critical_fails import CriticalFail, read_critical_fails
from .difficulty_text import DifficultyTrendRow
from .grades_text import grades_problems
from .lab_tables import LabTables, lab_tables
from .manifest import MANIFEST_PATH, Manifest, parse_manifest, recorded_now, stale_inputs
from .rank_ranges import RankRange
from .registry import Registry, read_registered_subjects
from .results_tables import (
    FAMILY_EXTRAS,
    REGENERATE,
    RESULTS_DIR,
    STATS_COLUMNS,
    SUBJECT_EXTRAS,
    read_published,
    typed_rows,
)
from .reviewers_section import reviewer_rows


@dataclass(frozen=True)
class ResultTables:
    """The core tables: every scored run, every subject's and (subject, family)'s figures (exact), and the
    optional columns the page shows (intervals, ``n_cases``, ``missing_cases``: :data:`SUBJECT_EXTRA_TYPES`,
    :data:`FAMILY_EXTRA_TYPES`) as written, by subject_id and by (subject_id, family)."""

    runs: Sequence[RunRow]
    subjects: Sequence[SubjectMetrics]
    families: Sequence[FamilyMetrics]
    subject_extras: dict[str, dict[str, Any]]
    family_extras: dict[tuple[str, str], dict[str, Any]]


@dataclass(frozen=True)
class LeaderboardInputs:
    """The validated inputs of one leaderboard build."""

    spec: Spec
    tables: ResultTables
    registry: Registry
    manifest: Manifest
    critical_fails: dict[str, tuple[CriticalFail, ...]]
    pairwise: list[PairwiseRow] | None = None  # pairwise.csv's rows as written; None without the file
    alpha_rows: list[AlphaRow] | None = None   # alpha_sensitivity.csv's; None without it
    lab: LabTables | None = None               # issue 15's tables (explorer, breakdowns, cost), those present
    rank_sets: dict[str, RankRange] | None = None  # rank_sets.csv, by subject_id
    incomplete: frozenset[str] = frozenset()   # subjects below min_case_coverage (metrics_per_subject.csv)
    order: list[OrderRow] | None = None        # rank_stability.csv
    difficulty_trend: DifficultyTrendRow | None = None  # difficulty_trend.csv
    reviewers: list[dict[str, str]] = field(default_factory=list)  # reviewers.csv's rows (none without the file)
    judges: list[dict[str, str]] = field(default_factory=list)     # judge_agreement.csv's
    assisted: list[dict[str, Any]] | None = None   # judge_assisted.csv's rows (estimation: judge-assisted)
    assisted_criteria: list[dict[str, Any]] = field(default_factory=list)   # judge_assisted_criteria.csv's


def out_of_step(manifest: Manifest, spec: Spec) -> list[Problem]:
    """The manifest's benchmark version and significance level are system/'s (else system/ changed after the
    results were computed; its alpha may differ: `rgbench compute --alpha` overrides config.yaml's)."""
    recorded: tuple[str | None, ...] = (manifest.benchmark_version, manifest.significance_level)
    now: tuple[str, ...] = (spec.benchmark_version, fmt_fixed(spec.stats.significance_level))
    if recorded[1] is None:
        recorded, now = recorded[:1], now[:1]   # an older manifest without the level
    if recorded == now:
        return []
    return [Problem(MANIFEST_PATH, f"records benchmark version and significance level {', '.join(map(str, recorded))} "
                                   f"but system/ now says {', '.join(now)} (the results are out of step; {REGENERATE})")]


def core_tables(published: Published) -> tuple[ResultTables | None, list[Problem]]:
    """The core tables of ``published``, as written."""
    run_rows, problems = _typed(published, PER_RUN_FILE, PER_RUN_COLUMNS)
    subject_rows, more = _typed(published, SUBJECT_FILE, SUBJECT_COLUMNS, SUBJECT_EXTRAS)
    problems += more
    family_rows, more = _typed(published, FAMILY_FILE, FAMILY_COLUMNS, FAMILY_EXTRAS)
    problems += more
    if run_rows is None or subject_rows is None or family_rows is None or problems:
        return None, problems
    return ResultTables(
        # PER_RUN_COLUMNS are RunRow's fields; an empty classification (no pass rule) is None
        runs=tuple(RunRow(**{**row, "classification": row["classification"] or None}) for row in run_rows),
        # SUBJECT_COLUMNS and FAMILY_COLUMNS are SubjectMetrics' and FamilyMetrics' fields, in order
        subjects=tuple(SubjectMetrics(*(r[c] for c in SUBJECT_COLUMNS)) for r in subject_rows),
        families=tuple(FamilyMetrics(*(r[c] for c in FAMILY_COLUMNS)) for r in family_rows),
        subject_extras={r["subject_id"]: {k: v for k, v in r.items() if k in SUBJECT_EXTRAS} for r in subject_rows},
        family_extras={(r["subject_id"], r["family"]): {k: v for k, v in r.items() if k in FAMILY_EXTRAS}
                       for r in family_rows},
    ), []


def assisted_tables(tables: ResultTables, rows: Sequence[dict[str, Any]]) -> ResultTables:
    """``tables`` with every subject's P, s_bar and Q_final, their bounds and its case counts from judge_assisted.csv
    (``rows``, typed; :mod:`.judge_assisted_text`); N is its judged runs (0 without an estimate: not ranked); BS,
    ECE and the families are absent (a draw stratified by the judge's grade is no uniform sample)."""
    by_id = {r["subject_id"]: r for r in rows}
    subjects, extras = [], {}
    for m in tables.subjects:
        r = by_id.get(m.subject_id, {})
        q = r.get("Q_final")
        subjects.append(SubjectMetrics(m.subject_id, m.subject_version, r["n_runs"] if q is not None else 0,
                                       r.get("n_unjudged", m.n_unscored), r.get("P"), r.get("s_bar"), None, None, q, m.alpha,
                                       m.disqualified, m.n_critical))
        extras[m.subject_id] = {k: v for k, v in r.items() if k in ("n_cases", "labelled_cases") or (
            k.endswith(("_low", "_high")) and "_human_" not in k and not k.startswith("rank"))}
    return replace(tables, subjects=tuple(subjects), families=(), subject_extras=extras, family_extras={})


def runs_by_subject(runs: Sequence[RunRow]) -> dict[str, list[RunRow]]:
    """subject_id -> its per-run rows, in per_run.csv's order."""
    grouped: dict[str, list[RunRow]] = {}
    for row in runs:
        grouped.setdefault(row.subject_id, []).append(row)
    return grouped


def incomplete_subjects(tables: ResultTables, spec: Spec) -> frozenset[str]:
    """The subjects below config.yaml's min_case_coverage, from metrics_per_subject.csv's n_cases and
    n_cases_missing (none when the results carry no n_cases_missing: older results)."""
    return frozenset(sid for sid, extras in tables.subject_extras.items()
                     if "n_cases" in extras and "n_cases_missing" in extras
                     and is_incomplete(extras["n_cases"], extras["n_cases_missing"], spec.stats.min_case_coverage))


def _typed(published: Published, name: str, columns: tuple[str, ...], extras: tuple[str, ...] = ()
           ) -> tuple[list[dict[str, Any]] | None, list[Problem]]:
    """The typed rows of the table ``name`` (None when the set has no such table)."""
    table = published.tables.get(name)
    if table is None:
        return None, []
    return typed_rows(f"{RESULTS_DIR}/{name}", table, columns, extras)


def board_inputs(root: Path, spec: Spec, published: Published, *, computed_now: bool = False
                 ) -> tuple[LeaderboardInputs | None, list[Problem]]:
    """The leaderboard's inputs from the results set ``published``, the registry and the scorings behind
    critical fails under ``root``. Unless ``computed_now`` (this process computed ``published`` from the tree),
    the inputs read now must still be those the results record."""
    manifest, messages = parse_manifest(published.manifest)
    problems = [Problem(MANIFEST_PATH, message) for message in messages]
    registry, more = read_registered_subjects(root, spec)
    problems += more
    tables, more = core_tables(published)
    problems += more
    if manifest is None or registry is None or tables is None:
        return None, problems
    problems += out_of_step(manifest, spec) + grades_problems(manifest, spec)
    stats: dict[str, list[dict[str, Any]] | None] = {}
    for name, columns in STATS_COLUMNS.items():
        stats[name], more = _typed(published, name, columns)
        problems += more
    trend_rows = stats[DIFFICULTY_TREND_FILE]
    if trend_rows is not None and len(trend_rows) > 1:
        problems.append(Problem(f"{RESULTS_DIR}/{DIFFICULTY_TREND_FILE}", f"expected at most one row, found "
                                                                        f"{len(trend_rows)} ({REGENERATE})"))
    grades = manifest.grades
    critical = read_critical_fails(root, spec, tables.runs, None if grades is None else str(grades["consolidated_reviewer"]))
    problems += critical.problems
    lab, more = lab_tables(published)
    problems += more
    (reviewers, more), (judges, most) = (reviewer_rows(published.tables, name) for name in (REVIEWERS_FILE, JUDGE_FILE))
    problems += more + most
    if not computed_now:
        problems += stale_inputs(manifest, recorded_now(root, {REGISTRY_FILE: registry.sha256, **critical.digests}))
        rows = {m.subject_id for m in tables.subjects}
        problems += [Problem(f"{RESULTS_DIR}/{SUBJECT_FILE}", f"no row for {sid!r}, which {REGISTRY_FILE} registers "
                                                             f"(the results are out of step; {REGENERATE})")
                     for sid in sorted(set(registry.subjects) - rows)]
        problems += [Problem(f"{RESULTS_DIR}/{SUBJECT_FILE}", f"{sid!r} has a row but is not registered in "
                                                             f"{REGISTRY_FILE} (the results are out of step; {REGENERATE})")
                     for sid in sorted(rows - set(registry.subjects))]
    assisted, criteria = None, None
    if spec.judge_assisted:
        (assisted, more), (criteria, most) = (_typed(published, name, columns) for name, columns in (
            (ASSISTED_FILE, ASSISTED_COLUMNS), (CRITERIA_FILE, CRITERIA_COLUMNS)))
        problems += most
        problems += more if assisted is not None else [
            Problem(f"{RESULTS_DIR}/{ASSISTED_FILE}", f"missing, but {spec.config_path} sets estimation: "
                                                      f"judge-assisted ({REGENERATE})")]
    if problems:
        return None, problems
    if assisted is not None:   # the estimator's figures; what it does not give yet is absent (judge_assisted_text)
        return LeaderboardInputs(spec, assisted_tables(tables, assisted), registry, manifest, critical.fails,
                                 reviewers=reviewers, judges=judges, assisted=assisted,
                                 assisted_criteria=criteria or []), []
    pairwise, sets, order, alpha = (stats[name] for name in (PAIRWISE_FILE, RANK_SETS_FILE, RANK_STABILITY_FILE,
                                                             ALPHA_FILE))
    return LeaderboardInputs(
        spec, tables, registry, manifest, critical.fails,
        pairwise=None if pairwise is None else sorted(
            (PairwiseRow(**{f.name: r[f.name] for f in fields(PairwiseRow)}) for r in pairwise),
            key=lambda row: (row.subject_a, row.subject_b)),
        alpha_rows=None if alpha is None else [AlphaRow(r["subject_id"], r["subject_version"], r["alpha"],
                                                        r["Q_final"], r["rank"]) for r in alpha],
        lab=lab,
        rank_sets=None if sets is None else {r["subject_id"]: RankRange(r["rank_low"], r["rank_high"]) for r in sets},
        incomplete=incomplete_subjects(tables, spec),
        order=None if order is None else [OrderRow(r["subject_a"], r["subject_b"], r["rank_a"], r["rank_b"], r["adjacent"],
                                                   r["alpha_crossing"], None if r["swap_share"] is None
                                                   else float(r["swap_share"])) for r in order],
        difficulty_trend=DifficultyTrendRow(*(trend_rows[0][c] for c in DIFFICULTY_TREND_COLUMNS)) if trend_rows else None,
        reviewers=reviewers, judges=judges,
    ), []


def load_inputs(root: Path) -> tuple[LeaderboardInputs | None, list[Problem]]:
    """``make leaderboard`` alone: system/ and results/ under ``root`` read and checked, then :func:`board_inputs`."""
    root = Path(root)
    spec, problems = load_spec(root)
    if spec is None:
        return None, problems
    published, problems = read_published(root)
    if published is None:   # the registry's problems too, so that one run reports them all
        return None, problems + read_registered_subjects(root, spec)[1]
    return board_inputs(root, spec, published)
