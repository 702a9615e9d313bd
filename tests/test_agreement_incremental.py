"""scripts/aggregate_scoring.py's fast paths can never change a result: the template rendering of the
consolidated scorings equals dumps_json_canonical, the agreement sums give the per-unit statistics, and after
any change (to the inputs or to the outputs) the tree holds exactly what a fresh run into an empty folder
writes, having rewritten only the files whose bytes differ."""

from __future__ import annotations

import hashlib
import marshal
import random
from fractions import Fraction as F
from pathlib import Path

import pytest

from rgbench.parsing import dumps_json_canonical
from rgbench.records import Scoring
from rgbench.spec import load_spec
from rgbench.stats.agreement import (
    cohen_weighted_kappa, krippendorff_alpha, mean_deviation, pair_ratings, pairable, percent_agreement,
)
from rgbench.stats.agreement_outputs import (
    DEVIATION_TARGETS, NOMINAL_TARGETS, AgreementRow, AgreementTally, _document, agreement_rows,
    consolidated_bytes, ordinal_targets,
)
from rgbench.stats.consolidate import ADJUDICATED, BY_POLICY, SINGLE, Consolidated

REPO = Path(__file__).resolve().parent.parent


# --- the template rendering -------------------------------------------------------------------

ODD_TEXT = ["", "plain", "quote \" and \\ backslash", "tab\tnewline\ncr\r", "\x00\x01\x1f control", "é ü ß",
            "\u2028\u2029 separators", "emoji \U0001F600", "percent %d %s %%", "{braces} [brackets]", "/slash/"]


def random_scoring(rng: random.Random, names: tuple[str, ...]) -> Scoring:
    def text() -> str:
        return rng.choice(ODD_TEXT) + rng.choice(["", "x", "-01", "\u00e9"])
    fails = tuple(sorted((text(), rng.choice(["critical", "recoverable", text()])) for _ in range(rng.choice([0, 0, 1, 3]))))
    return Scoring(text(), text(), text(), text(), text(), tuple((name, rng.randint(-3, 40)) for name in names),
                   fails, rng.choice([F(0), F(1, 2), F(1), F(1, 3), F(7, 4), F(-2), F(10**30)]), text())


def test_consolidated_bytes_equal_dumps_json_canonical_on_many_documents():
    rng = random.Random(20260415)
    name_sets = [("diagnosis", "evidence", "causal_reasoning", "action_plan", "safety", "communication"),
                 ("b", "a", "B", "é", "a%b", "\"q\""), ("only",), ()]
    for index in range(3000):
        scoring = random_scoring(rng, rng.choice(name_sets))
        sources = tuple(f"scoring/v1.0/{rng.choice(ODD_TEXT)}/{i}.json" for i in range(rng.randint(1, 3)))
        item = Consolidated(scoring, rng.choice([SINGLE, BY_POLICY, ADJUDICATED]), sources)
        digests = {path: hashlib.sha256(path.encode()).hexdigest() for path in sources}
        response = rng.choice(["0" * 64, "\u00e9", ""])
        expected = dumps_json_canonical(_document(item, response, digests)).encode("utf-8")
        assert consolidated_bytes(item, response, digests) == expected, index


@pytest.mark.parametrize("change", [
    dict(criterion_scores=(("a", True), ("b", 2))),          # a bool is an int, but JSON writes true
    dict(criterion_scores=(("a", 1.5), ("b", 2))),           # a float score
    dict(criterion_scores=(("a", 1), ("a", 2))),             # a repeated name: the document keeps the last
    dict(criterion_scores=((2, 1), (1, 2))),                 # names that are not text (JSON writes "1", "2")
    dict(subject_id=7), dict(case_id=None), dict(fails=((None, "critical"),)),
])
def test_unusual_fields_take_dumps_json_canonical(change):
    scoring = Scoring("s", "1.0", "c", "r1", "rev", (("a", 1), ("b", 2)), (), F(1), "p")._replace(**change)
    item = Consolidated(scoring, SINGLE, ("p",))
    digests = {"p": "0" * 64}
    assert consolidated_bytes(item, "1" * 64, digests) == \
        dumps_json_canonical(_document(item, "1" * 64, digests)).encode("utf-8")


# --- the agreement sums -----------------------------------------------------------------------

def reference_rows(units: dict[str, list[dict]], spec) -> list[AgreementRow]:
    """agreement.csv's rows straight from the per-unit statistics (the definition the sums must equal)."""
    def alpha_row(statistic, target, metric):
        value = krippendorff_alpha(units[target], metric)
        n = len(pairable(units[target]))
        note = "" if value is not None else ("no run has two ratings" if n == 0 else "no variation: all ratings equal")
        return AgreementRow(statistic, target, value, "", "", n, note)
    rows = [alpha_row("krippendorff_alpha_ordinal", t, "ordinal") for t in ordinal_targets(spec)]
    rows += [alpha_row("krippendorff_alpha_nominal", t, "nominal") for t in NOMINAL_TARGETS]
    for target in ordinal_targets(spec) + NOMINAL_TARGETS:
        value = percent_agreement(units[target])
        rows.append(AgreementRow("percent_agreement", target, value, "", "", len(pairable(units[target])),
                                 "" if value is not None else "no run has two ratings"))
    reviewers = sorted({reviewer for unit in units["raw_score"] for reviewer in unit})
    for i, a in enumerate(reviewers):
        for b in reviewers[i + 1:]:
            for target in ordinal_targets(spec):
                pairs = pair_ratings(units[target], a, b)
                value = cohen_weighted_kappa(pairs)
                note = "" if value is not None else (
                    "no run graded by both" if not pairs else "no variation: both gave one and the same value")
                rows.append(AgreementRow("cohen_kappa_quadratic", target, value, a, b, len(pairs), note))
    for reviewer in reviewers:
        for target in DEVIATION_TARGETS:
            value, n = mean_deviation(units[target], reviewer)
            note = ("no run shared with another reviewer" if value is None else
                    "lenient" if value > 0 else "severe" if value < 0 else "neutral")
            rows.append(AgreementRow("mean_deviation", target, value, reviewer, "", n, note))
    return rows


def random_runs(rng: random.Random, spec, count: int, spread: int) -> list[dict[str, dict]]:
    """Runs as reviewer -> target -> value, with one to four reviewers each."""
    runs = []
    for _ in range(count):
        base = rng.randint(0, 2)
        ratings = {}
        for reviewer in rng.sample(["r1", "r2", "r3", "r4", "r5"], rng.choice([1, 2, 2, 2, 3, 4])):
            scores = {name: min(2, max(0, base + rng.randint(-spread, spread))) for name in spec.criteria}
            ratings[reviewer] = {
                "raw_score": sum(scores.values()), **scores,
                "classification": rng.choice(["Pass", "Conditional", "Fail"][:1 + spread]),
                "correctness": rng.choice([F(0), F(1, 2), F(1)][:1 + spread]),
                "has_critical_fail": rng.random() < 0.2 * spread,
            }
        runs.append(ratings)
    return runs


@pytest.mark.parametrize("seed", range(6))
def test_merged_sums_give_the_per_unit_statistics_exactly(seed):
    spec, _ = load_spec(REPO)
    rng = random.Random(seed)
    runs = random_runs(rng, spec, rng.choice([0, 1, 5, 60]), spread=seed % 3)
    targets = ordinal_targets(spec) + NOMINAL_TARGETS
    units = {t: [{r: values[t] for r, values in sorted(run.items())} for run in runs] for t in targets}
    expected = reference_rows(units, spec)
    assert agreement_rows(units, spec) == expected
    # in groups (subjects), each through marshal as the memo keeps it, then merged
    groups: list[AgreementTally] = []
    for start in range(0, len(runs), 7):
        tally = AgreementTally(spec)
        for run in runs[start:start + 7]:
            tally.reviewers.update(run)
            if len(run) >= 2:
                tally.add_run(run)
        groups.append(AgreementTally.from_plain(spec, marshal.loads(marshal.dumps(tally.to_plain()))))
    total = AgreementTally(spec)
    for tally in reversed(groups):
        total.merge(tally)
    assert total.rows() == expected
