"""Read ``results/pairwise.csv`` and ``results/alpha_sensitivity.csv`` (written by compute_metrics) exactly.

Both are parsed as strictly as the core tables (:mod:`.results_tables`): the
header must start with the columns compute_metrics writes
(``rgbench.stats.outputs.PAIRWISE_COLUMNS`` / ``ALPHA_COLUMNS``), integers are
plain digits, fractions have exactly six decimals, and a key (a pair, a
(subject, alpha)) appears once. A file is required when the manifest lists it
among its ``outputs`` (every compute_metrics since the statistics does); results
older than that carry neither file, and the leaderboard then shows no rank
ranges and no alpha statement. Whether the values are *right* is
:mod:`.stats_consistency`'s business.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..compute.numfmt import fmt_fixed
from ..problems import Problem
from ..stats.outputs import ALPHA_FILE, PAIRWISE_FILE
from .manifest import Manifest
from .results_tables import RESULTS_DIR, Parser, Row, _fixed, _fixed_or_empty, _int, _text, read_csv

PAIRWISE_PATH = f"{RESULTS_DIR}/{PAIRWISE_FILE}"
ALPHA_PATH = f"{RESULTS_DIR}/{ALPHA_FILE}"


def _any_text(cell: str) -> str:
    """A cell that may be empty (``significantly_better``: a subject_id or nothing)."""
    return cell


def _int_or_empty(cell: str) -> int | None:
    return None if cell == "" else _int(cell)


PAIRWISE_TYPES: dict[str, Parser] = {
    "subject_a": _text, "subject_b": _text, "n_pairs": _int, "a_pass_b_not": _int, "b_pass_a_not": _int,
    "mcnemar_p": _fixed, "q_diff": _fixed, "q_diff_low": _fixed, "q_diff_high": _fixed, "p_holm": _fixed,
    "n_cases": _int, "significantly_better": _any_text,
}
ALPHA_TYPES: dict[str, Parser] = {
    "subject_id": _text, "subject_version": _text, "alpha": _fixed, "Q_final": _fixed_or_empty,
    "rank": _int_or_empty,
}
# The columns the leaderboard reads: the start of the header compute_metrics writes
# (rgbench.stats.outputs.PAIRWISE_COLUMNS / ALPHA_COLUMNS; a test keeps them in step).
PAIRWISE_COLUMNS = tuple(PAIRWISE_TYPES)
ALPHA_COLUMNS = tuple(ALPHA_TYPES)


@dataclass(frozen=True)
class StatsTables:
    """The parsed rows (each with its line number), keyed: (subject_a, subject_b) and (subject_id, alpha).

    A table is None when its file is absent and the manifest does not list it.
    """

    pairwise: dict[tuple[str, str], Row] | None
    alpha: dict[tuple[str, Fraction], Row] | None
    digests: dict[str, str]


def _keyed(rel: str, rows: list[Row], key_columns: tuple[str, str], describe) -> tuple[dict, list[Problem]]:
    """Rows by key; a repeated key is a problem naming both lines."""
    keyed: dict = {}
    problems = []
    for row in rows:
        key = tuple(row.values[column] for column in key_columns)
        if key in keyed:
            problems.append(Problem(rel, f"line {row.line}: {describe(key)} repeats line {keyed[key].line}"))
        else:
            keyed[key] = row
    return keyed, problems


def _wanted(root: Path, rel: str, manifest: Manifest) -> bool:
    """Read the file when the manifest lists it (then it must exist) or when it is there anyway."""
    return rel.removeprefix(f"{RESULTS_DIR}/") in manifest.outputs or os.path.lexists(Path(root) / rel)


def read_stats_tables(root: Path, manifest: Manifest) -> tuple[StatsTables | None, list[Problem]]:
    """Read both files under ``root/results``; (tables, []) or (None, problems)."""
    digests: dict[str, str] = {}
    problems: list[Problem] = []
    pairwise = alpha = None
    if _wanted(root, PAIRWISE_PATH, manifest):
        rows, more = read_csv(root, PAIRWISE_PATH, PAIRWISE_COLUMNS, PAIRWISE_TYPES, digests=digests)
        pairwise, repeated = _keyed(PAIRWISE_PATH, rows, ("subject_a", "subject_b"),
                                    lambda key: f"pair ({key[0]}, {key[1]})")
        problems += more + repeated
    if _wanted(root, ALPHA_PATH, manifest):
        rows, more = read_csv(root, ALPHA_PATH, ALPHA_COLUMNS, ALPHA_TYPES, digests=digests)
        alpha, repeated = _keyed(ALPHA_PATH, rows, ("subject_id", "alpha"),
                                 lambda key: f"({key[0]}, alpha {fmt_fixed(key[1])})")
        problems += more + repeated
    if problems:
        return None, problems
    return StatsTables(pairwise, alpha, digests), []
