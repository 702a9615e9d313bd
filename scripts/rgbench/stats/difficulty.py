"""Pass rate per gold difficulty, the difficulty-weighted pass rate, and a check of the benchmark's own labels."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

from ..derive import PASS, RunRow
from ..numfmt import fmt_fixed
from .wilson import wilson_interval

ALL_SUBJECTS = "ALL"  # the pooled row; cannot clash with a subject id (those are lowercase)


def weighted_pass_rate(rows: Sequence[RunRow], difficulty_of: Mapping[str, int],
                       weights: Mapping[int, Fraction]) -> Fraction | None:
    """P_weighted = Σ_r w(d_r) · [r is Pass] / Σ_r w(d_r), in [0, 1], higher is better.

    d_r is the gold difficulty of the run's case and w the configured weight,
    so a Pass on a hard case counts more (as needle-bench weights its tiers).
    Equals P when every weight is equal. None when N = 0; a difficulty with no
    configured weight is a ValueError (the config check prevents it).
    """
    if not rows:
        return None
    runs: dict[int, int] = defaultdict(int)
    passes: dict[int, int] = defaultdict(int)
    for row in rows:
        difficulty = difficulty_of[row.case_id]
        runs[difficulty] += 1
        passes[difficulty] += row.classification == PASS
    missing = sorted(set(runs) - set(weights))
    if missing:
        raise ValueError(f"no weight for difficulty {missing[0]} (difficulty_weights in config.yaml)")
    total = sum((weights[d] * count for d, count in runs.items()), Fraction(0))
    return sum((weights[d] * count for d, count in passes.items()), Fraction(0)) / total


@dataclass(frozen=True)
class DifficultyRow:
    """One row of metrics_per_difficulty.csv. ``monotone_violation``: P here exceeds P at the next easier level present."""

    subject_id: str
    difficulty: int
    weight: Fraction | None
    n_cases: int
    n_runs: int
    n_pass: int
    p: Fraction
    p_low: float
    p_high: float
    monotone_violation: bool


def _rows_for(scope: str, rows: Sequence[RunRow], difficulty_of, weights, confidence) -> list[DifficultyRow]:
    groups: dict[int, list[RunRow]] = defaultdict(list)
    for row in rows:
        groups[difficulty_of[row.case_id]].append(row)
    out: list[DifficultyRow] = []
    previous: Fraction | None = None
    for difficulty, group in sorted(groups.items()):
        passes = sum(1 for r in group if r.classification == PASS)
        p = Fraction(passes, len(group))
        low, high = wilson_interval(passes, len(group), confidence)
        out.append(DifficultyRow(scope, difficulty, weights.get(difficulty), len({r.case_id for r in group}),
                                 len(group), passes, p, low, high, previous is not None and p > previous))
        previous = p
    return out


def difficulty_table(runs_by_subject: Mapping[str, Sequence[RunRow]], difficulty_of: Mapping[str, int],
                     weights: Mapping[int, Fraction], confidence: Fraction) -> list[DifficultyRow]:
    """Pass rate (with Wilson interval) per difficulty level present, per subject and pooled (``ALL``).

    Sorted by (subject_id, difficulty), ``ALL`` first. A level is flagged when
    its pass rate is strictly higher than at the next easier level present for
    the same subject (or pooled): harder cases should not be passed more often.
    Subjects with no scored run have no rows.
    """
    pooled = [row for sid in sorted(runs_by_subject) for row in runs_by_subject[sid]]
    out = _rows_for(ALL_SUBJECTS, pooled, difficulty_of, weights, confidence)
    for sid in sorted(runs_by_subject):
        out += _rows_for(sid, runs_by_subject[sid], difficulty_of, weights, confidence)
    return out


def monotonicity_warnings(rows: Sequence[DifficultyRow]) -> list[str]:
    """A message for each pooled (``ALL``) level whose pass rate exceeds the next easier level's.

    Only the pooled rows warn: per-subject levels hold a few cases each and
    cross often by chance; their flags stay in the CSV.
    """
    messages = []
    previous: DifficultyRow | None = None
    for row in (r for r in rows if r.subject_id == ALL_SUBJECTS):
        if row.monotone_violation and previous is not None:
            messages.append(
                f"pass rate over all subjects is higher at difficulty {row.difficulty} ({fmt_fixed(row.p)}, "
                f"{row.n_cases} cases) than at difficulty {previous.difficulty} ({fmt_fixed(previous.p)}, "
                f"{previous.n_cases} cases); review the difficulty labels of those golds")
        previous = row
    return messages
