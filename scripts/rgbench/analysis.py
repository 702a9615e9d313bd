"""The result tables as pandas DataFrames, for analysis in a notebook: :func:`read_results`.

    >>> import rgbench
    >>> tables = rgbench.read_results("path/to/benchmark")     # every results/*.csv, by file stem
    >>> board = tables["leaderboard"]                            # or read_table("results/leaderboard.csv")
    >>> board.loc[board.leaderboard_status == "Ranked", ["subject_id", "Q_final", "Q_final_low", "Q_final_high"]]

Each column gets the type its values have in the result format: booleans (``true``/``false``) as
pandas' nullable ``boolean``, integers as nullable ``Int64``, the 6-decimal fractions as ``float64``
(the decimal read to the nearest float), text as ``string``; a score column (per_run.csv's raw, clipped,
floor and ceiling scores, a reviewer's criterion ``level``) as ``Int64`` when every score is an integer,
else ``float64`` (a decimal or a fraction such as 23/6 read to the nearest float), and a ``level`` that
names a bin of a decimal scale (``0-2.5``) as ``string``; an empty cell (an undefined value, e.g.
P of a subject with no scored run, the rank of a disqualified subject) is missing (``pd.NA``, or
``NaN`` for floats). A cell that does not have its column's format is refused (:class:`TableError`
naming the file, line and column). Columns this module does not know are kept as text.

pandas is an optional dependency (``pip install "rgbench[analysis]"``, pinned in
requirements-analysis.txt): the toolkit never imports it, only this function does, when called.
"""

from __future__ import annotations

import hashlib
import os
import re
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .load.parsing import ParseError, decode_utf8
from .load.safe_read import read_single_file
from .load.scale import parse_score, score_text
from .results_csv import TableError, csv_records

if TYPE_CHECKING:
    import pandas as pd

RESULTS_DIR = "results"

BOOL_COLUMNS = frozenset({"adjacent", "has_critical_fail", "has_recoverable_fail", "disqualified", "monotone_violation",
                          "empty_answer"})
INT_COLUMNS = frozenset({
    "n_levels", "easiest", "hardest", "n_easiest", "n_hardest", "n_cases_missing", "rank_low", "rank_high",
    "rank_low_marginal", "rank_high_marginal", "rank_a", "rank_b",
    "attempts", "confidence", "input_tokens", "output_tokens", "max_runs_per_case", "min_difficulty", "n",
    "n_answered", "n_errors", "n_participants", "n_refused", "n_responses", "n_with_usage",
    "reported_confidence", "N", "n_unscored",
    "n_critical", "n_cases", "n_family", "bin", "count", "n_pairs", "a_pass_b_not", "b_pass_a_not", "k",
    "difficulty", "n_runs", "n_pass", "rank", "rank_best", "rank_worst", "n_units",
})
FLOAT_COLUMNS = frozenset({
    "p_bh", "p_min", "value_low", "value_high", "kendall_tau_b", "kendall_p", "separation", "separation_low", "separation_high",
    "P_family_low", "P_family_high", "ECE_calibrated_mean", "ECE_calibrated_share", "BS_reliability_corrected",
    "BS_resolution_corrected", "BS_uncertainty_corrected", "p_diff", "p_diff_low", "p_diff_high", "p_value",
    "q_diff_sd", "p_diff_sd", "q_mde", "p_mde", "alpha_crossing", "swap_share",
    "P_low", "P_high", "ci_low", "ci_high", "cost", "cost_per_pass", "cost_per_run", "geomean_cost_pass",
    "geomean_cost_run", "input_per_million", "output_per_million", "mean", "mean_low", "mean_high", "total_cost",
    "confidence_unit", "correctness", "P", "s_bar", "BS", "ECE", "Q_final", "alpha", "P_wilson_low", "P_wilson_high",
    "s_bar_low", "s_bar_high", "BS_low", "BS_high", "ECE_low", "ECE_high", "Q_final_low", "Q_final_high",
    "BS_reliability", "BS_resolution", "BS_uncertainty", "BS_within_bin", "P_weighted", "P_family", "s_bar_family",
    "P_family_wilson_low", "P_family_wilson_high", "bin_low", "bin_high", "mean_confidence", "mean_correctness",
    "mcnemar_p", "q_diff", "q_diff_low", "q_diff_high", "p_holm", "pass_at_k", "pass_hat_k", "weight",
    "P_difficulty", "P_difficulty_low", "P_difficulty_high", "value",
})
TEXT_COLUMNS = frozenset({
    "missing_cases", "test",
    "case_type", "comments", "criterion", "criterion_scores", "currency", "experience_level", "fails", "generated_from",
    "generated_to", "gold_path", "group", "judge_id", "participant", "response_path", "scope", "status", "tag", "tags",
    "title", "temperature", "max_tokens",  # temperature, max_tokens: the declared values, several joined by "; "
    "subject_id", "subject_version", "case_id", "run_id", "reviewer_id", "family", "classification", "display_name",
    "leaderboard_status", "critical_fails", "kind", "provider", "parameters", "evaluation_date", "subject_a",
    "subject_b", "significantly_better", "statistic", "target", "reviewer_a", "reviewer_b", "note",
    "P_reliability_label", "s_bar_reliability_label", "Q_final_reliability_label", "BS_reliability_label",
    "ECE_reliability_label",
})
# Scores on the benchmark's own scale (rgbench.load.scale.score_text: 7, 12.3 or 23/6); level: a score or a bin.
SCORE_COLUMNS = frozenset({"raw_score", "rubric_floor", "rubric_ceiling", "clipped_score", "level"})
DTYPES = {"bool": "boolean", "int": "Int64", "float": "float64", "text": "string"}

# Bounded, as compute_metrics writes them: an integer fits pandas' Int64, a decimal a float (a 400-digit cell
# was an OverflowError, or silently inf).
_INT = re.compile(r"^-?(0|[1-9][0-9]{0,17})$")
_DECIMAL = re.compile(r"^-?[0-9]{1,18}(\.[0-9]{1,18})?$")
_SCORE_LIMIT = 10**18
_BIN = re.compile(r"^[0-9]{1,18}(\.[0-9]{1,18})?-[0-9]{1,18}(\.[0-9]{1,18})?$")


def column_kind(name: str) -> str:
    """``bool``, ``int``, ``float`` or ``text``: the type of the values of result column ``name``."""
    for kind, names in (("bool", BOOL_COLUMNS), ("int", INT_COLUMNS), ("float", FLOAT_COLUMNS), ("score", SCORE_COLUMNS)):
        if name in names:
            return kind
    return "text"


def parse_cell(kind: str, cell: str) -> Any:
    """The value of one cell of a column of ``kind``; None for an empty cell; ValueError when malformed."""
    if cell == "":
        return None
    if kind == "bool":
        if cell not in ("true", "false"):
            raise ValueError(f"{cell!r} is not a boolean (true or false)")
        return cell == "true"
    shown = repr(cell if len(cell) <= 40 else cell[:40] + "...")
    if kind == "int":
        if not _INT.match(cell):
            raise ValueError(f"{shown} is not an integer of at most 18 digits")
        return int(cell)
    if kind == "float":
        if not _DECIMAL.match(cell):
            raise ValueError(f"{shown} is not a decimal number (at most 18 digits before and after the point)")
        return float(cell)
    if kind == "score":
        if _BIN.match(cell):
            return cell   # a level naming a bin of a decimal scale (0-2.5); text
        score: Fraction | int | None = None
        try:
            score = parse_score(cell) if len(cell) <= 80 else None
        except (ValueError, ZeroDivisionError):
            pass
        if score is None or not -_SCORE_LIMIT < score < _SCORE_LIMIT:
            raise ValueError(f"{shown} is not a score of at most 18 digits (an integer, a decimal or n/d)")
        return score
    return cell


def _score_dtype(values: list[Any]) -> tuple[str, list[Any]]:
    """The dtype of a score column and its values: Int64 for integers only, float64 once a score is a decimal or a
    fraction, string once a cell is not a score (a level's bin)."""
    present = [v for v in values if v is not None]
    if any(isinstance(v, str) for v in present):
        return "text", [None if v is None else v if isinstance(v, str) else score_text(v) for v in values]
    if all(isinstance(v, int) for v in present):
        return "int", values
    return "float", [None if v is None else float(v) for v in values]


def parse_table(rel: str, text: str) -> pd.DataFrame:
    """A result CSV's text as a typed DataFrame (module docstring); TableError names ``rel`` and the cell."""
    import pandas as pd

    records = csv_records(text)
    header = next(records, None)
    if header is None or header.problem:
        raise TableError(f"{rel}: {header.problem if header else 'empty file (expected a header row)'}")
    names = header.cells
    if len(set(names)) != len(names):
        raise TableError(f"{rel}: line 1: a column is named twice")
    kinds = [column_kind(name) for name in names]
    columns: list[list[Any]] = [[] for _ in names]
    for record in records:
        if record.problem:
            raise TableError(f"{rel}: {record.problem}")
        for values, name, kind, cell in zip(columns, names, kinds, record.cells):
            try:
                values.append(parse_cell(kind, cell))
            except ValueError as exc:
                raise TableError(f"{rel}: line {record.line}: {name}: {exc}") from None
    for index, kind in enumerate(kinds):
        if kind == "score":
            kinds[index], columns[index] = _score_dtype(columns[index])
    data = {name: pd.array([pd.NA if v is None else v for v in values] if kind != "float"
                           else [float("nan") if v is None else v for v in values], dtype=DTYPES[kind])
            for name, kind, values in zip(names, kinds, columns)}
    return pd.DataFrame(data, columns=names)


def _read_bytes(root: Path, rel: str) -> bytes:
    data, problems = read_single_file(root, rel)
    if data is None:
        raise TableError("; ".join(str(p) for p in problems))
    return data


def _parse_bytes(rel: str, data: bytes) -> pd.DataFrame:
    try:
        text = decode_utf8(data)
    except ParseError as exc:
        raise TableError(f"{rel}: {exc}") from None
    return parse_table(rel, text)


def read_table(root: str | Path, rel: str) -> pd.DataFrame:
    """One result CSV of the tree ``root`` (``rel``, e.g. ``results/per_run.csv``) as a typed DataFrame."""
    return _parse_bytes(rel, _read_bytes(Path(root), rel))


def read_results(root: str | Path = ".") -> dict[str, pd.DataFrame]:
    """Every ``results/*.csv`` of the benchmark tree ``root`` as a typed DataFrame, by file stem
    (``per_run``, ``metrics_per_subject``, ``leaderboard``, ...), in name order; snapshots under
    results/historico/ are not included (``read_table(root, "results/historico/DATE/NAME.csv")`` reads one).
    TableError when a table cannot be read or a cell has not its column's format, and, as the leaderboard
    does, when the files are not one set: a file results/manifest.json lists whose sha256 differs from the
    one recorded (edited by hand, or left by an interrupted run beside the files of another), or a listed
    file that is missing; the message names each such file."""
    try:
        import pandas  # noqa: F401  (a clear message before any reading)
    except ModuleNotFoundError:
        raise ModuleNotFoundError("rgbench.read_results needs pandas: pip install \"rgbench[analysis]\"") from None
    root = Path(root)
    folder = root / RESULTS_DIR
    if not folder.is_dir():
        raise TableError(f"{RESULTS_DIR}/: no such folder under {root} (run `make metrics` first)")
    names = sorted(path.name for path in folder.glob("*.csv") if path.is_file())
    data = {name: _read_bytes(root, f"{RESULTS_DIR}/{name}") for name in names}
    _check_one_set(root, data)
    return {Path(name).stem: _parse_bytes(f"{RESULTS_DIR}/{name}", data[name]) for name in names}


def _check_one_set(root: Path, data: dict[str, bytes]) -> None:
    """TableError naming every file of ``data`` (name -> bytes) or listed in the manifest that is not the one
    the manifest records; nothing to check without a manifest (results written before it existed)."""
    from .leaderboard.manifest import MANIFEST_PATH, read_manifest, stale_outputs

    if not os.path.lexists(root / MANIFEST_PATH):
        return
    manifest, problems = read_manifest(root)
    if manifest is not None:
        digests = {f"{RESULTS_DIR}/{name}": hashlib.sha256(data[name]).hexdigest() if name in data else ""
                   for name in sorted(manifest.outputs.keys() | data.keys()) if "/" not in name}
        problems = stale_outputs(manifest, digests)
    if problems:
        raise TableError("\n".join(str(problem) for problem in problems))
