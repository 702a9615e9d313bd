"""Cross-checks between the result tables (pairwise.csv and alpha_sensitivity.csv included), the registry,
the manifest and ``system/``.

The leaderboard publishes numbers; it must never publish numbers (a rank range,
an alpha statement) the committed per-run table does not support, or show a
name the registry no longer gives to that version. Each function returns
problems (``path: line N: message``) and never raises. The per-subject and
per-family figures are recomputed from per_run.csv with the pipeline's own
formulas (:mod:`rgbench.compute.metrics`), the deterministic columns of the
statistics tables with the statistics' own public functions, and compared at the
committed precision (6 decimals):

* pairwise.csv: the set of pairs (every two subjects of metrics_per_subject.csv
  sharing a scored run, subject_a < subject_b), ``n_pairs``, the discordant
  counts, ``mcnemar_p``, ``q_diff``, ``p_holm``, ``n_cases`` and
  ``significantly_better`` (:func:`rgbench.stats.pairwise.pairwise_table`). The
  bootstrap bounds ``q_diff_low``/``q_diff_high`` are only checked to be
  ordered: redoing the bootstrap is compute_metrics' job, and the manifest's
  sha256 of the file vouches for them.
* alpha_sensitivity.csv: one row per (subject, alpha of the grid) with the
  subject's version, Q_final and rank (:func:`rgbench.stats.alpha_sensitivity.alpha_sensitivity`).

The exact recomputed rows are returned for the leaderboard to use, so a
rank range never rests on a rounded p-value or a q_diff of ``0.000000``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from typing import NamedTuple

from ..compute.derive import RunRow
from ..compute.metrics import FamilyMetrics, SubjectMetrics, family_metrics, subject_metrics
from ..compute.numfmt import fmt_bool, fmt_fixed
from ..load.registry import REGISTRY_FILE
from ..load.spec import Spec
from ..problems import Problem
from ..stats.alpha_sensitivity import ALPHA_GRID, AlphaRow, alpha_sensitivity
from ..stats.pairwise import PairwiseRow, pairwise_table, significantly_better
from .intervals import interval_problems
from .manifest import MANIFEST_PATH, Manifest
from .registry import RegisteredSubject
from .results_tables import (
    ALPHA_PATH,
    FAMILY_INTERVAL,
    FAMILY_PATH,
    PAIRWISE_PATH,
    PER_RUN_PATH,
    SUBJECT_INTERVALS,
    SUBJECT_PATH,
    ResultTables,
    Row,
    StatsTables,
)

OUT_OF_STEP = "the results are out of step; run `make metrics`"

# (CSV column, SubjectMetrics attribute, formatter) compared between the table and the recomputation.
_SUBJECT_FIELDS = (
    ("N", "n", str), ("P", "p", fmt_fixed), ("s_bar", "s_bar", fmt_fixed), ("BS", "bs", fmt_fixed),
    ("ECE", "ece", fmt_fixed), ("Q_final", "q_final", fmt_fixed),
    ("disqualified", "disqualified", fmt_bool), ("n_critical", "n_critical", str),
)


def check_registry(tables: ResultTables, registered: dict[str, RegisteredSubject]) -> list[Problem]:
    """Every registered subject has a metrics row at the registered version, and every row is registered."""
    problems = []
    rows = {m.subject_id: m for m in tables.subjects}
    for sid, subject in sorted(registered.items()):
        if sid not in rows:
            problems.append(Problem(SUBJECT_PATH, f"no row for {sid!r}, which {REGISTRY_FILE} registers ({OUT_OF_STEP})"))
        elif rows[sid].subject_version != subject.subject_version:
            line = tables.subject_lines[sid]
            problems.append(Problem(SUBJECT_PATH, f"line {line}: {sid!r} has version {rows[sid].subject_version!r} but "
                                                  f"{REGISTRY_FILE} registers {subject.subject_version!r} ({OUT_OF_STEP})"))
    for sid in sorted(set(rows) - set(registered)):
        problems.append(Problem(SUBJECT_PATH, f"line {tables.subject_lines[sid]}: {sid!r} is not registered in "
                                              f"{REGISTRY_FILE} ({OUT_OF_STEP})"))
    return problems


def check_manifest(tables: ResultTables, manifest: Manifest, spec: Spec) -> list[Problem]:
    """The manifest's alpha is every row's alpha; its benchmark version is system/'s."""
    problems = []
    if manifest.benchmark_version != spec.benchmark_version:
        problems.append(Problem(MANIFEST_PATH, f"$.benchmark_version: {manifest.benchmark_version!r} but "
                                               f"system/benchmark.yaml says {spec.benchmark_version!r} ({OUT_OF_STEP})"))
    for m in tables.subjects:
        if m.alpha != manifest.alpha:
            problems.append(Problem(SUBJECT_PATH, f"line {tables.subject_lines[m.subject_id]}: alpha {fmt_fixed(m.alpha)} "
                                                  f"but {MANIFEST_PATH} records {manifest.alpha_text} ({OUT_OF_STEP})"))
    return problems


def runs_by_subject(runs: Sequence[RunRow]) -> dict[str, list[RunRow]]:
    """subject_id -> its per-run rows, in per_run.csv's order."""
    grouped: dict[str, list[RunRow]] = defaultdict(list)
    for row in runs:
        grouped[row.subject_id].append(row)
    return grouped


def check_runs(tables: ResultTables, spec: Spec) -> list[Problem]:
    """Each per-run row belongs to a subject row of the same version and to a family system/ declares."""
    problems = []
    versions = {m.subject_id: m.subject_version for m in tables.subjects}
    bad_subjects: set[tuple[str, str]] = set()
    for row in tables.runs:
        if versions.get(row.subject_id) != row.subject_version:
            bad_subjects.add((row.subject_id, row.subject_version))
        if row.family not in spec.families:
            problems.append(Problem(PER_RUN_PATH, f"family {row.family!r} of {row.case_id} is not declared in "
                                                  f"system/benchmark.yaml ({OUT_OF_STEP})"))
    for sid, version in sorted(bad_subjects):
        problems.append(Problem(PER_RUN_PATH,
                                f"rows for ({sid}, {version}) have no matching row in {SUBJECT_PATH} ({OUT_OF_STEP})"))
    return sorted(set(problems))


def recomputed_subjects(tables: ResultTables, spec: Spec) -> list[SubjectMetrics]:
    """Each subject row's metrics recomputed exactly from its per-run rows (same order, each row's alpha)."""
    runs = runs_by_subject(tables.runs)
    return [subject_metrics(m.subject_id, m.subject_version, runs.get(m.subject_id, []), m.n_unscored,
                            alpha=m.alpha, bins=spec.ece_bins, max_score=spec.max_score) for m in tables.subjects]


def check_subject_figures(tables: ResultTables, recomputed: list[SubjectMetrics]) -> list[Problem]:
    """Each subject row equals what the pipeline's formulas give on that subject's per-run rows
    (``recomputed``: :func:`recomputed_subjects`)."""
    problems = []
    for m, expected in zip(tables.subjects, recomputed):
        line = tables.subject_lines[m.subject_id]
        for column, attribute, fmt in _SUBJECT_FIELDS:
            have, want = fmt(getattr(m, attribute)), fmt(getattr(expected, attribute))
            if have != want:
                problems.append(Problem(SUBJECT_PATH, f"line {line}: {column} of {m.subject_id!r} is {have or 'empty'} but "
                                                      f"{PER_RUN_PATH} gives {want or 'empty'} ({OUT_OF_STEP})"))
    return problems


def check_family_figures(tables: ResultTables, spec: Spec) -> list[Problem]:
    """The family table is exactly what the pipeline's formulas give on per_run.csv, families declared."""
    problems = []
    expected: dict[tuple[str, str], FamilyMetrics] = {(f.subject_id, f.family): f for f in family_metrics(tables.runs)}
    for f in tables.families:
        key = (f.subject_id, f.family)
        line = tables.family_lines[key]
        if f.family not in spec.families:
            problems.append(Problem(FAMILY_PATH, f"line {line}: family {f.family!r} is not declared in system/benchmark.yaml"))
        want = expected.get(key)
        if want is None:
            problems.append(Problem(FAMILY_PATH,
                                    f"line {line}: ({f.subject_id}, {f.family}) has no runs in {PER_RUN_PATH} ({OUT_OF_STEP})"))
            continue
        for column, have, should in (
            ("subject_version", f.subject_version, want.subject_version),
            ("n_family", str(f.n_family), str(want.n_family)),
            ("P_family", fmt_fixed(f.p_family), fmt_fixed(want.p_family)),
            ("s_bar_family", fmt_fixed(f.s_bar_family), fmt_fixed(want.s_bar_family)),
        ):
            if have != should:
                problems.append(Problem(FAMILY_PATH, f"line {line}: {column} of ({f.subject_id}, {f.family}) is {have} but "
                                                     f"{PER_RUN_PATH} gives {should} ({OUT_OF_STEP})"))
    for key in sorted(set(expected) - set(tables.family_lines)):
        problems.append(Problem(FAMILY_PATH,
                                f"no row for ({key[0]}, {key[1]}), which has runs in {PER_RUN_PATH} ({OUT_OF_STEP})"))
    return problems


def check_statistics(tables: ResultTables) -> list[Problem]:
    """Optional statistics columns: intervals complete and ordered, n_cases equal to per_run.csv's distinct cases."""
    problems = []
    cases = defaultdict(set, {sid: {row.case_id for row in rows} for sid, rows in runs_by_subject(tables.runs).items()})
    for sid, extras in sorted(tables.subject_extras.items()):
        line = tables.subject_lines[sid]
        problems += [Problem(SUBJECT_PATH, f"line {line}: {message} ({OUT_OF_STEP})")
                     for message in interval_problems(extras, SUBJECT_INTERVALS.values())]
        if "n_cases" in extras and extras["n_cases"] != len(cases[sid]):
            problems.append(Problem(SUBJECT_PATH, f"line {line}: n_cases of {sid!r} is {extras['n_cases']} but "
                                                  f"{PER_RUN_PATH} has {len(cases[sid])} distinct cases ({OUT_OF_STEP})"))
    for key, extras in sorted(tables.family_extras.items()):
        problems += [Problem(FAMILY_PATH, f"line {tables.family_lines[key]}: {message} ({OUT_OF_STEP})")
                     for message in interval_problems(extras, [FAMILY_INTERVAL])]
    return problems


def check_all(tables: ResultTables, registered: dict[str, RegisteredSubject], manifest: Manifest, spec: Spec,
              recomputed: list[SubjectMetrics]) -> list[Problem]:
    """Every cross-check above, in one list."""
    return (check_registry(tables, registered) + check_manifest(tables, manifest, spec) + check_runs(tables, spec)
            + check_subject_figures(tables, recomputed) + check_family_figures(tables, spec)
            + check_statistics(tables))


# The columns of pairwise.csv compared with the recomputed PairwiseRow's field of the same name.
_PAIR_FIELDS = (("n_pairs", str), ("a_pass_b_not", str), ("b_pass_a_not", str), ("mcnemar_p", fmt_fixed),
                ("q_diff", fmt_fixed), ("p_holm", fmt_fixed), ("n_cases", str))


def expected_pairwise(tables: ResultTables, manifest: Manifest, spec: Spec) -> dict[tuple[str, str], PairwiseRow]:
    """pairwise.csv's rows recomputed exactly from per_run.csv, by (subject_a, subject_b).

    The bootstrap bounds of these rows are placeholders (one resample): only the
    deterministic columns are used.
    """
    grouped = runs_by_subject(tables.runs)
    runs = {m.subject_id: grouped.get(m.subject_id, []) for m in tables.subjects}
    rows = pairwise_table(runs, alpha=manifest.alpha, max_score=spec.max_score, seed=0, resamples=1,
                          confidence=Fraction(1, 2))
    return {(row.subject_a, row.subject_b): row for row in rows}


def check_pairwise(file_rows: dict[tuple[str, str], Row], expected: dict[tuple[str, str], PairwiseRow],
                   subjects: set[str], level: Fraction) -> list[Problem]:
    """Each row of pairwise.csv equals the recomputation; no pair is missing or extra."""
    problems = []

    def problem(line: int, message: str) -> None:
        problems.append(Problem(PAIRWISE_PATH, f"line {line}: {message}"))

    for (a, b), row in sorted(file_rows.items(), key=lambda item: item[1].line):
        unknown = [sid for sid in (a, b) if sid not in subjects]
        if unknown:
            problem(row.line, f"subject {unknown[0]!r} has no row in {SUBJECT_PATH} ({OUT_OF_STEP})")
            continue
        if not a < b:
            problem(row.line, f"subject_a {a!r} must sort before subject_b {b!r} (code-point order; {OUT_OF_STEP})")
            continue
        want = expected.get((a, b))
        if want is None:
            problem(row.line, f"({a}, {b}) share no scored run in {PER_RUN_PATH} ({OUT_OF_STEP})")
            continue
        v = row.values
        for column, fmt in _PAIR_FIELDS:
            have, should = fmt(v[column]), fmt(getattr(want, column))
            if have != should:
                problem(row.line, f"{column} of ({a}, {b}) is {have} but {PER_RUN_PATH} gives {should} ({OUT_OF_STEP})")
        better = significantly_better(want, level) or ""
        if v["significantly_better"] != better:
            problem(row.line, f"significantly_better of ({a}, {b}) is {v['significantly_better'] or 'empty'} but "
                              f"{PER_RUN_PATH} gives {better or 'empty'} at significance level {fmt_fixed(level)} "
                              f"({OUT_OF_STEP})")
        q_low, q_high = v["q_diff_low"], v["q_diff_high"]
        if q_low > q_high:
            problem(row.line, f"q_diff_low {fmt_fixed(q_low)} is above q_diff_high "
                              f"{fmt_fixed(q_high)} ({OUT_OF_STEP})")
    for a, b in sorted(set(expected) - set(file_rows)):
        problems.append(Problem(PAIRWISE_PATH, f"no row for ({a}, {b}), which share {expected[(a, b)].n_pairs} scored "
                                               f"run(s) in {PER_RUN_PATH} ({OUT_OF_STEP})"))
    return problems


def check_alpha(file_rows: dict[tuple[str, Fraction], Row], expected: dict[tuple[str, Fraction], AlphaRow],
                subjects: set[str]) -> list[Problem]:
    """Each row of alpha_sensitivity.csv equals the recomputation; no (subject, alpha) is missing or extra."""
    problems = []
    grid = ", ".join(fmt_fixed(alpha) for alpha in ALPHA_GRID)
    for (sid, alpha), row in sorted(file_rows.items(), key=lambda item: item[1].line):
        where = f"line {row.line}: "
        if sid not in subjects:
            problems.append(Problem(ALPHA_PATH, f"{where}subject {sid!r} has no row in {SUBJECT_PATH} ({OUT_OF_STEP})"))
            continue
        want = expected.get((sid, alpha))
        if want is None:
            problems.append(Problem(ALPHA_PATH, f"{where}alpha {fmt_fixed(alpha)} is not on the grid ({grid}; {OUT_OF_STEP})"))
            continue
        v = row.values
        for column, have, should in (
            ("subject_version", v["subject_version"], want.subject_version),
            ("Q_final", fmt_fixed(v["Q_final"]), fmt_fixed(want.q_final)),
            ("rank", "" if v["rank"] is None else str(v["rank"]), "" if want.rank is None else str(want.rank)),
        ):
            if have != should:
                problems.append(Problem(ALPHA_PATH, f"{where}{column} of {sid!r} at alpha {fmt_fixed(alpha)} is "
                                                    f"{have or 'empty'} but {PER_RUN_PATH} gives {should or 'empty'} "
                                                    f"({OUT_OF_STEP})"))
    for sid, alpha in sorted(set(expected) - set(file_rows)):
        problems.append(Problem(ALPHA_PATH, f"no row for ({sid}, alpha {fmt_fixed(alpha)}) ({OUT_OF_STEP})"))
    return problems


class CheckedStats(NamedTuple):
    """The exact rows behind pairwise.csv and alpha_sensitivity.csv (None: file absent) and the problems found."""

    pairwise: list[PairwiseRow] | None
    alpha_rows: list[AlphaRow] | None
    problems: list[Problem]


def check_stats_tables(stats: StatsTables, tables: ResultTables, manifest: Manifest, spec: Spec,
                       recomputed: list[SubjectMetrics]) -> CheckedStats:
    """Check both files against the recomputation (``recomputed``: :func:`recomputed_subjects`), and the
    manifest's significance level against config.yaml's.

    A table absent from ``stats`` gives None. The exact rows come in the files'
    order: (subject_a, subject_b) and (subject_id, alpha).
    """
    problems = []
    level, recorded = spec.stats.significance_level, manifest.significance_level
    if recorded is not None and Fraction(recorded) != level:
        problems.append(Problem(MANIFEST_PATH, f"$.statistics.significance_level: {recorded} but {spec.config_path} "
                                               f"says {fmt_fixed(level)} ({OUT_OF_STEP})"))
    subjects = {m.subject_id for m in tables.subjects}
    pairwise = alpha = None
    if stats.pairwise is not None:
        expected = expected_pairwise(tables, manifest, spec)
        problems += check_pairwise(stats.pairwise, expected, subjects, level if recorded is None else Fraction(recorded))
        pairwise = [expected[key] for key in sorted(expected)]
    if stats.alpha is not None:
        rows = alpha_sensitivity(recomputed, spec.max_score)
        expected_alpha = {(row.subject_id, row.alpha): row for row in rows}
        problems += check_alpha(stats.alpha, expected_alpha, subjects)
        alpha = rows
    return CheckedStats(pairwise, alpha, problems)
