"""compute_metrics' statistics end to end on small trees: the new columns and files by hand, the seed in
the manifest, and bad statistics configuration refused with nothing written."""

from __future__ import annotations

import json
import re
from fractions import Fraction as F
from pathlib import Path

from treebuilder import MiniTree, small_tree

from rgbench.cli import run_script
from rgbench.compute.input_groups import grouped_inputs
from rgbench.load.loader import load_tree
from rgbench.load.scale import default_scale
from rgbench.load.spec import load_spec
from rgbench.numfmt import fmt_fixed
from rgbench.results.tables import SUBJECT_COLUMNS, compute_results
from rgbench.stats.case_summary import case_summaries
from rgbench.stats.intervals import subject_intervals
from rgbench.stats.run_columns import RunColumns
from rgbench.stats.seeds import generator, subject_digests

SCALE = default_scale(12)   # the seed's 0-12 scale, higher is better

CONFIG = "system/metrics/v1.0/config.yaml"


def results(root: Path, name: str) -> list[str]:
    return (root / "results" / name).read_text().splitlines()


def set_config(root: Path, old: str, new: str) -> None:
    path = root / CONFIG
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_subject_statistics_columns_by_hand(tmp_path):
    root = small_tree(tmp_path / "tree").root
    # 20000 resamples: every extreme below has probability >= 1/27 per replicate, so each 2.5% / 97.5%
    # quantile is that extreme whatever the seed.
    set_config(root, "bootstrap_resamples: 2000", "bootstrap_resamples: 20000")
    assert run_script("compute", ["--root", str(root)]) == 0
    header, alpha, beta = results(root, "metrics_per_subject.csv")
    assert header.split(",")[: len(SUBJECT_COLUMNS)] == list(SUBJECT_COLUMNS)
    stats = dict(zip(header.split(","), alpha.split(",")))
    # three cases, one run each: clipped 12 (FOUL), 8 (MEMB), 10 (SCAL). A replicate is the mean of 3 draws;
    # the replicates are symmetric about 10 (z0 ~ 0) and so are the leave-one-case-out means 9, 10, 11
    # (acceleration 0), so BCa is the percentile interval: all-8 and all-12 have probability 1/27 > 2.5%: [8, 12]
    assert (stats["s_bar_low"], stats["s_bar_high"]) == ("8.000000", "12.000000")
    # P: per case 1, 0, 1 -> replicates 0, 1/3, 2/3, 1; all-MEMB (P = 0) has probability 1/27 > 2.5%
    assert stats["P_low"] == "0.000000" and stats["P_high"] == "1.000000"
    # per-case Brier 0.01, 0.09, 0.04 (lower bound: all-FOUL, 0.01); ECE per-case |gap| 0.1, 0.3, 0.2 in distinct
    # bins: ECE = 0.6/3 = 0.2. ece_interval (§18, studentised): the replicates (3,0,0), (0,3,0), (0,0,3) draw one
    # case three times, which leaves no residual (S* = 0) while θ* ≠ θ̂, so their root is the largest float; they are
    # 3/27 = 11% of the replicates, above 1 − 0.95, so the 0.95 quantile is that float and the interval is [0, 1]:
    # three cases with one run in each bin cannot measure a bin gap's spread, and the interval says so.
    assert (stats["ECE_low"], stats["ECE_high"]) == ("0.000000", "1.000000")
    # one run per bin: reliability = BS = 0.046667; correctness 0, 1/2, 1 (mean 1/2):
    # resolution = uncertainty = (1/4 + 0 + 1/4)/3 = 1/6; within_bin = 0
    assert [stats[c] for c in ("BS_reliability", "BS_resolution", "BS_uncertainty", "BS_within_bin")] == \
        ["0.046667", "0.166667", "0.166667", "0.000000"]
    # every case has difficulty 2, so the weighted pass rate is P; all 3 cases of the benchmark scored
    assert (stats["P_weighted"], stats["n_cases"], stats["n_cases_missing"], stats["missing_cases"]) == \
        ("0.666667", "3", "0", "")
    # beta-model: FOUL (critical, clipped 11) and SCAL (5); P = 0 of 2 runs on 2 cases: every replicate is 0,
    # so P's interval is Wilson over the K = 2 cases: [0, z²/(2 + z²)] = [0, 3.8415/5.8415] = [0, 0.657620]
    stats = dict(zip(header.split(","), beta.split(",")))
    assert [stats[c] for c in ("P_low", "P_high", "s_bar_low", "s_bar_high", "n_cases_missing", "missing_cases")] \
        == ["0.000000", "0.657620", "5.000000", "11.000000", "1", "RO-MEMB-001"]


def test_new_result_files_by_hand(tmp_path):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    assert results(root, "metrics_per_family.csv")[:3] == [
        "subject_id,subject_version,family,n_family,P_family,s_bar_family,P_family_low,P_family_high",
        "alpha-model,2.0,FOUL,1,1.000000,12.000000,0.206549,1.000000",   # 1 of 1 case: Wilson [z²/(1 + z²), 1]
        "alpha-model,2.0,MEMB,1,0.000000,8.000000,0.000000,0.793451",    # 0 of 1 case: [0, 1/(1 + z²)]
    ]
    assert results(root, "calibration_bins.csv") == [
        "subject_id,subject_version,bin,bin_low,bin_high,count,mean_confidence,mean_correctness",
        "alpha-model,2.0,4,0.300000,0.400000,1,0.300000,0.000000",
        "alpha-model,2.0,8,0.700000,0.800000,1,0.700000,0.500000",
        "alpha-model,2.0,10,0.900000,1.000000,1,0.900000,1.000000",
        "beta-model,1.1,1,0.000000,0.100000,1,0.000000,0.000000",
        "beta-model,1.1,10,0.900000,1.000000,1,1.000000,0.000000",
    ]
    # shared cases FOUL and SCAL. Per-case Q contribution: alpha 1 and 11/12, beta 11/24 and 5/24: differences
    # 13/24 and 17/24, mean 15/24 = 0.625; Pass differences 1 and 1. Replicates of the mean: 13/24, 15/24, 17/24
    # with probability 1/4, 1/2, 1/4, symmetric (z0 = 0, a = 0): the extremes. Sign flips: 2 of the 4 patterns
    # reach |T| = 30/24: p = 1/2 (exact), also p_min = 2/2^2; beta-model is disqualified, so the pair is outside
    # the family (apart): no p_holm, no p_bh, nothing significant. SD of 13/24, 17/24:
    # (4/24)/√2 = 0.117851; q_mde is empty: two cases cannot reach level 0.05 (n ≤ z² = 3.84, the sign-flip test's
    # smallest p is 1/2), so no difference is detectable; the Pass
    # differences do not vary (SD 0), so p_mde is unknown (empty).
    assert results(root, "pairwise.csv") == [
        "subject_a,subject_b,n_cases,q_diff,q_diff_low,q_diff_high,p_diff,p_diff_low,p_diff_high,p_value,test,"
        "p_holm,significantly_better,q_diff_sd,p_diff_sd,q_mde,p_mde,p_bh,p_min,family",
        "alpha-model,beta-model,2,0.625000,0.541667,0.708333,1.000000,1.000000,1.000000,0.500000,exact,,,"
        "0.117851,0.000000,,,,0.500000,apart",
    ]
    # beta-model is disqualified: alpha-model alone is ranked, and its rank is established
    assert results(root, "rank_sets.csv") == [
        "subject_id,rank,rank_low,rank_high,rank_low_marginal,rank_high_marginal", "alpha-model,1,1,1,1,1"]
    assert results(root, "pass_at_k.csv") == [
        "subject_id,k,pass_at_k,pass_hat_k,n_cases",
        "alpha-model,1,0.666667,0.666667,3",
        "beta-model,1,0.000000,0.000000,2",
    ]
    difficulty = results(root, "metrics_per_difficulty.csv")
    # beta-model: 0 of 2 cases at difficulty 2: Wilson over the 2 cases, as for its P
    assert difficulty[-1] == "beta-model,2,1.250000,2,2,0,0.000000,0.000000,0.657620"
    # one difficulty level: no trend test and no separation (empty cells)
    assert results(root, "difficulty_trend.csv")[1] == "3,1,,,,,0,0,,,"
    alpha_rows = results(root, "alpha_sensitivity.csv")
    assert alpha_rows[0] == "subject_id,subject_version,alpha,Q_final,rank"
    # alpha-model at 0: s_bar/12 = 10/12; at 1: P = 2/3; beta-model is disqualified: Q_final but no rank
    assert alpha_rows[1] == "alpha-model,2.0,0.000000,0.833333,1"
    assert alpha_rows[11] == "alpha-model,2.0,1.000000,0.666667,1"
    assert alpha_rows[12] == "beta-model,1.1,0.000000,0.666667,"
    assert len(alpha_rows) == 1 + 2 * 11


def test_repeated_runs_and_difficulty_warning(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    tree.add_gold("RO-INST-001", difficulty=5)
    tree.add_run("alpha-model", "RO-INST-001", "r1", raw=12)
    tree.add_run("alpha-model", "RO-INST-001", "r2", raw=12)
    tree.add_run("alpha-model", "RO-INST-001", "r3", raw=4, correctness=0)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    # INST (difficulty 5): 2 of 3 Pass = 0.666667, above the difficulty-2 cases: no decreasing trend, warned
    assert "ALL,5,2.500000,1,3,2,0.666667," in "\n".join(results(tree.root, "metrics_per_difficulty.csv"))
    err = capsys.readouterr().err
    assert "warning: gold difficulty does not predict lower pass rates over the 4 cases" in err
    assert ("less than the separation target of 0.5; 3 + 1 cases cannot tell whether the target is missed: add cases "
            "at difficulty 2 and 5") in err
    trend = results(tree.root, "difficulty_trend.csv")
    assert trend[1].startswith("4,2,") and ",2,5,3,1," in trend[1]
    rows = results(tree.root, "pass_at_k.csv")
    # k = 2: only INST has 2+ runs (n = 3, c = 2): pass@2 = 1 - C(1,2)/C(3,2) = 1, pass^2 = C(2,2)/3 = 1/3
    # k = 3: pass@3 = 1, pass^3 = 0; beta-model has no case with 2 runs
    assert rows[2:4] == ["alpha-model,2,1.000000,0.333333,1", "alpha-model,3,1.000000,0.000000,1"]
    assert rows[5:] == ["beta-model,2,,,0", "beta-model,3,,,0"]
    # P_weighted: runs weigh 1.25 (x3, 2 Pass) and 2.5 (x3, 2 Pass): (2.5 + 5)/(3.75 + 7.5) = 2/3
    header, alpha, _ = results(tree.root, "metrics_per_subject.csv")
    assert dict(zip(header.split(","), alpha.split(",")))["P_weighted"] == "0.666667"


def test_manifest_records_the_seeds_and_the_intervals_can_be_redone_from_them(tmp_path):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    manifest = json.loads((root / "results/manifest.json").read_text())
    stats = manifest["statistics"]
    assert (stats["bootstrap_resamples"], stats["confidence_level"], stats["significance_level"],
            stats["min_case_coverage"]) == (2000, "0.950000", "0.050000", "0.900000")
    assert set(manifest["outputs"]) >= {"calibration_bins.csv", "pairwise.csv", "pass_at_k.csv", "rank_sets.csv",
                                        "metrics_per_difficulty.csv", "alpha_sensitivity.csv"}
    # each subject's digest: the declared seed (0 by default) and its own parsed runs (not the other subject's,
    # no file bytes); the manifest's inputs still record the subject's folders (provenance)
    spec, _ = load_spec(root)
    tree, _ = load_tree(root, spec)
    runs = [r for r in compute_results(tree, spec).runs if r.subject_id == "alpha-model"]
    digest = subject_digests(0, {"alpha-model": runs}, tree.scorings, tree.golds)["alpha-model"]
    assert stats["seed"] == 0 and stats["subject_digests"]["alpha-model"] == digest
    assert grouped_inputs(tree.inputs) == manifest["inputs"]
    # redo alpha-model's intervals from its recorded digest alone
    summary = case_summaries(RunColumns.of({"alpha-model": runs}), alpha=F(1, 2), scale=SCALE, bins=10)["alpha-model"]
    redone = subject_intervals(summary, generator("subject", [digest]), 2000, F(95, 100))
    header, alpha, _ = results(root, "metrics_per_subject.csv")
    row = dict(zip(header.split(","), alpha.split(",")))
    assert (row["Q_final_low"], row["Q_final_high"]) == tuple(fmt_fixed(F(v)) for v in redone.q_final)
    assert (row["ECE_low"], row["ECE_high"]) == tuple(fmt_fixed(F(v)) for v in redone.ece)


def test_a_change_to_one_subject_leaves_every_other_subjects_rows_byte_identical(tmp_path):
    first = small_tree(tmp_path / "one")
    second = small_tree(tmp_path / "two")
    second.add_response("beta-model", "RO-MEMB-001", "r1", 10)     # beta-model's inputs change, alpha-model's do not
    second.add_run("beta-model", "RO-SCAL-001", "r2", raw=12)
    for tree in (first, second):
        assert run_script("compute", ["--root", str(tree.root)]) == 0
    one, two = (json.loads((t.root / "results/manifest.json").read_text())["statistics"]["subject_digests"]
                for t in (first, second))
    assert one["alpha-model"] == two["alpha-model"] and one["beta-model"] != two["beta-model"]
    for name in ("metrics_per_subject.csv", "metrics_per_family.csv", "metrics_per_difficulty.csv"):
        rows = [[line for line in results(t.root, name) if line.startswith("alpha-model,")] for t in (first, second)]
        assert rows[0] == rows[1] and rows[0], name
    beta = [[line for line in results(t.root, "metrics_per_subject.csv") if line.startswith("beta-model,")]
            for t in (first, second)]
    assert beta[0] != beta[1]


def test_bad_statistics_configuration_is_refused_and_nothing_written(tmp_path, capsys):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    before = {p.name: p.read_bytes() for p in (root / "results").iterdir()}
    capsys.readouterr()
    set_config(root, "bootstrap_resamples: 2000", "bootstrap_resamples: 0")
    set_config(root, "confidence_level: 0.95", "confidence_level: 95")
    set_config(root, "  5: 2.5\n", "")
    assert run_script("compute", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"{CONFIG}: $.bootstrap_resamples: must be an integer from 1 to 100000, got 0" in err
    assert f"{CONFIG}: $.confidence_level: must be a number strictly between 0 and 1, got 95" in err
    assert f"{CONFIG}: $.difficulty_weights: no weight for difficulty 5 (the gold schema allows 1-5)" in err
    assert {p.name: p.read_bytes() for p in (root / "results").iterdir()} == before


def test_scoring_and_results_dir_options_are_checked(tmp_path, capsys):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root), "--scoring-dir", "missing"]) == 1
    assert "missing/v1.0: no such folder in the tree" in capsys.readouterr().err
    assert run_script("compute", ["--root", str(root), "--results-dir", "/tmp/x"]) == 1
    assert re.search(r"--results-dir: '/tmp/x' is not a folder name", capsys.readouterr().err)
    assert not (root / "results").exists()


def test_float_bounds_are_written_from_their_exact_binary_value():
    from rgbench.stats.outputs import fmt_float
    assert fmt_float(None) == ""
    assert fmt_float(0.0) == "0.000000" and fmt_float(1.0) == "1.000000"
    # Decimal halves of the last digit are not halves in binary. 2.5e-6 is a little above 25/10**7, so it
    # rounds up (half to even on the decimal text would give 0.000002); 5e-7 is a little below 5/10**7.
    assert F(2.5e-6) > F(25, 10**7) and fmt_float(2.5e-6) == "0.000003"
    assert F(5e-7) < F(5, 10**7) and fmt_float(5e-7) == "0.000000"


def test_relabelling_and_duplicating_runs_change_no_deterministic_statistic(tmp_path):
    """End to end: relabelling a subject's runs (r1 <-> r2) changes its files but not its parsed runs by case, so
    not its seed: every results CSV but the run listings (per_run.csv, explorer_runs.csv) is byte-identical.
    Copying each of its runs under a new label changes its data (each case holds every value twice), hence its
    seed, but no per-case mean: point estimates, pairwise differences and the exact p-values stay the same; the
    bootstrap's figures (bounds, rank sets) are redrawn."""
    def tree(root, variant):
        t = MiniTree(root)
        for sid in ("steady", "sharp", "weak"):
            t.add_subject(sid, "1.0")
        for i in range(1, 11):
            case = f"RO-FOUL-{i:03d}"
            t.add_gold(case)
            t.add_run("steady", case, "r1", raw=10)
            t.add_run("weak", case, "r1", raw=2 + i % 3, correctness=0)
            sharp = [("r1", 12 if i <= 7 else 8), ("r2", 9 if i % 2 else 12)]
            if variant == "relabelled":
                sharp = [("r2" if r == "r1" else "r1", raw) for r, raw in sharp]
            if variant == "duplicated":
                sharp = sharp + [(r.replace("r", "r9"), raw) for r, raw in sharp]
            for run, raw in sharp:
                t.add_run("sharp", case, run, raw=raw)
        assert run_script("compute", ["--root", str(t.root)]) == 0
        return t.root

    def deterministic(root):
        pairwise = [line.split(",") for line in results(root, "pairwise.csv")]
        header = pairwise[0]
        keep = [header.index(c) for c in ("subject_a", "subject_b", "n_cases", "q_diff", "p_diff", "p_value", "test",
                                          "p_holm", "significantly_better")]
        subjects = [line.split(",") for line in results(root, "metrics_per_subject.csv")]
        core = [row[:2] + row[4:9] for row in subjects]      # P, s_bar, BS, ECE, Q_final (not N)
        return [[row[i] for i in keep] for row in pairwise], core

    def every_csv(root):    # but the listings of runs by label
        return {p.name: p.read_bytes() for p in sorted((root / "results").glob("*.csv"))
                if p.name not in ("per_run.csv", "explorer_runs.csv")}

    base_root = tree(tmp_path / "base", "base")
    relabelled = tree(tmp_path / "relabelled", "relabelled")
    assert every_csv(relabelled) == every_csv(base_root)
    base = deterministic(base_root)
    assert base[0][1:] and base[1][1:]     # the pairs and subjects are there to compare
    assert deterministic(tree(tmp_path / "duplicated", "duplicated")) == base


def test_the_summary_line_counts_in_the_singular_when_there_is_one(tmp_path, capsys):
    tree = MiniTree(tmp_path / "tree")
    tree.add_subject("alpha-model")
    tree.add_gold("RO-FOUL-001")
    tree.add_run("alpha-model", "RO-FOUL-001", "r1", raw=12)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert capsys.readouterr().out == "1 scored run of 1 subject (1 with scores) -> tree/results/\n"


def test_an_incomplete_subject_moves_no_ranked_pairs_adjusted_p(tmp_path):
    """End to end (issue 25 item 3): Holm's family is the pairs of ranked subjects. Adding a subject scored on
    2 of the 10 cases (incomplete, not ranked) adds its pairs apart (p_value kept, no p_holm or p_bh) and leaves
    every ranked pair's row byte-identical; before, its pairs entered Holm's m and moved the ranked p_holm."""
    def tree(root, with_partial):
        t = MiniTree(root)
        for sid in ("steady", "sharp", "weak") + (("partial",) if with_partial else ()):
            t.add_subject(sid, "1.0")
        for i in range(1, 11):
            case = f"RO-FOUL-{i:03d}"
            t.add_gold(case)
            t.add_run("steady", case, "r1", raw=10)
            t.add_run("sharp", case, "r1", raw=12 if i <= 7 else 8)
            t.add_run("weak", case, "r1", raw=2 + i % 3, correctness=0)
            if with_partial and i <= 2:
                t.add_run("partial", case, "r1", raw=1, correctness=0)
        assert run_script("compute", ["--root", str(t.root)]) == 0
        return t.root

    def rows(root):
        lines = results(root, "pairwise.csv")
        header = lines[0].split(",")
        return {tuple(line.split(",")[:2]): dict(zip(header, line.split(","))) for line in lines[1:]}
    before, after = rows(tree(tmp_path / "three", False)), rows(tree(tmp_path / "four", True))
    # partial misses 8 of the 10 cases: incomplete, so not ranked, so its pairs are apart
    for pair, row in before.items():
        assert row["family"] == "ranked" and after[pair] == row
    added = [after[pair] for pair in set(after) - set(before)]
    assert len(added) == 3
    for r in added:
        assert (r["family"], r["n_cases"], r["p_holm"], r["p_bh"], r["significantly_better"]) == ("apart", "2", "", "", "")
        assert r["p_value"] and r["p_min"] == "0.500000"      # 2 cases that differ: p_min = 2/2^2
