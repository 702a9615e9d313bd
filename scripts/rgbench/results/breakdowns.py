"""What a lab reads beyond the ranking (issue 15): breakdowns by criterion, tag, case type and the
Advanced+ band, cost, the human baseline per participant, run metadata, and the per-case explorer's
tables.

Pure: :func:`compute_breakdowns` takes the validated tree, the spec and the scored runs of each
subject (error runs already left out) and returns exact rows; :func:`breakdown_tables` renders them
(rounded once, 6 decimals). Intervals are the case-bootstrap BCa intervals of the headline statistics
(:mod:`rgbench.stats.bootstrap`): a criterion mean and a group's s_bar by
:func:`rgbench.stats.bootstrap.ratio_interval`, a group's pass rate by
:func:`rgbench.stats.intervals.proportion_interval` (Wilson over the group's cases at 0 or 1), over a
case draw seeded from the declared seed and that subject's own parsed runs
(:func:`rgbench.stats.seeds.subject_digests`) and the group's label, so adding another subject moves none
of these intervals. The bounds are floats, written with :func:`rgbench.stats.outputs.fmt_interval`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

from ..compute.derive import PASS, RunRow
from ..compute.metrics import mean_clipped_score, pass_rate
from ..load.extract import TAG_SEPARATOR
from ..load.records import Response, Scoring, Tree
from ..load.scale import in_units, score_text, score_unit
from ..load.spec import Spec
from ..numfmt import fmt_fixed, fmt_optional
from ..results_csv import Table
from ..stats.bootstrap import Interval, case_weights, ratio_interval
from ..stats.case_summary import CaseSummary
from ..stats.intervals import proportion_interval
from ..stats.outputs import fmt_float, fmt_interval

ADVANCED_MIN_DIFFICULTY = 4   # Rockman's Advanced+ band (seeds 000, 001, 003): gold difficulty >= 4
ERROR, REFUSED, ANSWERED = "error", "refused", "answered"

CRITERION_FILE = "metrics_per_criterion.csv"
TAG_FILE = "metrics_per_tag.csv"
CASE_TYPE_FILE = "metrics_per_case_type.csv"
ADVANCED_FILE = "metrics_advanced.csv"
COST_FILE = "cost_per_subject.csv"
BASELINE_FILE = "human_baseline.csv"
METADATA_FILE = "run_metadata.csv"
CASES_FILE = "cases.csv"
EXPLORER_FILE = "explorer_runs.csv"

CRITERION_COLUMNS = ("subject_id", "subject_version", "criterion", "n", "mean", "mean_low", "mean_high", "n_cases")
_GROUP_TAIL = ("n_cases", "n", "n_pass", "P", "P_low", "P_high", "s_bar", "s_bar_low", "s_bar_high")
TAG_COLUMNS = ("subject_id", "subject_version", "tag", *_GROUP_TAIL)
CASE_TYPE_COLUMNS = ("subject_id", "subject_version", "case_type", *_GROUP_TAIL)
ADVANCED_COLUMNS = ("subject_id", "subject_version", "min_difficulty", *_GROUP_TAIL)
COST_COLUMNS = ("subject_id", "subject_version", "currency", "input_per_million", "output_per_million",
                "n_responses", "n_with_usage", "input_tokens", "output_tokens", "total_cost", "cost_per_run",
                "n_pass", "cost_per_pass", "geomean_cost_run", "geomean_cost_pass")
BASELINE_COLUMNS = ("subject_id", "subject_version", "scope", "group", "experience_level", "n_participants",
                    "n_cases", "n", "n_pass", "P", "s_bar")
METADATA_COLUMNS = ("subject_id", "subject_version", "kind", "provider", "evaluation_date", "temperature",
                    "max_tokens", "attempts", "max_runs_per_case", "generated_from", "generated_to",
                    "n_responses", "n_answered", "n_refused", "n_errors")
CASES_COLUMNS = ("case_id", "family", "case_type", "difficulty", "tags", "title", "gold_path")
EXPLORER_COLUMNS = ("subject_id", "subject_version", "case_id", "run_id", "status", "participant", "reviewer_id",
                    "classification", "raw_score", "clipped_score", "criterion_scores", "fails", "correctness",
                    "confidence", "comments", "response_path", "cost", "empty_answer")


# --- rows ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CriterionRow:
    subject_id: str
    subject_version: str
    criterion: str
    n: int
    mean: Fraction
    interval: Interval | None
    n_cases: int


@dataclass(frozen=True)
class GroupRow:
    """Pass rate and mean clipped score of a subject's runs in one group of cases (a tag, a case type, Advanced+)."""

    subject_id: str
    subject_version: str
    group: str
    n_cases: int
    n: int
    n_pass: int | None      # None (and P): the benchmark has no pass rule
    p: Fraction | None
    p_interval: Interval | None
    s_bar: Fraction
    s_bar_interval: Interval | None


@dataclass(frozen=True)
class CostRow:
    subject_id: str
    subject_version: str
    currency: str
    input_price: Fraction | None
    output_price: Fraction | None
    n_responses: int
    n_with_usage: int
    input_tokens: int
    output_tokens: int
    total_cost: Fraction | None       # None unless prices are declared and every response declares usage
    cost_per_run: Fraction | None
    n_pass: int | None                # None (and the per-Pass costs): the benchmark has no pass rule
    cost_per_pass: Fraction | None    # None when nothing passed (never Infinity)
    geomean_run: Decimal | None
    geomean_pass: Decimal | None


@dataclass(frozen=True)
class BaselineRow:
    subject_id: str
    subject_version: str
    scope: str              # participant | experience_level | mean_of_participants | pooled
    group: str
    experience_level: str
    n_participants: int
    n_cases: int
    n: int
    n_pass: int | None      # None (and P): the benchmark has no pass rule
    p: Fraction | None
    s_bar: Fraction | None


@dataclass(frozen=True)
class Breakdowns:
    criteria: tuple[CriterionRow, ...]
    tags: tuple[GroupRow, ...]
    case_types: tuple[GroupRow, ...]
    advanced: tuple[GroupRow, ...]
    costs: tuple[CostRow, ...]
    baseline: tuple[BaselineRow, ...]
    metadata: tuple[tuple[str, ...], ...]
    cases: tuple[tuple[str, ...], ...]
    explorer: tuple[tuple[str, ...], ...]
    n_errors: Mapping[str, int]


def group_row(subject_id: str, version: str, group: str, summary: CaseSummary, digest: str, label: str,
              resamples: int, confidence: Fraction, passes: bool = True) -> GroupRow:
    """P and s_bar over the subject's runs on the cases of ``summary`` (its summary restricted to the group's
    cases, at least one), with case-bootstrap intervals from one shared draw (label ``label``); without a pass
    rule (``passes`` False) s_bar alone, from the same draw."""
    weights = case_weights(summary.k, digest=digest, label=label, resamples=resamples)
    n, n_pass = int(summary.runs.sum()), int(summary.passes.sum())
    unit = summary.score_unit   # clipped scores are integers in 1/unit (1 on an integer scale)
    s_bar, s_bar_interval = (Fraction(int(summary.clipped.sum()), n * unit),
                             ratio_interval(summary.clipped, summary.runs, weights, confidence, float(unit)))
    if not passes:
        return GroupRow(subject_id, version, group, summary.k, n, None, None, None, s_bar, s_bar_interval)
    return GroupRow(subject_id, version, group, summary.k, n, n_pass, Fraction(n_pass, n),
                    proportion_interval(summary, weights, confidence), s_bar, s_bar_interval)


def criterion_rows(subject_id: str, version: str, scorings: Sequence[Scoring], criteria: Sequence[str], digest: str,
                   resamples: int, confidence: Fraction) -> list[CriterionRow]:
    """Mean score of each criterion over the subject's scored runs (``scorings``: their grades, one per run),
    in the rubric's order, with intervals. Scores are summed as integers in 1/U (U the lcm of their
    denominators: 1 on an integer scale), exact, and the bootstrap divides by U."""
    if not scorings:
        return []
    cases = sorted({s.case_id for s in scorings})
    position = {case: i for i, case in enumerate(cases)}
    unit = score_unit(score for s in scorings for _, score in s.criterion_scores)
    counts = [0] * len(cases)
    sums = [[0] * len(cases) for _ in criteria]   # sums[k][i]: criterion k's points (times unit) over case i's runs
    for scoring in scorings:
        scores, i = dict(scoring.criterion_scores), position[scoring.case_id]
        counts[i] += 1
        for k, criterion in enumerate(criteria):
            sums[k][i] += in_units(scores[criterion], unit)
    weights = case_weights(len(cases), digest=digest, label="criteria", resamples=resamples)
    n = len(scorings)
    return [CriterionRow(subject_id, version, criterion, n, Fraction(sum(sums[k]), n * unit),
                         ratio_interval(sums[k], counts, weights, confidence, float(unit)),
                         len(cases))
            for k, criterion in enumerate(criteria)]


def _run_key(row: RunRow) -> tuple[str, str, str, str]:
    return (row.subject_id, row.case_id, row.run_id, row.reviewer_id)


def run_cost(response: Response, input_price: Fraction, output_price: Fraction) -> Fraction | None:
    """needle-bench's estimated cost: input_tokens * input_price / 1e6 + output_tokens * output_price / 1e6,
    exact; None when the response declares no usage."""
    meta = response.meta
    if meta.input_tokens is None or meta.output_tokens is None:
        return None
    return (meta.input_tokens * input_price + meta.output_tokens * output_price) / 1_000_000


def geometric_mean(values: Sequence[Fraction]) -> Decimal | None:
    """(prod v)^(1/n) for v >= 0, computed as exp(mean ln v) in 40-digit decimal arithmetic (deterministic on
    every platform); 0 when any value is 0; None for no values (needle-bench's mean_estimated_cost_usd)."""
    if not values:
        return None
    if any(v == 0 for v in values):
        return Decimal(0)
    with localcontext() as ctx:
        ctx.prec = 40
        logs = sum((Decimal(v.numerator).ln() - Decimal(v.denominator).ln() for v in values), Decimal(0))
        return (logs / len(values)).exp()


def _price(value) -> Fraction | None:
    return None if value is None else Fraction(str(value))


def cost_row(subject_id: str, version: str, extra: Mapping, responses: Sequence[Response],
             rows: Sequence[RunRow], passes: bool = True) -> CostRow:
    """Cost figures of one subject; every money value None unless prices are declared and every
    response declares usage (a partial total would understate). Error runs cost what they consumed.
    Without a pass rule (``passes`` False) the per-Pass figures and n_pass are None."""
    prices = extra.get("prices") or {}
    pin, pout = _price(prices.get("input_per_million")), _price(prices.get("output_per_million"))
    with_usage = [r for r in responses if r.meta.input_tokens is not None]
    n_pass: int | None = sum(1 for r in rows if r.classification == PASS) if passes else None
    total = per_run = per_pass = geo_run = geo_pass = None
    if pin is not None and pout is not None and responses and len(with_usage) == len(responses):
        costs = {(r.case_id, r.run_id): run_cost(r, pin, pout) for r in responses}
        values = [c for c in costs.values() if c is not None]
        total = sum(values, Fraction(0))
        per_run = total / len(values)
        per_pass = total / n_pass if n_pass else None
        geo_run = geometric_mean(values)
        passed = {(r.case_id, r.run_id) for r in rows if r.classification == PASS}
        geo_pass = geometric_mean([c for key, c in sorted(costs.items()) if c is not None and key in passed]
                                  ) if passes else None
    return CostRow(subject_id, version, prices.get("currency", ""), pin, pout, len(responses), len(with_usage),
                   sum(r.meta.input_tokens or 0 for r in with_usage), sum(r.meta.output_tokens or 0 for r in with_usage),
                   total, per_run, n_pass, per_pass, geo_run, geo_pass)


def _pass_and_score(rows: Sequence[RunRow]) -> tuple[int, int | None, Fraction | None, Fraction | None]:
    """(n, n_pass, P, s_bar) of ``rows`` (:func:`pass_rate`, :func:`mean_clipped_score`); n_pass and P None
    when the runs are not classified (no pass rule)."""
    p = pass_rate(rows)
    return len(rows), (None if p is None else int(p * len(rows))), p, mean_clipped_score(rows)


def baseline_rows(subject_id: str, version: str, extra: Mapping, participant_of: Mapping[tuple[str, str], str | None],
                  rows: Sequence[RunRow]) -> list[BaselineRow]:
    """The human baseline per participant, per experience level and as the mean of the participants' pass
    rates (Rockman, seed 000); empty when no scored run names a participant. A participant the registry
    does not list has experience level "not declared"; runs naming no participant are left out of these rows."""
    level_of = {p["participant_id"]: p["experience_level"] for p in extra.get("participants") or ()}
    by_participant: dict[str, list[RunRow]] = defaultdict(list)
    for row in rows:
        participant = participant_of.get((row.case_id, row.run_id))
        if participant:
            by_participant[participant].append(row)
    if not by_participant:
        return []
    out = []
    by_level: dict[str, list[RunRow]] = defaultdict(list)
    rates: list[Fraction] = []
    scores: list[Fraction] = []
    members: dict[str, set[str]] = defaultdict(set)
    for participant, group in sorted(by_participant.items()):
        level = level_of.get(participant, "not declared")
        n, n_pass, p, s_bar = _pass_and_score(group)
        assert s_bar is not None
        if p is not None:
            rates.append(p)
        scores.append(s_bar)
        by_level[level].extend(group)
        members[level].add(participant)
        out.append(BaselineRow(subject_id, version, "participant", participant, level, 1,
                               len({r.case_id for r in group}), n, n_pass, p, s_bar))
    for level, group in sorted(by_level.items()):
        n, n_pass, p, s_bar = _pass_and_score(group)
        out.append(BaselineRow(subject_id, version, "experience_level", level, level, len(members[level]),
                               len({r.case_id for r in group}), n, n_pass, p, s_bar))
    named = [r for g in by_participant.values() for r in g]
    n, n_pass, p, _ = _pass_and_score(named)
    out.append(BaselineRow(subject_id, version, "mean_of_participants", "", "", len(scores),
                           len({r.case_id for r in named}), n, n_pass,
                           None if p is None else sum(rates, Fraction(0)) / len(rates),
                           sum(scores, Fraction(0)) / len(scores)))
    return out


def _declared(*values) -> str:
    """The first declared value as text, else empty (the leaderboard shows "not declared")."""
    for value in values:
        if value not in (None, ""):
            return str(value)
    return ""


def metadata_row(subject_id: str, version: str, extra: Mapping, responses: Sequence[Response]) -> tuple[str, ...]:
    """Seed 003's required run metadata: the registry's value, else the distinct values the responses
    declare (joined by "; "); empty when declared nowhere."""
    def distinct(values: Iterable) -> str:
        found = sorted({str(v) for v in values if v is not None}, key=lambda s: (len(s), s))
        return "; ".join(found)
    runs_per_case: dict[str, int] = defaultdict(int)
    for r in responses:
        runs_per_case[r.case_id] += 1
    dates = sorted(r.meta.generated_on for r in responses if r.meta.generated_on)
    status = [r.meta.status for r in responses]
    return (subject_id, version, _declared(extra.get("kind")), _declared(extra.get("provider")),
            _declared(extra.get("evaluation_date")),
            _declared(extra.get("temperature"), distinct(r.meta.temperature for r in responses)),
            _declared(extra.get("max_tokens"), distinct(r.meta.max_tokens for r in responses)),
            _declared(extra.get("attempts")), str(max(runs_per_case.values(), default=0)),
            dates[0] if dates else "", dates[-1] if dates else "", str(len(responses)),
            str(status.count(ANSWERED)), str(status.count(REFUSED)), str(status.count(ERROR)))


def compute_breakdowns(tree: Tree, spec: Spec, runs_of: Mapping[str, Sequence[RunRow]], *,
                       summaries: Mapping[str, CaseSummary], digests: Mapping[str, str]) -> Breakdowns:
    """Every issue-15 table from the validated tree and each subject's scored (non-error) runs, with their
    per-case summaries and each subject's seed digest (:func:`rgbench.stats.seeds.subject_digests`), as
    the statistics use them."""
    stats = spec.stats
    resamples, confidence = stats.bootstrap_resamples, stats.confidence_level
    passes = spec.has_pass_rule   # without: no P, no n_pass, no cost per Pass
    keys = sorted(tree.responses)
    responses_of: dict[str, list[Response]] = defaultdict(list)
    for key in keys:
        responses_of[key[0]].append(tree.responses[key])
    scorings_of: dict[str, list[Scoring]] = defaultdict(list)   # subject -> the grades of its scored runs
    scoring_of: dict[tuple[str, str, str], list[Scoring]] = defaultdict(list)
    for s in tree.scorings:
        scorings_of[s.subject_id].append(s)
        scoring_of[s.run_key].append(s)
    criteria: list[CriterionRow] = []
    tags: list[GroupRow] = []
    types: list[GroupRow] = []
    advanced: list[GroupRow] = []
    costs: list[CostRow] = []
    baseline: list[BaselineRow] = []
    metadata = []
    n_errors = {}
    for sid in sorted(tree.subjects):
        subject = tree.subjects[sid]
        version, extra = subject.subject_version, dict(subject.extra)
        rows = runs_of.get(sid, ())
        responses = responses_of.get(sid, [])
        n_errors[sid] = sum(1 for r in responses if r.meta.status == ERROR)
        digest = digests[sid]
        criteria += criterion_rows(sid, version, scorings_of[sid], spec.criteria, digest, resamples, confidence)
        summary = summaries.get(sid)     # None: no scored run, so no group either
        if summary is not None:
            by_tag: dict[str, list[str]] = defaultdict(list)    # group -> its cases, in the summary's order
            by_type: dict[str, list[str]] = defaultdict(list)
            hard: list[str] = []
            for case in summary.case_ids:   # a case type or difficulty the benchmark does not record: no group
                gold = tree.golds[case]
                for tag in gold.tags:
                    by_tag[tag].append(case)
                if gold.case_type is not None:
                    by_type[gold.case_type].append(case)
                if gold.difficulty is not None and gold.difficulty >= ADVANCED_MIN_DIFFICULTY:
                    hard.append(case)
            tags += [group_row(sid, version, tag, summary.subset(cases), digest, f"tag:{tag}", resamples, confidence,
                               passes) for tag, cases in sorted(by_tag.items())]
            types += [group_row(sid, version, kind, summary.subset(cases), digest, f"case_type:{kind}", resamples,
                                confidence, passes) for kind, cases in sorted(by_type.items())]
            if hard:
                advanced.append(group_row(sid, version, str(ADVANCED_MIN_DIFFICULTY), summary.subset(hard), digest,
                                          "advanced", resamples, confidence, passes))
        costs.append(cost_row(sid, version, extra, responses, rows, passes))
        baseline += baseline_rows(sid, version, extra, {(r.case_id, r.run_id): r.meta.participant for r in responses},
                                  rows)
        metadata.append(metadata_row(sid, version, extra, responses))
    cases = tuple((g.case_id, g.family, fmt_optional(g.case_type), fmt_optional(g.difficulty),
                   TAG_SEPARATOR.join(g.tags), g.title, g.path) for _, g in sorted(tree.golds.items()))
    explorer = tuple(_explorer_rows(tree, keys, runs_of, scoring_of))
    return Breakdowns(tuple(criteria), tuple(tags), tuple(types), tuple(advanced), tuple(costs), tuple(baseline),
                      tuple(metadata), cases, explorer, n_errors)


def _explorer_rows(tree: Tree, keys: Sequence[tuple[str, str, str]], runs_of: Mapping[str, Sequence[RunRow]],
                   scoring_of: Mapping[tuple[str, str, str], list[Scoring]]) -> Iterable[tuple[str, ...]]:
    """One row per (response, reviewer), responses in the order of ``keys`` (every response's key, sorted): a
    response without a scoring, or an error run, has one row with the grade's cells empty."""
    derived = {_run_key(r): r for rows in runs_of.values() for r in rows}
    prices_of = {}
    for sid, subject in tree.subjects.items():
        prices = dict(subject.extra).get("prices") or {}
        prices_of[sid] = (_price(prices.get("input_per_million")), _price(prices.get("output_per_million")))
    for key in keys:
        response = tree.responses[key]
        sid, case_id, run_id = key
        pin, pout = prices_of[sid]
        cost = fmt_fixed(run_cost(response, pin, pout)) if pin is not None and pout is not None else ""
        meta = response.meta
        version, participant, confidence = response.subject_version, meta.participant or "", fmt_optional(response.confidence)
        head = (sid, version, case_id, run_id, meta.status, participant)
        graded = () if meta.status == ERROR else scoring_of.get(key, ())
        empty = "true" if meta.empty_answer else "false"
        if not graded:
            yield (*head, "", "", "", "", "", "", "", confidence, "", response.path, cost, empty)
        for scoring in graded:
            row = derived[(sid, case_id, run_id, scoring.reviewer_id)]
            yield (*head, scoring.reviewer_id, fmt_optional(row.classification), score_text(row.raw_score),
                   score_text(row.clipped_score),
                   ";".join([f"{name}={score_text(score)}" for name, score in scoring.criterion_scores]),
                   ";".join([f"{code}:{severity}" for code, severity in scoring.fails]),
                   fmt_fixed(row.correctness), confidence, scoring.comments, response.path, cost, empty)


# --- rendering ----------------------------------------------------------------------------------------

def _group_cells(g: GroupRow) -> tuple[str, ...]:
    return (g.subject_id, g.subject_version, g.group, str(g.n_cases), str(g.n), fmt_optional(g.n_pass), fmt_fixed(g.p),
            *fmt_interval(g.p_interval), fmt_fixed(g.s_bar), *fmt_interval(g.s_bar_interval))


def breakdown_tables(b: Breakdowns) -> dict[str, Table]:
    """File name inside results/ -> the cells of every issue-15 table, as written (header, rows)."""
    tables = {
        CRITERION_FILE: (CRITERION_COLUMNS, (
            (c.subject_id, c.subject_version, c.criterion, str(c.n), fmt_fixed(c.mean), *fmt_interval(c.interval),
             str(c.n_cases)) for c in b.criteria)),
        TAG_FILE: (TAG_COLUMNS, map(_group_cells, b.tags)),
        CASE_TYPE_FILE: (CASE_TYPE_COLUMNS, map(_group_cells, b.case_types)),
        ADVANCED_FILE: (ADVANCED_COLUMNS, map(_group_cells, b.advanced)),
        COST_FILE: (COST_COLUMNS, (
            (c.subject_id, c.subject_version, c.currency, fmt_fixed(c.input_price), fmt_fixed(c.output_price),
             str(c.n_responses), str(c.n_with_usage), str(c.input_tokens), str(c.output_tokens),
             fmt_fixed(c.total_cost), fmt_fixed(c.cost_per_run), fmt_optional(c.n_pass), fmt_fixed(c.cost_per_pass),
             fmt_float(c.geomean_run), fmt_float(c.geomean_pass)) for c in b.costs)),
        BASELINE_FILE: (BASELINE_COLUMNS, (
            (r.subject_id, r.subject_version, r.scope, r.group, r.experience_level, str(r.n_participants),
             str(r.n_cases), str(r.n), fmt_optional(r.n_pass), fmt_fixed(r.p), fmt_fixed(r.s_bar)) for r in b.baseline)),
        METADATA_FILE: (METADATA_COLUMNS, b.metadata),
        CASES_FILE: (CASES_COLUMNS, b.cases),
        EXPLORER_FILE: (EXPLORER_COLUMNS, b.explorer),
    }
    return {name: (header, tuple(map(tuple, rows))) for name, (header, rows) in tables.items()}
