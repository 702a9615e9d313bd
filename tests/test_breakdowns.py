"""Issue 15's tables: criterion, tag, case-type and Advanced+ breakdowns, non-answers, cost, the human
baseline per participant and the run metadata; every value hand-computed (arithmetic in comments)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
from treebuilder import MiniTree, rows

from rgbench.cli import run_script
from rgbench.compute.derive import RunRow
from rgbench.load.records import Response, ResponseMeta
from rgbench.results.breakdowns import (
    ADVANCED_FILE,
    BASELINE_FILE,
    CASE_TYPE_FILE,
    COST_FILE,
    CRITERION_FILE,
    EXPLORER_FILE,
    METADATA_FILE,
    TAG_FILE,
    baseline_rows,
    geometric_mean,
    run_cost,
)
from rgbench.stats.bootstrap import case_weights, ratio_interval
from rgbench.stats.outputs import fmt_float
from rgbench.stats.wilson import wilson_interval


def run(sid: str, case: str, run_id: str, classification: str, clipped: int) -> RunRow:
    return RunRow(sid, "1", case, run_id, "rev-a", case.split("-")[1], clipped, 0, 12, clipped, False, False,
                  classification, 50, Fraction(1, 2), Fraction(1))


# --- the case bootstrap ---------------------------------------------------------------------------------

def test_ratio_interval_is_the_percentile_interval_when_bca_has_no_bias_and_no_acceleration():
    # cases: A (0 over 1 run), B (1 over 1), C (2 over 1); estimate 3/3 = 1. Jackknife (leave one case out):
    # 3/2, 2/2, 1/2 -> d = θ̄ − θ₍ᵢ₎ = −1/2, 0, 1/2, Σd³ = 0 -> a = 0. Five replicates (weights per case):
    weights = np.array([[3, 0, 0],    # 0/3 = 0
                        [0, 0, 3],    # 6/3 = 2
                        [2, 1, 0],    # 1/3
                        [0, 1, 2],    # 5/3
                        [1, 1, 1]])   # 3/3 = 1
    # sorted 0, 1/3, 1, 5/3, 2: 2 below the estimate, 1 equal -> share (2 + 1/2)/5 = 1/2, z0 = 0: BCa levels are
    # the percentile levels. confidence 1/2 -> q = 1/4, 3/4; h = (5 − 1) q = 1 and 3 -> 1/3 and 5/3
    assert ratio_interval([0, 1, 2], [1, 1, 1], weights, Fraction(1, 2)) == pytest.approx((1 / 3, 5 / 3))
    # confidence 0.9 -> q = 0.05, 0.95; h = 0.2 and 3.8: low = 0.2 · 1/3 = 1/15; high = 5/3 + 0.8 · 1/3 = 29/15
    assert ratio_interval([0, 1, 2], [1, 1, 1], weights, Fraction(9, 10)) == pytest.approx((1 / 15, 29 / 15))


def test_ratio_interval_corrects_for_bias():
    # the same replicates with the estimate moved: cases A (0/1), B (0/1), C (3/1), estimate 1; weights as above
    # give replicates 0, 3, 0, 2, 1: 2 below, 1 equal -> z0 = 0, but the jackknife 3/2, 3/2, 0 (d = −1/2,
    # −1/2, 1) has Σd³ = 3/4 > 0 -> a = 0.75 / (6 · 1.5^1.5) = 0.068041: BCa moves both levels up
    weights = np.array([[3, 0, 0], [0, 0, 3], [2, 1, 0], [0, 1, 2], [1, 1, 1]])
    low, high = ratio_interval([0, 0, 3], [1, 1, 1], weights, Fraction(1, 2))
    z, a = NormalDist(), 0.75 / (6 * 1.5 ** 1.5)
    levels = [z.cdf(zq / (1 - a * zq)) for zq in (z.inv_cdf(0.25), z.inv_cdf(0.75))]
    assert levels[0] > 0.25 and levels[1] > 0.75
    assert (low, high) == pytest.approx(tuple(float(np.quantile([0, 0, 1, 2, 3], lv)) for lv in levels))


def test_case_bootstrap_degenerate_groups():
    assert ratio_interval([], [], np.zeros((10, 0), dtype=np.int64), Fraction(95, 100)) is None   # no case
    one = case_weights(1, digest="d" * 64, label="tag:x", resamples=50)
    assert (one == 1).all()
    assert ratio_interval([3], [4], one, Fraction(95, 100)) == (0.75, 0.75)   # one case: the point
    # every case at the same mean (1/2): every replicate is 1/2
    same = case_weights(3, digest="d" * 64, label="tag:y", resamples=200)
    assert ratio_interval([1, 2, 3], [2, 4, 6], same, Fraction(95, 100)) == pytest.approx((0.5, 0.5))


def test_case_weights_depend_on_the_subject_digest_and_label_only():
    a = case_weights(5, digest="a" * 64, label="criteria", resamples=20)
    assert a.shape == (20, 5) and (a.sum(axis=1) == 5).all()     # five cases drawn per replicate
    assert (a == case_weights(5, digest="a" * 64, label="criteria", resamples=20)).all()
    assert not (a == case_weights(5, digest="b" * 64, label="criteria", resamples=20)).all()
    assert not (a == case_weights(5, digest="a" * 64, label="tag:x", resamples=20)).all()


def test_case_bootstrap_covers_a_known_mean_by_simulation():
    # 30 cases, 2 runs each, every run passes with p = 0.6 independently; the 90% interval of the pass rate
    # should cover 0.6 in roughly 90% of 200 simulated benchmarks (binomial sd of the rate 0.021: 0.8-0.97).
    rng = np.random.default_rng(7)
    covered = 0
    for i in range(200):
        passes = rng.binomial(2, 0.6, size=30)
        weights = case_weights(30, digest=f"{i:064d}", label="sim", resamples=400)
        low, high = ratio_interval(list(passes), [2] * 30, weights, Fraction(9, 10))
        covered += low <= 0.6 <= high
    assert 0.8 <= covered / 200 <= 0.97


# --- cost, geometric mean, baseline ----------------------------------------------------------------------

def _response(case: str, run_id: str, tokens: tuple[int, int] | None, **meta) -> Response:
    usage = {"input_tokens": tokens[0], "output_tokens": tokens[1]} if tokens else {}
    return Response("s", "1", case, run_id, 50, f"responses/v1.0/s/{case}__{run_id}.json", ResponseMeta(**usage, **meta))


def test_run_cost_is_needle_bench_estimated_cost():
    # 1000 input tokens at 3 per million + 500 output at 15 per million = (3000 + 7500) / 10^6 = 0.0105
    assert run_cost(_response("C", "r1", (1000, 500)), Fraction(3), Fraction(15)) == Fraction(105, 10000)
    assert run_cost(_response("C", "r1", None), Fraction(3), Fraction(15)) is None


def test_geometric_mean():
    # sqrt(0.01 * 0.04) = sqrt(0.0004) = 0.02
    assert fmt_float(geometric_mean([Fraction(1, 100), Fraction(1, 25)])) == "0.020000"
    # cube root of 1 * 2 * 4 = cube root of 8 = 2
    assert fmt_float(geometric_mean([Fraction(1), Fraction(2), Fraction(4)])) == "2.000000"
    assert geometric_mean([Fraction(0), Fraction(5)]) == Decimal(0)
    assert geometric_mean([]) is None


def test_baseline_mean_of_individual_pass_rates_weighs_each_participant_equally():
    rows = [run("h", "RO-A-001", "r1", "Pass", 12), run("h", "RO-A-002", "r1", "Fail", 4),   # ana: P 1/2, s 8
            run("h", "RO-A-003", "r1", "Pass", 10)]                                          # bo: P 1, s 10
    participant = {("RO-A-001", "r1"): "ana", ("RO-A-002", "r1"): "ana", ("RO-A-003", "r1"): "bo"}
    extra = {"participants": [{"participant_id": "ana", "experience_level": "senior"}]}
    out = {(r.scope, r.group): r for r in baseline_rows("h", "1", extra, participant, rows)}
    assert out[("participant", "ana")].p == Fraction(1, 2)
    assert out[("participant", "bo")].experience_level == "not declared"
    mean = out[("mean_of_participants", "")]
    assert mean.p == Fraction(3, 4)            # (1/2 + 1) / 2, where the pooled rate is 2/3
    assert mean.s_bar == Fraction(9)           # (8 + 10) / 2
    assert out[("experience_level", "senior")].p == Fraction(1, 2)
    assert baseline_rows("h", "1", extra, {}, rows) == []   # no participant named: no rows


# --- end to end on a small tree --------------------------------------------------------------------------

@pytest.fixture
def lab_tree(tmp_path) -> MiniTree:
    tree = MiniTree(tmp_path / "tree")
    tree.add_subject("llm-a", "1", kind="llm", provider="Acme", temperature=0.2, attempts=2,
                     prices={"input_per_million": 2, "output_per_million": 10, "currency": "USD"})
    tree.add_subject("panel", "1", kind="human",
                     participants=[{"participant_id": "ana", "experience_level": "senior"}])
    tree.add_gold("RO-FOUL-001", tags=["bio", "hard"], difficulty=4)
    tree.add_gold("RO-SCAL-001", tags=["bio"], case_type="Open", difficulty=2)
    usage = {"input_tokens": 1000, "output_tokens": 100}
    for run_id, raw in (("r1", 12), ("r2", 6)):
        tree.add_response("llm-a", "RO-FOUL-001", run_id, usage=usage, generation_parameters={"max_tokens": 512})
        tree.add_scoring("llm-a", "RO-FOUL-001", run_id, raw=raw)
    tree.add_response("llm-a", "RO-SCAL-001", "r1", usage=usage, status="refused")
    tree.add_scoring("llm-a", "RO-SCAL-001", "r1", raw=2, correctness=0, comments="Declined.")
    tree.add_response("llm-a", "RO-SCAL-001", "r2", usage={"input_tokens": 1000, "output_tokens": 0}, status="error")
    tree.add_response("panel", "RO-FOUL-001", "r1", participant="ana")
    tree.add_scoring("panel", "RO-FOUL-001", "r1", raw=11)
    tree.add_response("panel", "RO-SCAL-001", "r1", participant="ana")
    tree.add_scoring("panel", "RO-SCAL-001", "r1", raw=4)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    return tree


def test_error_runs_are_out_of_n_and_counted(lab_tree):
    subject = {r["subject_id"]: r for r in rows(lab_tree.root / "results" / "metrics_per_subject.csv")}["llm-a"]
    # runs: FOUL r1 (12, Pass), FOUL r2 (6, Fail), SCAL r1 refused (2, Fail); SCAL r2 is an error run
    assert (subject["N"], subject["n_unscored"], subject["n_errors"]) == ("3", "0", "1")
    assert subject["P"] == "0.333333"          # 1 Pass of 3
    assert subject["s_bar"] == "6.666667"      # (12 + 6 + 2) / 3
    meta = {r["subject_id"]: r for r in rows(lab_tree.root / "results" / METADATA_FILE)}
    assert (meta["llm-a"]["n_answered"], meta["llm-a"]["n_refused"], meta["llm-a"]["n_errors"]) == ("2", "1", "1")
    assert (meta["llm-a"]["temperature"], meta["llm-a"]["max_tokens"], meta["llm-a"]["attempts"]) == ("0.2", "512", "2")
    assert (meta["panel"]["temperature"], meta["panel"]["provider"]) == ("", "")   # not declared


def test_criterion_means(lab_tree):
    means = {(r["subject_id"], r["criterion"]): r for r in rows(lab_tree.root / "results" / CRITERION_FILE)}
    # scores_summing_to fills from the first criterion: 12 -> all 2; 6 -> diagnosis, evidence, causal 2;
    # 2 -> diagnosis 2. diagnosis: (2 + 2 + 2) / 3 = 2; causal_reasoning: (2 + 2 + 0) / 3 = 1.333333
    assert means[("llm-a", "diagnosis")]["mean"] == "2.000000"
    assert means[("llm-a", "causal_reasoning")]["mean"] == "1.333333"
    assert means[("llm-a", "safety")]["mean"] == "0.666667"   # (2 + 0 + 0) / 3
    assert means[("llm-a", "diagnosis")]["n_cases"] == "2"
    # two cases: FOUL sums 4 over 2 runs for causal_reasoning, SCAL 0 over 1; replicates are 4/2, 0/1 or
    # 4/3, so the interval lies in [0, 2] and contains the estimate's neighbourhood
    causal = means[("llm-a", "causal_reasoning")]
    low, high = Fraction(causal["mean_low"]), Fraction(causal["mean_high"])
    assert 0 <= low <= Fraction(4, 3) <= high <= 2


def test_tag_case_type_and_advanced(lab_tree):
    tags = {(r["subject_id"], r["tag"]): r for r in rows(lab_tree.root / "results" / TAG_FILE)}
    # bio: both cases: 3 runs, 1 Pass; hard: FOUL only: 2 runs, 1 Pass, s_bar (12 + 6) / 2 = 9
    assert (tags[("llm-a", "bio")]["n"], tags[("llm-a", "bio")]["P"]) == ("3", "0.333333")
    assert (tags[("llm-a", "hard")]["P"], tags[("llm-a", "hard")]["s_bar"]) == ("0.500000", "9.000000")
    # one case: the interval is the point
    assert (tags[("llm-a", "hard")]["P_low"], tags[("llm-a", "hard")]["P_high"]) == ("0.500000", "0.500000")
    assert (tags[("llm-a", "hard")]["s_bar_low"], tags[("llm-a", "hard")]["s_bar_high"]) == ("9.000000", "9.000000")
    types = {(r["subject_id"], r["case_type"]): r for r in rows(lab_tree.root / "results" / CASE_TYPE_FILE)}
    assert types[("llm-a", "Open")]["s_bar"] == "2.000000"   # the refused run, graded 2
    advanced = {r["subject_id"]: r for r in rows(lab_tree.root / "results" / ADVANCED_FILE)}
    assert advanced["panel"]["s_bar"] == "11.000000" and advanced["panel"]["min_difficulty"] == "4"
    # panel passes its one Advanced+ case (11 of 12): P = 1, where every replicate is 1; the interval is the
    # Wilson interval over that one case, as for P_family (aggregate_metrics.md §17): [0.206549, 1]
    # (z = 1.959964, n = 1: centre (1 + z²/2)/(1 + z²) = 0.603275, half z·sqrt(z²/4)/(1 + z²) = 0.396725)
    low, high = wilson_interval(1, 1, Fraction(95, 100))
    assert (advanced["panel"]["P_low"], advanced["panel"]["P_high"]) == (f"{low:.6f}", f"{high:.6f}") == ("0.206549", "1.000000")


def test_cost(lab_tree):
    cost = {r["subject_id"]: r for r in rows(lab_tree.root / "results" / COST_FILE)}
    a = cost["llm-a"]
    # each of 3 runs: 1000 x 2 / 10^6 + 100 x 10 / 10^6 = 0.002 + 0.001 = 0.003; the error run: 0.002
    assert a["total_cost"] == "0.011000"          # 3 x 0.003 + 0.002
    assert a["cost_per_run"] == "0.002750"        # 0.011 / 4 responses
    assert a["cost_per_pass"] == "0.011000"       # 0.011 / 1 Pass
    assert a["geomean_cost_pass"] == "0.003000"   # the one Pass run
    # (0.003^3 x 0.002)^(1/4) = 0.003 x (2/3)^(1/4) = 0.003 x 0.903602 = 0.002711
    assert a["geomean_cost_run"] == "0.002711"
    assert cost["panel"]["total_cost"] == "" and cost["panel"]["currency"] == ""   # not declared


def test_cost_per_pass_is_empty_when_nothing_passed(tmp_path):
    tree = MiniTree(tmp_path / "t")
    tree.add_subject("m", "1", prices={"input_per_million": 1, "output_per_million": 1, "currency": "EUR"})
    tree.add_gold("RO-FOUL-001")
    tree.add_response("m", "RO-FOUL-001", "r1", usage={"input_tokens": 10, "output_tokens": 10})
    tree.add_scoring("m", "RO-FOUL-001", "r1", raw=3)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    row = rows(tree.root / "results" / COST_FILE)[0]
    assert (row["n_pass"], row["cost_per_pass"], row["total_cost"]) == ("0", "", "0.000020")   # 20 / 10^6
    assert "inf" not in (tree.root / "results" / COST_FILE).read_text().lower()


def test_baseline_and_explorer(lab_tree):
    baseline = rows(lab_tree.root / "results" / BASELINE_FILE)
    assert [(r["scope"], r["group"], r["P"]) for r in baseline] == [
        ("participant", "ana", "0.500000"), ("experience_level", "senior", "0.500000"),
        ("mean_of_participants", "", "0.500000")]
    explorer = {(r["subject_id"], r["case_id"], r["run_id"]): r for r in rows(lab_tree.root / "results" / EXPLORER_FILE)}
    refused = explorer[("llm-a", "RO-SCAL-001", "r1")]
    assert (refused["status"], refused["comments"], refused["criterion_scores"].split(";")[0]) == (
        "refused", "Declined.", "diagnosis=2")
    error = explorer[("llm-a", "RO-SCAL-001", "r2")]
    assert (error["status"], error["classification"], error["cost"]) == ("error", "", "0.002000")


def test_a_grade_of_an_error_run_and_an_unknown_participant_are_refused(lab_tree, capsys):
    tree = lab_tree
    tree.add_scoring("llm-a", "RO-SCAL-001", "r2", raw=12)
    tree.add_response("panel", "RO-MEMB-001", "r1", participant="bob")
    tree.add_gold("RO-MEMB-001")
    before = (tree.root / "results" / "metrics_per_subject.csv").read_bytes()
    assert run_script("compute", ["--root", str(tree.root)]) == 1
    err = capsys.readouterr().err
    assert ("scoring/v1.0/llm-a/RO-SCAL-001__r2__eval-rev-a.json: grades a response with status error "
            "(an API or harness failure, no answer to grade)") in err
    assert "responses/v1.0/panel/RO-MEMB-001__r1.json: $.participant: 'bob' is not among the participants of 'panel'" in err
    assert (tree.root / "results" / "metrics_per_subject.csv").read_bytes() == before
