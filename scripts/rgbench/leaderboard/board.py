"""The leaderboard as one value: every row with its standing, registry metadata, reliability and evidence.

:func:`build_board` is pure: it takes the loaded inputs and returns a
:class:`Board`; the CSV, Markdown and HTML writers only format a Board.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from ..compute.metrics import CalibrationBin, SubjectMetrics, calibration_bins
from ..compute.ranking import DISQUALIFIED, INCOMPLETE, RANKED, UNSCORED, Standing, rank_subjects
from ..load.scale import ScoreScale
from ..results.breakdowns import CASES_FILE, METADATA_FILE
from .absent import Shown, reasons, shown_of
from .critical_fails import CriticalFail
from .difficulty_text import DifficultyTrendRow
from .grades_text import grades_note
from .inputs import LeaderboardInputs, runs_by_subject
from .intervals import Bounds, family_interval_cell, method_note, subject_interval_cells
from .judge_assisted_text import RestsOn, criterion_means, critical_ungraded, rests_on
from .lab_tables import LabTables
from .rank_ranges import AlphaStatement, Significance, alpha_statement, group_label, significance, tie_groups
from .registry import RegisteredSubject
from .reliability import Thresholds, subject_labels

DEFAULT_TITLE = "Reviewer-graded benchmark"


@dataclass(frozen=True)
class FamilyCell:
    """One (subject, family) figure: n_family runs over n_cases distinct cases, with its reliability."""

    family: str
    n_family: int
    n_cases: int
    p_family: Fraction | None   # None: no pass rule
    s_bar_family: Fraction
    reliability: str
    p_interval: Bounds | None = None


@dataclass(frozen=True)
class BoardEntry:
    """One leaderboard row."""

    standing: Standing
    subject: RegisteredSubject
    n_cases: int
    reliability: dict[str, str]
    critical_fails: tuple[CriticalFail, ...]
    families: dict[str, FamilyCell]
    bins: tuple[CalibrationBin, ...]
    intervals: dict[str, Bounds]
    n_errors: int = 0  # error runs (not in N), from results/run_metadata.csv when present
    rank_range: tuple[int, int] | None = None  # (low, high) rank set for Ranked entries when pairwise.csv exists
    missing_cases: tuple[str, ...] = ()   # the benchmark's cases without a scored run (metrics_per_subject.csv)
    tie_group: str = ""   # A, B, ...: shared with the ranked entries whose rank ranges overlap it (rank_ranges.tie_groups)
    above: tuple[str, ...] = ()   # subject_ids of the ranked entries it is significantly above (Significance.above)

    @property
    def metrics(self) -> SubjectMetrics:
        return self.standing.metrics

    @property
    def rank(self) -> int | None:
        return self.standing.rank

    @property
    def status(self) -> str:
        return self.standing.status

    @property
    def name(self) -> str:
        """display_name from the registry, else the subject_id."""
        return self.subject.name


@dataclass(frozen=True)
class Board:
    """Everything the writers show. ``families`` is code -> name in system/benchmark.yaml's order."""

    title: str
    benchmark_version: str
    alpha_text: str
    input_digest: str
    families: dict[str, str]
    fail_titles: dict[str, str]
    ece_bins: int
    scale: ScoreScale  # the total's range, direction and name (s_bar's scale; Q_final normalises by its range)
    criterion_range: tuple[Fraction, Fraction]  # the rubric's criterion_min, criterion_max (the criterion means' scale)
    entries: tuple[BoardEntry, ...]
    interval_note: str = ""  # what the intervals are; "" when the results carry none
    significance: Significance | None = None  # rank ranges and what they rest on; None without pairwise.csv
    alpha_statement: AlphaStatement | None = None  # None without alpha_sensitivity.csv or ranked subjects
    alpha: Fraction | None = None  # the alpha of these results (alpha_text, exact)
    lab: LabTables | None = None  # issue 15's tables for the explorer, breakdowns, cost and settings
    criteria: tuple[str, ...] = ()  # the rubric's criteria, in order
    source_commit: str = ""  # set only by `build_leaderboard.py --source-commit` (never in committed results)
    reliability_rule: str = ""  # how the reliability labels are given (Thresholds.describe)
    order: tuple = ()  # rank_stability.csv rows (alpha crossings, bootstrap swap shares), leaderboard order
    significance_level: Fraction = Fraction(5, 100)  # config.yaml's, for the difficulty reading
    difficulty_trend: DifficultyTrendRow | None = None  # difficulty_trend.csv; None without it
    confidence_level: Fraction | None = None  # manifest.json's, for the intervals the notes quote
    grades_note: str = ""  # what a board of consolidated grades rests on (grades_text.grades_note); "" otherwise
    shown: Shown = Shown()  # the optional figures the benchmark records (absent ones: left out, said why once)
    downloads: tuple[str, ...] = ()  # the CSVs the page summarises: leaderboard.csv, then manifest.json's outputs
    answers_to: str = ""  # the newest answer's date (run_metadata.csv's generated_to); "" when none is dated
    rests_on: tuple[RestsOn, ...] = ()  # judge-assisted mode: what each subject's figures rest on; () otherwise
    criterion_means: tuple[RestsOn, ...] = ()  # judge-assisted mode: each subject's criterion means; () otherwise
    # judge-assisted mode: (subject, runs) the judge flags with a critical fail that no human has graded
    critical_ungraded: tuple[tuple[str, int], ...] = ()

    @property
    def date_text(self) -> str:
        """The date of the inputs, as the page and the Markdown give it: the newest answer's ``generated_on``,
        never a clock."""
        return f"Answers dated up to {self.answers_to}." if self.answers_to else "The answers carry no dates."

    @property
    def absent_reasons(self) -> list[str]:
        """The sentences that say, once per page, why figures are absent (none when nothing is)."""
        return reasons(self.shown, self.scale)

    def with_status(self, status: str) -> tuple[BoardEntry, ...]:
        """The entries of one status, in leaderboard order."""
        return tuple(entry for entry in self.entries if entry.status == status)

    @property
    def ranked(self) -> tuple[BoardEntry, ...]:
        return self.with_status(RANKED)

    @property
    def incomplete(self) -> tuple[BoardEntry, ...]:
        return self.with_status(INCOMPLETE)

    @property
    def disqualified(self) -> tuple[BoardEntry, ...]:
        return self.with_status(DISQUALIFIED)

    @property
    def unscored(self) -> tuple[BoardEntry, ...]:
        return self.with_status(UNSCORED)

    @property
    def scored(self) -> tuple[BoardEntry, ...]:
        """Ranked, Incomplete then Disqualified entries: those with metrics (N > 0)."""
        return self.ranked + self.incomplete + self.disqualified

    @property
    def names(self) -> dict[str, str]:
        """subject_id -> the name shown to readers."""
        return {entry.metrics.subject_id: entry.name for entry in self.entries}

    @property
    def family_codes(self) -> list[str]:
        """The families (in system/benchmark.yaml's order) with a figure for some scored entry."""
        return [code for code in self.families if any(code in e.families for e in self.scored)]


def build_board(inputs: LeaderboardInputs) -> Board:
    """Rank the subjects and attach to each its registry entry, reliability labels, fails, families, bins
    and rank range; summarise the significant differences and the alpha sensitivity."""
    spec, tables = inputs.spec, inputs.tables
    thresholds = Thresholds(spec.stats.reliability_half_widths, spec.stats.reliability_min_cases)
    family_cases: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in tables.runs:
        family_cases[(row.subject_id, row.family)].add(row.case_id)
    cells: dict[str, dict[str, FamilyCell]] = defaultdict(dict)  # subject_id -> family code -> its figures
    for f in tables.families:
        n_cases = len(family_cases[(f.subject_id, f.family)])
        interval = family_interval_cell(tables.family_extras[(f.subject_id, f.family)])
        cells[f.subject_id][f.family] = FamilyCell(f.family, f.n_family, n_cases, f.p_family, f.s_bar_family,
                                                   thresholds.label(interval, n_cases), interval)
    runs_of = runs_by_subject(tables.runs)
    standings = rank_subjects(tables.subjects, inputs.incomplete, higher_is_better=spec.higher_is_better)
    ranked_ids = [s.metrics.subject_id for s in standings if s.status == RANKED]
    sig = None if inputs.pairwise is None else significance(ranked_ids, inputs.pairwise, spec.stats.significance_level,
                                                            inputs.rank_sets, spec.stats.pairwise_correction)
    ties = tie_labels(ranked_ids, sig)
    errors = {r["subject_id"]: int(r["n_errors"]) for r in (inputs.lab.get(METADATA_FILE) if inputs.lab else [])
              if r["n_errors"].isdigit()}
    entries = []
    for standing in standings:
        sid = standing.metrics.subject_id
        runs = runs_of.get(sid, [])
        n_cases = len({row.case_id for row in runs})  # distinct cases: repeated runs of a case count once
        anchored = n_cases   # the cases a label's "rests on" counts
        if inputs.assisted is not None:   # judge-assisted: the judged cases; a label counts those with a human grade
            n_cases = tables.subject_extras.get(sid, {}).get("n_cases", 0)
            anchored = tables.subject_extras.get(sid, {}).get("labelled_cases", 0)
        intervals = subject_interval_cells(tables.subject_extras.get(sid, {}))
        entries.append(BoardEntry(
            standing=standing,
            subject=inputs.registry.subjects[sid],
            n_cases=n_cases,
            reliability=subject_labels(intervals, anchored, thresholds, spec.scale),
            critical_fails=inputs.critical_fails.get(sid, ()),
            families={code: cells[sid][code] for code in spec.families if code in cells.get(sid, {})},
            bins=tuple(calibration_bins(runs, spec.ece_bins)),
            intervals=intervals,
            rank_range=sig.ranges.get(sid) if sig is not None and standing.status == RANKED else None,
            n_errors=errors.get(sid, 0),
            missing_cases=tuple(tables.subject_extras.get(sid, {}).get("missing_cases", "").split()),
            tie_group=ties.get(sid, ""),
            above=tuple(worse for better, worse in (sig.above if sig is not None else ()) if better == sid),
        ))
    has_intervals = any(entry.intervals for entry in entries)
    manifest = inputs.manifest
    lab = inputs.lab
    has_tags = lab is None or not lab.has(CASES_FILE) or any(r["tags"] for r in lab.get(CASES_FILE))
    shown = shown_of(spec, has_tags)
    return Board(
        title=spec.title or DEFAULT_TITLE,
        benchmark_version=manifest.benchmark_version,
        alpha_text=manifest.alpha_text,
        input_digest=manifest.input_digest,
        families=dict(spec.families),
        fail_titles=dict(spec.fail_titles),
        ece_bins=spec.ece_bins,
        scale=spec.scale,
        criterion_range=(spec.criterion_min, spec.criterion_max),
        entries=tuple(entries),
        interval_note=(method_note(manifest.confidence_level, manifest.bootstrap_resamples, shown)
                       if has_intervals else ""),
        significance=sig,
        alpha_statement=None if inputs.alpha_rows is None else alpha_statement(inputs.alpha_rows, len(ranked_ids)),
        alpha=manifest.alpha,
        lab=inputs.lab,
        criteria=tuple(spec.criteria),
        reliability_rule=thresholds.describe(spec.scale, assisted=inputs.assisted is not None),
        order=tuple(inputs.order or ()),
        significance_level=spec.stats.significance_level,
        difficulty_trend=inputs.difficulty_trend,
        confidence_level=None if manifest.confidence_level is None else Fraction(manifest.confidence_level),
        grades_note=grades_note(manifest.grades, inputs.assisted is not None),
        shown=shown,
        downloads=("leaderboard.csv", *sorted(name for name in manifest.outputs if name.endswith(".csv"))),
        rests_on=() if inputs.assisted is None else rests_on(inputs.assisted, [e.metrics.subject_id for e in entries],
                                                                 shown.pass_rule),
        criterion_means=criterion_means(inputs.assisted_criteria, [e.metrics.subject_id for e in entries], spec.criteria),
        critical_ungraded=critical_ungraded(inputs.assisted or (), [e.metrics.subject_id for e in entries]),
        answers_to=max((r["generated_to"] for r in (lab.get(METADATA_FILE) if lab else []) if r["generated_to"]),
                       default=""),
    )


def tie_labels(ranked_ids: list[str], sig: Significance | None) -> dict[str, str]:
    """subject_id -> tie group label for the ranked subjects whose tie group (:func:`.rank_ranges.tie_groups` of
    their rank ranges, leaderboard order) has two or more members; groups lettered A, B, ... in that order."""
    if sig is None:
        return {}
    groups = tie_groups([sig.ranges[sid] for sid in ranked_ids])
    shared = [g for g in dict.fromkeys(groups) if groups.count(g) > 1]
    return {sid: group_label(shared.index(g)) for sid, g in zip(ranked_ids, groups) if g in shared}
