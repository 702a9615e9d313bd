"""What scripts/aggregate_scoring.py writes: results/agreement.csv and the consolidated scorings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..compute.derive import CONDITIONAL, FAIL, PASS, derive_run
from ..load.consolidate import ADJUDICATED, MEDIAN_V1, SINGLE, Consolidated, Policy
from ..load.extract import ROUNDED_DECIMALS
from ..load.loader import scoring_rel
from ..load.parsing import dumps_json_canonical
from ..load.records import Scoring, Tree
from ..load.scale import json_score
from ..load.spec import Spec
from ..numfmt import fmt_fixed
from .agreement import (
    Rating,
    Unit,
    as_score,
    cohen_weighted_kappa,
    krippendorff_alpha,
    leniency,
    mean_deviation,
    pair_ratings,
    percent_agreement,
    unit_deviations,
)
from .agreement_bootstrap import (
    alpha_interval,
    canonical_units,
    deviation_interval,
    kappa_interval,
    percent_interval,
    unit_weights,
)
from .bootstrap import Interval
from .outputs import fmt_interval

AGREEMENT_FILE = "agreement.csv"
AGREEMENT_COLUMNS = ("statistic", "target", "value", "reviewer_a", "reviewer_b", "n_units", "note",
                     "value_low", "value_high")
NOMINAL_TARGETS = ("has_critical_fail",)    # no order: nominal alpha
RANKED_TARGETS = ("classification", "correctness")   # ordered, not numbers of the rubric's scale: ordinal alpha
CLASSIFICATION_ORDER = {FAIL: 0, CONDITIONAL: 1, PASS: 2}
DEVIATION_TARGETS = ("raw_score", "correctness")


def ranked_targets(spec: Spec) -> tuple[str, ...]:
    """RANKED_TARGETS the benchmark records: no classification without a pass rule, no correctness without it."""
    return tuple(t for t in RANKED_TARGETS if (spec.has_pass_rule if t == "classification" else spec.has_correctness))


def deviation_targets(spec: Spec) -> tuple[str, ...]:
    """DEVIATION_TARGETS the benchmark records (raw_score always; correctness when the schema requires it)."""
    return tuple(t for t in DEVIATION_TARGETS if t != "correctness" or spec.has_correctness)


def ordinal_targets(spec: Spec) -> tuple[str, ...]:
    """raw_score, then each criterion in the rubric's order (the numeric scores: also kappa's targets)."""
    return ("raw_score",) + spec.criteria


def ranked(target: str, units: list[Unit]) -> list[Unit]:
    """The units with a classification replaced by its rank (Fail 0 < Conditional 1 < Pass 2); others as they are."""
    if target != "classification":
        return units
    return [{r: CLASSIFICATION_ORDER[str(v)] for r, v in unit.items()} for unit in units]


def rating_values(scoring: Scoring, tree: Tree, spec: Spec) -> dict[str, Rating]:
    """Every agreement target's value in one grade: raw_score, criteria, classification, correctness, critical flag."""
    row = derive_run(scoring, tree.responses[scoring.run_key], tree.golds[scoring.case_id], spec)
    values: dict[str, Rating] = {"raw_score": row.raw_score}
    values.update(dict(scoring.criterion_scores))
    values["has_critical_fail"] = row.has_critical_fail
    if row.classification is not None:   # no pass rule, no correctness: no such target (ranked_targets)
        values["classification"] = row.classification
    if row.correctness is not None:
        values["correctness"] = row.correctness
    return values


def units_by_target(scorings: Sequence[Scoring], tree: Tree, spec: Spec) -> dict[str, list[Unit]]:
    """target -> one unit per run graded at least twice (sorted by run key): reviewer_id -> value.

    A run graded once tells nothing about agreement (every statistic skips it), so it is left out.
    """
    per_run: dict[tuple[str, str, str], dict[str, Scoring]] = {}
    for scoring in scorings:
        per_run.setdefault(scoring.run_key, {})[scoring.reviewer_id] = scoring
    runs = [{reviewer: rating_values(s, tree, spec) for reviewer, s in sorted(grades.items())}
            for _, grades in sorted(per_run.items()) if len(grades) >= 2]
    return {target: [{reviewer: values[target] for reviewer, values in run.items()} for run in runs]
            for target in ordinal_targets(spec) + ranked_targets(spec) + NOMINAL_TARGETS}


@dataclass(frozen=True)
class AgreementRow:
    """One row of agreement.csv; value None (empty cell) when undefined, ``note`` says why."""

    statistic: str
    target: str
    value: Fraction | None
    reviewer_a: str
    reviewer_b: str
    n_units: int
    note: str
    interval: Interval | None = None   # bootstrap over the row's units (agreement_bootstrap)


def agreement_table(scorings: Sequence[Scoring], tree: Tree, spec: Spec) -> list[AgreementRow]:
    """Every agreement statistic over every grade (scoring/ and the extra reviewers; adjudications are not
    ratings), in a fixed order (see results/README.md); every reviewer gets rows, even one who shares no run.
    A row's interval is drawn over its own units (:func:`.agreement_bootstrap.unit_weights`) when its value is
    defined, its units in :func:`.agreement_bootstrap.canonical_units` order (run ids play no part) and its
    stream seeded by config.yaml's ``seed`` and those units."""
    units = {target: canonical_units(listed) for target, listed in units_by_target(scorings, tree, spec).items()}
    reviewers = sorted({scoring.reviewer_id for scoring in scorings})
    resamples, level, seed = spec.stats.bootstrap_resamples, spec.stats.confidence_level, spec.stats.seed
    rows: list[AgreementRow] = []
    for statistic, metric, targets in (("krippendorff_alpha_ordinal", "ordinal", ordinal_targets(spec) + ranked_targets(spec)),
                                       ("krippendorff_alpha_nominal", "nominal", NOMINAL_TARGETS)):
        for target in targets:
            rated = ranked(target, units[target])
            value = krippendorff_alpha(rated, metric)
            note = "" if value is not None else (
                "no run has two ratings" if not rated else "no variation: all ratings equal")
            interval = None if value is None else alpha_interval(
                rated, metric, unit_weights(len(rated), statistic, target, rated, resamples, seed), level)
            rows.append(AgreementRow(statistic, target, value, "", "", len(rated), note, interval))
    for target in ordinal_targets(spec) + ranked_targets(spec) + NOMINAL_TARGETS:
        value = percent_agreement(units[target])
        n = len(units[target])
        interval = None if value is None else percent_interval(
            units[target], unit_weights(n, "percent_agreement", target, units[target], resamples, seed), level)
        rows.append(AgreementRow("percent_agreement", target, value, "", "", n,
                                 "" if value is not None else "no run has two ratings", interval))
    for i, a in enumerate(reviewers):
        for b in reviewers[i + 1:]:
            for target in ordinal_targets(spec):
                pairs = [(as_score(x), as_score(y)) for x, y in pair_ratings(units[target], a, b)]
                value = cohen_weighted_kappa(pairs)
                note = "" if value is not None else (
                    "no run graded by both" if not pairs else "no variation: both gave one and the same value")
                interval = None if value is None else kappa_interval(
                    pairs, unit_weights(len(pairs), "cohen_kappa_quadratic", target, (a, b, *pairs), resamples,
                                          seed), level)
                rows.append(AgreementRow("cohen_kappa_quadratic", target, value, a, b, len(pairs), note, interval))
    for reviewer in reviewers:
        for target in deviation_targets(spec):
            value, n = mean_deviation(units[target], reviewer)
            note = ("no run shared with another reviewer" if value is None else
                    leniency(value, target != "raw_score" or spec.higher_is_better))
            deviations = unit_deviations(units[target], reviewer)
            interval = None if value is None else deviation_interval(
                deviations, unit_weights(n, "mean_deviation", target, (reviewer, *deviations), resamples,
                                             seed), level)
            rows.append(AgreementRow("mean_deviation", target, value, reviewer, "", n, note, interval))
    return rows


def agreement_csv_rows(rows: Sequence[AgreementRow]):
    for r in rows:
        yield (r.statistic, r.target, fmt_fixed(r.value), r.reviewer_a, r.reviewer_b, str(r.n_units), r.note,
               *fmt_interval(r.interval))


# --- consolidated scorings ------------------------------------------------------------

_HOW = {
    SINGLE: "the only grade of this run, carried over unchanged",
    ADJUDICATED: "the adjudicator's grade, which wins over the other grades",
}


def consolidated_number(value: Fraction | int) -> int | float:
    """A consolidated score or correctness as a JSON number: an integer when whole; else its decimal when that
    is exact (1.5, 1.25, 0.125: every grade's own value), otherwise rounded half to even to 6 decimals (the
    mean 4/3 is written 1.333333; the file's comments give the exact value; reading the folder back,
    :func:`rgbench.load.extract.read_mean` recovers it; a board with ``board_grades: consolidated`` is computed
    from the exact values in memory and never reads these files)."""
    value = Fraction(value)
    try:
        return json_score(value)   # whole, or a decimal JSON holds exactly
    except ValueError:
        return float(fmt_fixed(value, ROUNDED_DECIMALS))   # its repr is that decimal, read back exactly


def _rounded(value: Fraction | int) -> bool:
    return Fraction(consolidated_number(value)) != value


def consolidated_document(item: Consolidated, tree: Tree, digests: Mapping[str, str], schema_version: str,
                          policy: Policy = MEDIAN_V1) -> dict:
    """The evaluation-schema document of one consolidated scoring; ``comments`` names its sources and their
    sha256, and the exact value of each score written rounded (:func:`consolidated_number`)."""
    s = item.scoring
    sources = "; ".join(f"{path} (sha256 {digests[path]})" for path in item.sources)
    how = _HOW.get(item.method, f"the grades combined by policy {policy.name} ({policy.text})")
    values: list[tuple[str, Fraction | int | None]] = [*s.criterion_scores, ("correctness", s.correctness)]
    exact = [f"{name} {value}" for name, value in values if value is not None and _rounded(value)]
    note = f" Exact values of the scores rounded to {ROUNDED_DECIMALS} decimals here: {', '.join(exact)}." if exact else ""
    document = {
        "automatic_fails_triggered": [{"code": code, "severity": severity} for code, severity in s.fails],
        "case_id": s.case_id,
        "comments": f"Consolidated by scripts/aggregate_scoring.py: {how}. Sources: {sources}.{note}",
        "correctness": None if s.correctness is None else consolidated_number(s.correctness),
        "criterion_scores": {name: consolidated_number(value) for name, value in s.criterion_scores},
        "response_sha256": digests[tree.responses[s.run_key].path],
        "gold_sha256": digests[tree.golds[s.case_id].path],
        "reviewer_id": s.reviewer_id,
        "run_id": s.run_id,
        "schema_version": schema_version,  # the evaluation schema's const (system/)
        "subject_id": s.subject_id,
        "subject_version": s.subject_version,
    }
    return {key: value for key, value in document.items() if value is not None}   # no correctness: not recorded


def consolidated_files(items: Sequence[Consolidated], tree: Tree, spec: Spec, out_dir: str,
                       digests: Mapping[str, str], policy: Policy = MEDIAN_V1) -> dict[str, bytes]:
    """Relative path -> canonical JSON bytes of every consolidated scoring, under ``<out_dir>/<version>/``."""
    files = {}
    for item in items:
        s = item.scoring
        rel = scoring_rel(spec, s.subject_id, s.case_id, s.run_id, s.reviewer_id, folder=out_dir)
        document = consolidated_document(item, tree, digests, spec.schema_version, policy)
        files[rel] = dumps_json_canonical(document).encode("utf-8")
    return files
