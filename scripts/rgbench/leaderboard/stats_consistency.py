"""Cross-check pairwise.csv and alpha_sensitivity.csv against per_run.csv, and return their exact rows.

The leaderboard never publishes a rank range or an alpha statement the
committed per-run table does not support. Like the subject and family figures
(:mod:`.consistency`), every deterministic column is recomputed from
per_run.csv with the statistics' own public functions and compared at the
committed precision:

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

from fractions import Fraction
from typing import NamedTuple

from ..compute.metrics import SubjectMetrics
from ..compute.numfmt import fmt_fixed
from ..load.spec import Spec
from ..problems import Problem
from ..stats.alpha_sensitivity import ALPHA_GRID, AlphaRow, alpha_sensitivity
from ..stats.pairwise import PairwiseRow, pairwise_table, significantly_better
from .consistency import OUT_OF_STEP
from .manifest import MANIFEST_PATH, Manifest
from .results_tables import ALPHA_PATH, PAIRWISE_PATH, PER_RUN_PATH, SUBJECT_PATH, ResultTables, Row, StatsTables

# The columns of pairwise.csv compared with the recomputed PairwiseRow's field of the same name.
_PAIR_FIELDS = (("n_pairs", str), ("a_pass_b_not", str), ("b_pass_a_not", str), ("mcnemar_p", fmt_fixed),
                ("q_diff", fmt_fixed), ("p_holm", fmt_fixed), ("n_cases", str))


def significance_level(manifest: Manifest, spec: Spec) -> tuple[Fraction, list[Problem]]:
    """config.yaml's significance level, and a problem when the manifest recorded another one."""
    level = spec.stats.significance_level
    recorded = manifest.significance_level
    if recorded is not None and Fraction(recorded) != level:
        return level, [Problem(MANIFEST_PATH, f"$.statistics.significance_level: {recorded} but {spec.config_path} "
                                              f"says {fmt_fixed(level)} ({OUT_OF_STEP})")]
    return level, []


def expected_pairwise(tables: ResultTables, manifest: Manifest, spec: Spec) -> dict[tuple[str, str], PairwiseRow]:
    """pairwise.csv's rows recomputed exactly from per_run.csv, by (subject_a, subject_b).

    The bootstrap bounds of these rows are placeholders (one resample): only the
    deterministic columns are used.
    """
    runs: dict[str, list] = {m.subject_id: [] for m in tables.subjects}
    for row in tables.runs:
        if row.subject_id in runs:
            runs[row.subject_id].append(row)
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
    """The exact rows behind pairwise.csv and alpha_sensitivity.csv (None: file absent), the
    significance level of the rank ranges and the problems found."""

    pairwise: list[PairwiseRow] | None
    alpha_rows: list[AlphaRow] | None
    significance_level: Fraction
    problems: list[Problem]


def check_stats_tables(stats: StatsTables, tables: ResultTables, manifest: Manifest, spec: Spec,
                       recomputed: list[SubjectMetrics]) -> CheckedStats:
    """Check both files against the recomputation (``recomputed``: :func:`~.consistency.recomputed_subjects`).

    A table absent from ``stats`` gives None. The exact rows come in the files'
    order: (subject_a, subject_b) and (subject_id, alpha).
    """
    level, problems = significance_level(manifest, spec)
    subjects = {m.subject_id for m in tables.subjects}
    pairwise = alpha = None
    if stats.pairwise is not None:
        expected = expected_pairwise(tables, manifest, spec)
        recorded = Fraction(manifest.significance_level) if manifest.significance_level is not None else level
        problems += check_pairwise(stats.pairwise, expected, subjects, recorded)
        pairwise = [expected[key] for key in sorted(expected)]
    if stats.alpha is not None:
        rows = alpha_sensitivity(recomputed, spec.max_score)
        expected_alpha = {(row.subject_id, row.alpha): row for row in rows}
        problems += check_alpha(stats.alpha, expected_alpha, subjects)
        alpha = rows
    return CheckedStats(pairwise, alpha, level, problems)
