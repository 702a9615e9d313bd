"""The column registry: every column of every result CSV this toolkit writes, and how its cells are written.

One table (:data:`KINDS`) says what a column holds, by name (a name means the same in every file that has it).
The leaderboard's reader parses the cells it uses by it (:mod:`rgbench.leaderboard.results_tables`,
:mod:`rgbench.leaderboard.lab_tables`); :func:`rgbench.read_results` types its DataFrames by it
(:mod:`rgbench.analysis`); tests hold the writers to it (tests/test_result_columns.py: every column a writer
writes is registered and every cell it writes parses as its kind) and the documentation
(tests/test_docs.py: results/README.md describes every registered column). A new column is one line here.

The kinds, as :mod:`rgbench.numfmt` and :func:`rgbench.load.scale.score_text` write them:

- ``text``: any text (ids, labels, lists joined by ``;`` or spaces, the run metadata's declared values);
- ``count``: a non-negative integer of at most 18 digits -> ``int``;
- ``fixed``: a number with exactly six decimals (``0.500000``, ``-0.020139``) -> exact ``Fraction``;
- ``number``: a ``count`` or a ``fixed`` (agreement.csv's ``value``: runs graded, or a statistic);
- ``score``: a score as the benchmark's scale writes it (``7``, ``12.5``, ``23/6``) -> ``int`` or ``Fraction``;
- ``exact``: a non-negative value written exactly (``1``, ``0.500000``, ``13/3``: a correctness) -> ``int`` or
  ``Fraction``;
- ``level``: a ``score``, or a bin of a decimal scale (``0-2.5``) kept as text;
- ``bool``: ``true`` or ``false``.

An empty cell is an undefined value (no pass rule, no interval, no usage): ``None``, or ``""`` for text;
a column in :data:`REQUIRED` is never empty. A cell that is not of its kind raises :class:`CellError`, whose
message says what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

from .load.scale import parse_score
from .numfmt import parse_exact


class CellError(ValueError):
    """A cell that is not of its column's kind; the message says what was expected."""


def _columns(kind: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), kind)


# column -> kind; one line per kind and family of files, sorted within a line
KINDS: dict[str, str] = {
    **_columns("bool", "adjacent disqualified empty_answer has_critical_fail has_recoverable_fail"),
    **_columns("count", "N bin count difficulty easiest hardest input_tokens k max_runs_per_case min_difficulty n "
                        "n_answered n_cases n_cases_missing n_critical n_easiest n_errors n_family n_hardest n_levels "
                        "n_participants n_pass n_refused n_responses n_runs n_units n_unscored n_with_usage "
                        "output_tokens rank rank_a rank_b rank_best rank_high rank_high_marginal rank_low "
                        "rank_low_marginal rank_worst reported_confidence confidence"),
    # metrics_per_subject.csv, leaderboard.csv, metrics_per_family.csv, alpha_sensitivity.csv, calibration_bins.csv
    **_columns("fixed", "P P_high P_low P_weighted Q_final Q_final_high Q_final_low s_bar s_bar_high s_bar_low BS "
                        "BS_high BS_low ECE ECE_high ECE_low BS_reliability BS_resolution BS_uncertainty "
                        "BS_within_bin BS_reliability_corrected BS_resolution_corrected BS_uncertainty_corrected "
                        "P_family P_family_high P_family_low s_bar_family alpha bin_low bin_high mean_confidence "
                        "mean_correctness confidence_unit"),
    # pairwise.csv, rank_stability.csv, difficulty tables, pass_at_k.csv
    **_columns("fixed", "q_diff q_diff_low q_diff_high p_diff p_diff_low p_diff_high p_value p_holm p_bh p_min "
                        "q_diff_sd p_diff_sd q_mde p_mde alpha_crossing swap_share kendall_tau_b kendall_p separation "
                        "separation_low separation_high weight P_difficulty P_difficulty_low P_difficulty_high "
                        "pass_at_k pass_hat_k"),
    # the lab tables (breakdowns, cost) and the reviewer tables
    **_columns("fixed", "mean mean_low mean_high input_per_million output_per_million total_cost cost_per_run "
                        "cost_per_pass geomean_cost_run geomean_cost_pass cost ci_low ci_high value_low value_high"),
    # judge_assisted.csv, judge_assisted_pairs.csv (estimation: judge-assisted)
    **_columns("count", "n_unjudged n_uncovered human_grades labelled_cases pending pass_disagreements "
                        "judge_critical_ungraded rank_set_low rank_set_high"),
    **_columns("fixed", "mean_human_low mean_human_high mean_lambda"),   # judge_assisted_criteria.csv
    **_columns("fixed", " ".join(f"{f}{x}" for f in ("P", "s_bar", "Q_final") for x in (
        "_human_low _human_high _lambda _judge_bias _effective _diff _diff_low _diff_high".split()))
                        + " judge_human_r Q_final_lambda_pass"),
    **_columns("number", "value"),
    **_columns("score", "raw_score clipped_score rubric_floor rubric_ceiling"),
    **_columns("exact", "correctness"),
    **_columns("level", "level"),
    **_columns("text", "subject_id subject_version case_id run_id reviewer_id family classification display_name "
                       "leaderboard_status critical_fails kind provider parameters evaluation_date notes missing_cases "
                       "subject_a subject_b significantly_better test statistic target reviewer_a reviewer_b note "
                       "judge_id P_reliability_label s_bar_reliability_label Q_final_reliability_label "
                       "BS_reliability_label ECE_reliability_label"),
    **_columns("text", "case_type comments criterion criterion_scores currency experience_level fails generated_from "
                       "generated_to gold_path group participant response_path scope status tag tags title "
                       "temperature max_tokens attempts"),   # temperature, max_tokens, attempts: declared values, "; "
}

# never empty: the keys and the counts every row has
REQUIRED = frozenset("subject_id subject_version case_id run_id family "
                     "has_critical_fail has_recoverable_fail N n_unscored alpha disqualified n_critical n_family "
                     "s_bar_family subject_a subject_b rank_a rank_b adjacent n_levels n_easiest n_hardest n k mean "
                     "rank_low rank_high rank_low_marginal rank_high_marginal n_cases".split())

_COUNT = re.compile(r"^(0|[1-9][0-9]{0,17})$")           # bounded: a 5,000-digit cell is refused, not parsed
_FIXED = re.compile(r"^-?[0-9]{1,18}\.[0-9]{6}$")
_LIMIT = 10**18
_BIN = re.compile(r"^[0-9]{1,18}(\.[0-9]{1,18})?-[0-9]{1,18}(\.[0-9]{1,18})?$")


def _shown(cell: str) -> str:
    """A refused cell as a message quotes it: at most 40 characters (a 1 MB cell is not echoed)."""
    return repr(cell if len(cell) <= 40 else cell[:40] + "...")


def _count(cell: str) -> int:
    if not _COUNT.match(cell):
        raise CellError(f"{_shown(cell)} is not a non-negative integer")
    return int(cell)


def _fixed(cell: str) -> Fraction:
    if not _FIXED.match(cell):
        raise CellError(f"{_shown(cell)} is not a number with exactly 6 decimals (e.g. 0.500000)")
    return Fraction(cell)


def _number(cell: str) -> int | Fraction:
    return int(cell) if _COUNT.match(cell) else _fixed(cell)


def _score(cell: str) -> int | Fraction:
    """A score of magnitude below 10**18 (it fits an Int64 or a float: a 400-digit cell is refused, not parsed)."""
    try:
        value = parse_score(cell) if len(cell) <= 80 else None
    except (ValueError, ZeroDivisionError):
        value = None
    if value is None or not -_LIMIT < value < _LIMIT:
        raise CellError(f"{_shown(cell)} is not a score of at most 18 digits (an integer, a decimal such as 12.5, "
                        "or a fraction such as 23/6)")
    return value


def _exact(cell: str) -> int | Fraction:
    value = parse_exact(cell) if len(cell) <= 80 else None
    if value is None or value < 0:
        raise CellError(f"{_shown(cell)} is not a non-negative number (digits, a decimal, or numerator/denominator)")
    return value


def _level(cell: str) -> int | Fraction | str:
    return cell if _BIN.match(cell) else _score(cell)


def _bool(cell: str) -> bool:
    if cell not in ("true", "false"):
        raise CellError(f"{_shown(cell)} is not a boolean (true or false)")
    return cell == "true"


PARSERS: dict[str, Callable[[str], Any]] = {
    "text": str, "count": _count, "fixed": _fixed, "number": _number, "score": _score, "exact": _exact,
    "level": _level, "bool": _bool,
}


def kind_of(column: str) -> str:
    """The kind of ``column``; ``text`` for a column the registry does not know (a later toolkit's)."""
    return KINDS.get(column, "text")


def parse_cell(column: str, cell: str) -> Any:
    """The value of one cell of ``column`` (module docstring); CellError when it is not of the column's kind."""
    kind = KINDS.get(column, "text")
    if cell == "":
        if column in REQUIRED:
            raise CellError("is empty")
        return "" if kind == "text" else None
    return cell if kind == "text" else _parsed(kind, cell)


@cache  # numeric cells repeat a few distinct values many times (text cells, ids, are not kept)
def _parsed(kind: str, cell: str) -> Any:
    return PARSERS[kind](cell)
