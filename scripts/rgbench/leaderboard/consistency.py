"""Cross-checks between the result tables, the registry, the manifest and ``system/``.

The leaderboard publishes numbers; it must never publish numbers the committed
per-run table does not support, or show a name the registry no longer gives to
that version. Each function returns problems (``path: line N: message``) and
never raises. The per-subject and per-family figures are recomputed from
per_run.csv with the pipeline's own formulas (:mod:`rgbench.compute.metrics`) and
compared at the committed precision (6 decimals).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ..compute.derive import RunRow
from ..compute.metrics import FamilyMetrics, SubjectMetrics, family_metrics, subject_metrics
from ..compute.numfmt import fmt_bool, fmt_fixed
from ..load.spec import Spec
from ..problems import Problem
from .intervals import interval_problems
from .manifest import MANIFEST_PATH, Manifest
from .registry import REGISTRY_PATH, RegisteredSubject
from .results_tables import FAMILY_INTERVAL, FAMILY_PATH, PER_RUN_PATH, SUBJECT_INTERVALS, SUBJECT_PATH, ResultTables

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
            problems.append(Problem(SUBJECT_PATH, f"no row for {sid!r}, which {REGISTRY_PATH} registers ({OUT_OF_STEP})"))
        elif rows[sid].subject_version != subject.subject_version:
            line = tables.subject_lines[sid]
            problems.append(Problem(SUBJECT_PATH, f"line {line}: {sid!r} has version {rows[sid].subject_version!r} but "
                                                  f"{REGISTRY_PATH} registers {subject.subject_version!r} ({OUT_OF_STEP})"))
    for sid in sorted(set(rows) - set(registered)):
        problems.append(Problem(SUBJECT_PATH, f"line {tables.subject_lines[sid]}: {sid!r} is not registered in "
                                              f"{REGISTRY_PATH} ({OUT_OF_STEP})"))
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


def _runs_by_subject(runs: Sequence[RunRow]) -> dict[str, list[RunRow]]:
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
    runs = _runs_by_subject(tables.runs)
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
    cases: dict[str, set[str]] = defaultdict(set)
    for row in tables.runs:
        cases[row.subject_id].add(row.case_id)
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
