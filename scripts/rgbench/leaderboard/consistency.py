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

* pairwise.csv: the set of pairs (every two scored subjects, subject_a <
  subject_b), ``n_cases``, ``q_diff``, ``p_diff`` and ``p_min``
  (:func:`rgbench.stats.pairwise.paired_case_differences`), and
  ``significantly_better`` against the row's own ``p_holm`` and ``q_diff``, ``family`` against the
  ranking (Holm's family is the pairs of ranked subjects; a pair apart has no adjusted p). The
  bootstrap bounds and the randomisation p-values are only checked to be
  ordered: redoing the draws needs every subject's input digest, which is
  compute_metrics' job, and the manifest's sha256 of the file vouches for them.
* rank_sets.csv: one row per ranked subject, its rank the leaderboard's, with
  rank_low <= rank_low_marginal <= rank <= rank_high_marginal <= rank_high.
* alpha_sensitivity.csv: one row per (subject, alpha of the grid) with the
  subject's version, Q_final and rank (:func:`rgbench.stats.alpha_sensitivity.alpha_sensitivity`).

The exact recomputed rows are returned for the leaderboard to use, so a
rank range never rests on a rounded p-value or a q_diff of ``0.000000``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from fractions import Fraction
from typing import Any, NamedTuple

from ..compute.derive import RunRow
from ..compute.metrics import FamilyMetrics, SubjectMetrics, family_metrics, subject_metrics
from ..compute.ranking import rank_subjects
from ..load.registry import REGISTRY_FILE
from ..load.spec import Spec
from ..numfmt import fmt_bool, fmt_fixed
from ..problems import Problem
from ..stats.alpha_sensitivity import ALPHA_GRID, AlphaRow, OrderRow, alpha_sensitivity, order_stability
from ..stats.case_summary import case_summaries
from ..stats.eligibility import is_incomplete
from ..stats.pairwise import (
    APART,
    RANKED_FAMILY,
    PairwiseRow,
    paired_case_differences,
    significantly_better,
    smallest_p,
)
from ..stats.run_columns import RunColumns
from .intervals import interval_problems
from .manifest import MANIFEST_PATH, Manifest
from .rank_ranges import RankRange
from .registry import RegisteredSubject
from .results_tables import (
    ALPHA_PATH,
    FAMILY_INTERVAL,
    FAMILY_PATH,
    PAIRWISE_PATH,
    PER_RUN_PATH,
    RANK_SETS_PATH,
    RANK_STABILITY_PATH,
    SUBJECT_INTERVALS,
    SUBJECT_PATH,
    ResultTables,
    Row,
    StatsTables,
)

OUT_OF_STEP = "the results are out of step; run `make metrics`"

# (CSV column, SubjectMetrics / FamilyMetrics attribute, formatter) compared between a table and the recomputation.
Fields = tuple[tuple[str, str, Callable[[Any], str]], ...]
_SUBJECT_FIELDS: Fields = (
    ("N", "n", str), ("P", "p", fmt_fixed), ("s_bar", "s_bar", fmt_fixed), ("BS", "bs", fmt_fixed),
    ("ECE", "ece", fmt_fixed), ("Q_final", "q_final", fmt_fixed),
    ("disqualified", "disqualified", fmt_bool), ("n_critical", "n_critical", str),
)
_FAMILY_FIELDS: Fields = (
    ("subject_version", "subject_version", str), ("n_family", "n_family", str),
    ("P_family", "p_family", fmt_fixed), ("s_bar_family", "s_bar_family", fmt_fixed),
)


def _mismatches(committed: object, recomputed: object, compared: Fields) -> Iterator[tuple[str, str, str]]:
    """(column, committed text, recomputed text) of each of the ``compared`` fields in which the records differ."""
    for column, attribute, fmt in compared:
        have, want = fmt(getattr(committed, attribute)), fmt(getattr(recomputed, attribute))
        if have != want:
            yield column, have, want


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


# per_run.csv's cells of the optional fields (issue 23) and the Spec flag that says whether they are filled
_RECORDED_CELLS = (("rubric_floor", "has_rubric_floor"), ("rubric_ceiling", "has_rubric_ceiling"),
                   ("classification", "has_pass_rule"), ("reported_confidence", "has_confidence"),
                   ("confidence_unit", "has_confidence"), ("correctness", "has_correctness"))


def recorded_cell_problems(tables: ResultTables, spec: Spec) -> list[Problem]:
    """The cells of a field system/ records are filled in every row, those of a field it does not record empty."""
    problems = []
    for column, flag in _RECORDED_CELLS:
        wanted = getattr(spec, flag)
        odd = sum(1 for row in tables.runs if (getattr(row, column) is None) == wanted)
        if odd:
            state = "empty" if wanted else "filled"
            problems.append(Problem(PER_RUN_PATH, f"{column} is {state} in {odd} of {len(tables.runs)} rows, but "
                                                  f"system/ {'records' if wanted else 'does not record'} it "
                                                  f"({OUT_OF_STEP})"))
    return problems


def check_runs(tables: ResultTables, spec: Spec) -> list[Problem]:
    """Each per-run row belongs to a subject row of the same version and to a family system/ declares, and fills
    exactly the optional cells system/ records (:func:`recorded_cell_problems`)."""
    problems = recorded_cell_problems(tables, spec)
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
                            alpha=m.alpha, bins=spec.ece_bins, scale=spec.scale) for m in tables.subjects]


def check_subject_figures(tables: ResultTables, recomputed: list[SubjectMetrics]) -> list[Problem]:
    """Each subject row equals what the pipeline's formulas give on that subject's per-run rows
    (``recomputed``: :func:`recomputed_subjects`)."""
    problems = []
    for m, expected in zip(tables.subjects, recomputed):
        line = tables.subject_lines[m.subject_id]
        for column, have, want in _mismatches(m, expected, _SUBJECT_FIELDS):
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
        for column, have, should in _mismatches(f, want, _FAMILY_FIELDS):
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
        listed = len(extras.get("missing_cases", "").split())
        if "n_cases_missing" in extras and extras["n_cases_missing"] != listed:
            problems.append(Problem(SUBJECT_PATH, f"line {line}: n_cases_missing of {sid!r} is "
                                                  f"{extras['n_cases_missing']} but missing_cases lists {listed} "
                                                  f"({OUT_OF_STEP})"))
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


def incomplete_subjects(tables: ResultTables, spec: Spec) -> frozenset[str]:
    """The subjects below config.yaml's min_case_coverage, from metrics_per_subject.csv's n_cases and
    n_cases_missing (none when the results carry no n_cases_missing: older results)."""
    out = set()
    for sid, extras in tables.subject_extras.items():
        if "n_cases" in extras and "n_cases_missing" in extras and is_incomplete(
                extras["n_cases"], extras["n_cases_missing"], spec.stats.min_case_coverage):
            out.add(sid)
    return frozenset(out)


def expected_pairwise(tables: ResultTables, manifest: Manifest, spec: Spec) -> dict[tuple[str, str], tuple]:
    """(n_cases, q_diff, p_diff, p_min) of every pair of scored subjects recomputed exactly from per_run.csv
    (p_min: :func:`rgbench.stats.pairwise.smallest_p` of the pair's Q_final differences)."""
    grouped = runs_by_subject(tables.runs)
    columns = RunColumns.of({m.subject_id: grouped.get(m.subject_id, []) for m in tables.subjects})
    summaries = case_summaries(columns, alpha=manifest.alpha, scale=spec.scale, bins=spec.ece_bins)
    apart, groups = paired_case_differences(summaries)
    out: dict[tuple[str, str], tuple] = {pair: (0, None, None, None) for pair in apart}
    for group in groups:
        for j, pair in enumerate(group.pairs):   # no pass rule: no P, so no p_diff
            out[pair] = (group.n, group.mean_q(j), group.mean_p(j) if spec.has_pass_rule else None,
                         smallest_p(group.q[:, j]))
    return out


def _row_of(values: dict[str, Any]) -> PairwiseRow:
    """A parsed pairwise.csv row as the statistics' record (every field is a column)."""
    return PairwiseRow(**{field.name: values[field.name] for field in fields(PairwiseRow)})


def check_pairwise(file_rows: dict[tuple[str, str], Row], expected: dict[tuple[str, str], tuple],
                   subjects: set[str], level: Fraction, correction: str = "holm",
                   ranked: set[str] | None = None) -> list[Problem]:
    """Each row of pairwise.csv agrees with the recomputation; no pair is missing or extra. With ``ranked``
    (the ranked subject_ids): ``family`` is ``ranked`` exactly for the pairs of two ranked subjects, and a pair
    ``apart`` has no p_holm or p_bh (the family is the board's claims, aggregate_metrics.md §20)."""
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
            problem(row.line, f"({a}, {b}): a subject has no scored run in {PER_RUN_PATH} ({OUT_OF_STEP})")
            continue
        v = row.values
        for column, should in zip(("n_cases", "q_diff", "p_diff", "p_min"), want):
            if fmt_fixed(v[column]) != fmt_fixed(should):  # n_cases too: equal integers, equal texts
                problem(row.line, f"{column} of ({a}, {b}) is {v[column]} but {PER_RUN_PATH} gives {should} "
                                  f"({OUT_OF_STEP})")
        if ranked is not None:
            family = RANKED_FAMILY if a in ranked and b in ranked else APART
            if v["family"] != family:
                problem(row.line, f"family of ({a}, {b}) is {v['family'] or 'empty'} but the leaderboard's ranking "
                                  f"gives {family} ({OUT_OF_STEP})")
            elif family == APART and (v["p_holm"] is not None or v["p_bh"] is not None):
                problem(row.line, f"({a}, {b}) is outside the family (apart) but has p_holm or p_bh ({OUT_OF_STEP})")
        if v["p_min"] is not None and v["p_value"] is not None and v["p_value"] < v["p_min"]:
            problem(row.line, f"p_value {fmt_fixed(v['p_value'])} of ({a}, {b}) is below its p_min "
                              f"{fmt_fixed(v['p_min'])} ({OUT_OF_STEP})")
        better = significantly_better(_row_of(v), level, correction) or ""
        if v["significantly_better"] != better:
            adjusted = "p_bh" if correction == "benjamini-hochberg" else "p_holm"
            problem(row.line, f"significantly_better of ({a}, {b}) is {v['significantly_better'] or 'empty'} but its "
                              f"{adjusted} and q_diff give {better or 'empty'} at significance level "
                              f"{fmt_fixed(level)} ({OUT_OF_STEP})")
        for low, high in (("q_diff_low", "q_diff_high"), ("p_diff_low", "p_diff_high")):
            if v[low] is not None and v[high] is not None and v[low] > v[high]:
                problem(row.line, f"{low} {fmt_fixed(v[low])} is above {high} {fmt_fixed(v[high])} ({OUT_OF_STEP})")
    for a, b in sorted(set(expected) - set(file_rows)):
        problems.append(Problem(PAIRWISE_PATH, f"no row for ({a}, {b}), two scored subjects of {PER_RUN_PATH} "
                                               f"({OUT_OF_STEP})"))
    return problems


def check_rank_sets(file_rows: dict[tuple[str], Row], ranks: dict[str, int]) -> list[Problem]:
    """One row per ranked subject (``ranks``: subject_id -> leaderboard rank), sets nested around the rank."""
    problems = []
    for (sid,), row in sorted(file_rows.items(), key=lambda item: item[1].line):
        v = row.values
        if sid not in ranks:
            problems.append(Problem(RANK_SETS_PATH, f"line {row.line}: {sid!r} is not ranked ({OUT_OF_STEP})"))
            continue
        chain = (1, v["rank_low"], v["rank_low_marginal"], v["rank"], v["rank_high_marginal"], v["rank_high"],
                 len(ranks))
        if v["rank"] != ranks[sid] or list(chain) != sorted(chain):
            problems.append(Problem(RANK_SETS_PATH, f"line {row.line}: {sid!r} needs rank {ranks[sid]} and "
                                                    "1 <= rank_low <= rank_low_marginal <= rank <= rank_high_marginal "
                                                    f"<= rank_high <= {len(ranks)} ({OUT_OF_STEP})"))
    for sid in sorted(set(ranks) - {key[0] for key in file_rows}):
        problems.append(Problem(RANK_SETS_PATH, f"no row for the ranked subject {sid!r} ({OUT_OF_STEP})"))
    return problems


def check_rank_stability(file_rows: dict[tuple[str, str], Row], expected: list[OrderRow]) -> tuple[list[OrderRow], list[Problem]]:
    """Every pair of ranked subjects once (a above b), ranks, adjacency and alpha_crossing equal to the
    recomputation, swap_share in [0, 1]; returns the rows with the file's swap shares."""
    problems = []
    out = []
    want = {(r.subject_a, r.subject_b): r for r in expected}
    for key, row in sorted(file_rows.items(), key=lambda item: item[1].line):
        v = row.values
        w = want.get(key)
        if w is None:
            problems.append(Problem(RANK_STABILITY_PATH, f"line {row.line}: ({key[0]}, {key[1]}) is not a pair of "
                                                         f"ranked subjects in leaderboard order ({OUT_OF_STEP})"))
            continue
        have = (v["rank_a"], v["rank_b"], v["adjacent"], fmt_fixed(v["alpha_crossing"]))
        should = (w.rank_a, w.rank_b, w.adjacent, fmt_fixed(w.alpha_crossing))
        share = v["swap_share"]
        if have != should or (share is not None and not 0 <= share <= 1):
            problems.append(Problem(RANK_STABILITY_PATH, f"line {row.line}: ({key[0]}, {key[1]}) should have ranks "
                                                         f"{w.rank_a}, {w.rank_b}, adjacent {fmt_bool(w.adjacent)}, "
                                                         f"alpha_crossing {fmt_fixed(w.alpha_crossing) or 'empty'} "
                                                         f"and a swap_share in [0, 1] ({OUT_OF_STEP})"))
            continue
        out.append(OrderRow(*key, w.rank_a, w.rank_b, w.adjacent, w.alpha_crossing,
                            None if share is None else float(share)))
    for key in sorted(set(want) - set(file_rows)):
        problems.append(Problem(RANK_STABILITY_PATH, f"no row for ({key[0]}, {key[1]}) ({OUT_OF_STEP})"))
    return out, problems


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
    rank_sets: dict[str, RankRange] | None = None   # rank_sets.csv, by subject_id
    order: list[OrderRow] | None = None             # rank_stability.csv


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
    incomplete = incomplete_subjects(tables, spec)
    ranked = [(s.rank, s.metrics) for s in rank_subjects(recomputed, incomplete, higher_is_better=spec.higher_is_better)
              if s.rank is not None]
    pairwise = alpha = sets = order = None
    if stats.pairwise is not None:
        expected = expected_pairwise(tables, manifest, spec)
        problems += check_pairwise(stats.pairwise, expected, subjects, level if recorded is None else Fraction(recorded),
                                   spec.stats.pairwise_correction, {m.subject_id for _, m in ranked})
        pairwise = [_row_of(stats.pairwise[pair].values) for pair in sorted(stats.pairwise)]
    if stats.rank_sets is not None:
        problems += check_rank_sets(stats.rank_sets, {m.subject_id: rank for rank, m in ranked})
        sets = {sid: RankRange(r.values["rank_low"], r.values["rank_high"]) for (sid,), r in stats.rank_sets.items()}
    if stats.rank_stability is not None:
        order, more = check_rank_stability(stats.rank_stability, order_stability(ranked, spec.scale, None))
        problems += more
    if stats.alpha is not None:
        # no pass rule: no P to weigh against the score, so no row (alpha_sensitivity.csv is its header)
        rows = alpha_sensitivity(recomputed, spec.scale, incomplete=incomplete) if spec.has_pass_rule else []
        expected_alpha = {(row.subject_id, row.alpha): row for row in rows}
        problems += check_alpha(stats.alpha, expected_alpha, subjects)
        alpha = rows
    return CheckedStats(pairwise, alpha, problems, sets, order)
