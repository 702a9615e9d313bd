"""scripts/aggregate_scoring.py end to end on temporary trees: the agreement report by hand, the
consolidated scorings and their sources, compute_metrics --scoring-dir, and every refusal."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from treebuilder import canonical, small_tree

from rgbench.cli import run_script
from rgbench.commands import check as check_results

REPO = Path(__file__).resolve().parent.parent
MULTI = "scoring_multi/v1.0"
OUT = "scoring_consolidated/v1.0"


def add_multi(tree, subject, case, reviewer, *, kind="eval", **scoring):
    doc = tree.scoring_doc(subject, case, "r1", reviewer, **scoring)
    return tree.write(f"{MULTI}/{subject}/{case}__r1__{kind}-{reviewer}.json", canonical(doc))


def multi_tree(tmp_path: Path):
    """small_tree plus further grades.

    In scoring/ (rev-a unless noted): alpha FOUL 12 (Pass, correct 1), alpha SCAL 12 -> clipped 10 (Pass, 1/2),
    alpha MEMB 8 by rev-b (Conditional, 0), beta FOUL 11 with a critical fail (Fail, 0), beta SCAL 5 (Fail, 0).
    Added here: rev-b on alpha FOUL (9, Conditional, 1/2), alpha SCAL (12, Pass, 1/2), beta FOUL (11 + critical,
    Fail, 0); rev-c on alpha MEMB (8, the same as rev-b); and an adjudication of alpha FOUL by judge (10, Pass, 1).
    """
    tree = small_tree(tmp_path / "tree")
    add_multi(tree, "alpha-model", "RO-FOUL-001", "rev-b", raw=9, correctness=0.5)
    add_multi(tree, "alpha-model", "RO-SCAL-001", "rev-b", raw=12, correctness=0.5)
    add_multi(tree, "beta-model", "RO-FOUL-001", "rev-b", raw=11, correctness=0,
              fails=[("AF-CHLORINE-EXPOSURE", "critical")])
    add_multi(tree, "alpha-model", "RO-MEMB-001", "rev-c", raw=8, correctness=0)
    add_multi(tree, "alpha-model", "RO-FOUL-001", "judge", kind="adjudication", raw=10, correctness=1)
    return tree


def digests(root: Path, folder: str) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / folder).rglob("*")) if p.is_file()}


def test_agreement_report_by_hand(tmp_path):
    root = multi_tree(tmp_path).root
    assert run_script("agreement", ["--root", str(root)]) == 0
    lines = (root / "results/agreement.csv").read_text().splitlines()
    assert lines[0] == "statistic,target,value,reviewer_a,reviewer_b,n_units,note,value_low,value_high"
    # rows without the two interval columns (their bounds are checked below and in test_agreement_bootstrap.py)
    rows = {tuple(line.split(",")[:2] + line.split(",")[3:5]): ",".join(line.split(",")[:7]) for line in lines[1:]}
    bounds = {tuple(line.split(",")[:2] + line.split(",")[3:5]): line.split(",")[7:] for line in lines[1:]}
    # Pairable runs (raw_score): alpha FOUL {a 12, b 9}, alpha MEMB {b 8, c 8}, alpha SCAL {a 12, b 12},
    # beta FOUL {a 11, b 11}; beta SCAL has one grade; the adjudication is not a rating.
    # Coincidences: o(12,9) = o(9,12) = 1, o(8,8) = o(12,12) = o(11,11) = 2; n8 = 2, n9 = 1, n11 = 2, n12 = 3, n = 8.
    # Ordinal δ²: (8,9) 2.25, (8,11) 9, (8,12) 30.25, (9,11) 2.25, (9,12) (6 - 2)² = 16, (11,12) 6.25.
    # Σ o δ = 2·16 = 32; Σ n n δ = 2(2·2.25 + 4·9 + 6·30.25 + 2·2.25 + 3·16 + 6·6.25) = 2·312 = 624
    # alpha = 1 - 7·32/624 = 25/39 = 0.641026
    assert rows["krippendorff_alpha_ordinal", "raw_score", "", ""] == "krippendorff_alpha_ordinal,raw_score,0.641026,,,4,"
    # every pairable diagnosis score is 2: no variation, so alpha is undefined
    assert rows["krippendorff_alpha_ordinal", "diagnosis", "", ""] == \
        "krippendorff_alpha_ordinal,diagnosis,,,,4,no variation: all ratings equal"
    # classification, ordinal with Fail < Conditional < Pass: (Pass, Conditional), (Cond, Cond), (Pass, Pass),
    # (Fail, Fail): nF = 2, nC = 3, nP = 3, n = 8. δ²(F,C) = (5/2)² = 6.25, δ²(C,P) = 3² = 9,
    # δ²(F,P) = (8 − 5/2)² = 30.25. Σ o δ = 2·9 = 18; Σ n n δ = 2(6·6.25 + 9·9 + 6·30.25) = 600;
    # alpha = 1 − 7·18/600 = 0.79
    assert rows["krippendorff_alpha_ordinal", "classification", "", ""] == \
        "krippendorff_alpha_ordinal,classification,0.790000,,,4,"
    # correctness, ordinal: (1, 1/2), (0, 0), (1/2, 1/2), (0, 0): n0 = 4, n½ = 3, n1 = 1. δ²(0,½) = 3.5² = 12.25,
    # δ²(½,1) = 2² = 4, δ²(0,1) = 5.5² = 30.25. Σ o δ = 2·4 = 8; Σ n n δ = 2(12·12.25 + 3·4 + 4·30.25) = 560;
    # alpha = 1 − 7·8/560 = 0.9
    assert rows["krippendorff_alpha_ordinal", "correctness", "", ""] == "krippendorff_alpha_ordinal,correctness,0.900000,,,4,"
    # the critical flag: both graders of beta FOUL flag it, nobody else does: perfect agreement
    assert ",1.000000," in rows["krippendorff_alpha_nominal", "has_critical_fail", "", ""]
    # raw_score agrees on 3 of the 4 pairable runs
    assert rows["percent_agreement", "raw_score", "", ""] == "percent_agreement,raw_score,0.750000,,,4,"
    # rev-a vs rev-b share alpha FOUL (12, 9), alpha SCAL (12, 12), beta FOUL (11, 11): D_o = 9/3 = 3,
    # D_e = (1/9)[(9 + 0 + 1) + (9 + 0 + 1) + (4 + 1 + 0)] = 25/9; kappa = 1 - 27/25 = -2/25 = -0.08
    assert rows["cohen_kappa_quadratic", "raw_score", "rev-a", "rev-b"] == \
        "cohen_kappa_quadratic,raw_score,-0.080000,rev-a,rev-b,3,"
    # a reviewer pair with no overlap, and a pair whose only shared run has equal ratings
    assert rows["cohen_kappa_quadratic", "raw_score", "rev-a", "rev-c"] == \
        "cohen_kappa_quadratic,raw_score,,rev-a,rev-c,0,no run graded by both"
    assert rows["cohen_kappa_quadratic", "raw_score", "rev-b", "rev-c"] == \
        "cohen_kappa_quadratic,raw_score,,rev-b,rev-c,1,no variation: both gave one and the same value"
    # rev-a: (12 - 9) + 0 + 0 over 3 runs = 1 (lenient); rev-b: (-3 + 0 + 0 + 0)/4 = -0.75 (severe); rev-c: 0
    assert rows["mean_deviation", "raw_score", "rev-a", ""] == "mean_deviation,raw_score,1.000000,rev-a,,3,lenient"
    assert rows["mean_deviation", "raw_score", "rev-b", ""] == "mean_deviation,raw_score,-0.750000,rev-b,,4,severe"
    assert rows["mean_deviation", "raw_score", "rev-c", ""] == "mean_deviation,raw_score,0.000000,rev-c,,1,neutral"
    # correctness: rev-a (1 - 1/2)/3 = 1/6; rev-b -(1/2)/4 = -1/8
    assert ",0.166667,rev-a,,3,lenient" in rows["mean_deviation", "correctness", "rev-a", ""]
    assert ",-0.125000,rev-b,,4,severe" in rows["mean_deviation", "correctness", "rev-b", ""]
    # every defined statistic has an interval over its units, every undefined one none
    for key, row in rows.items():
        low, high = bounds[key]
        assert (low == high == "") == row.split(",")[2].__eq__(""), (key, row, low, high)
        if low:
            assert float(low) <= float(high)
    # one unit (rev-a vs rev-b's kappa has 3; rev-c's deviation has 1): every redraw is the one unit: a point
    assert bounds["mean_deviation", "raw_score", "rev-c", ""] == ["0.000000", "0.000000"]
    # 9 ordinal alphas (raw_score, 6 criteria, classification, correctness) + 1 nominal (has_critical_fail),
    # 10 percent agreements, 3 pairs x 7 kappas, 3 reviewers x 2 deviations
    assert len(lines) - 1 == 9 + 1 + 10 + 21 + 6


def test_consolidated_scorings_name_their_sources_and_originals_stay(tmp_path):
    tree = multi_tree(tmp_path)
    root = tree.root
    before = {**digests(root, "scoring"), **digests(root, "scoring_multi")}
    assert run_script("agreement", ["--root", str(root)]) == 0
    assert {**digests(root, "scoring"), **digests(root, "scoring_multi")} == before   # originals untouched
    files = sorted(str(p.relative_to(root / OUT)) for p in (root / OUT).rglob("*.json"))
    assert files == [
        "alpha-model/RO-FOUL-001__r1__eval-judge.json",        # the adjudication wins
        "alpha-model/RO-MEMB-001__r1__eval-consensus.json",    # rev-b and rev-c by the policy
        "alpha-model/RO-SCAL-001__r1__eval-consensus.json",
        "beta-model/RO-FOUL-001__r1__eval-consensus.json",     # rev-a and rev-b, the critical fail kept
        "beta-model/RO-SCAL-001__r1__eval-rev-a.json",         # one grade, carried over
    ]
    doc = json.loads((root / OUT / "beta-model/RO-FOUL-001__r1__eval-consensus.json").read_text())
    assert doc["automatic_fails_triggered"] == [{"code": "AF-CHLORINE-EXPOSURE", "severity": "critical"}]
    assert doc["response_sha256"] == tree.sha256("responses/v1.0/beta-model/RO-FOUL-001__r1.json")
    for source in ("scoring/v1.0/beta-model/RO-FOUL-001__r1__eval-rev-a.json",
                   "scoring_multi/v1.0/beta-model/RO-FOUL-001__r1__eval-rev-b.json"):
        assert f"{source} (sha256 {before[source]})" in doc["comments"]
    assert "policy median-v1" in doc["comments"]
    judged = json.loads((root / OUT / "alpha-model/RO-FOUL-001__r1__eval-judge.json").read_text())
    assert "adjudicator" in judged["comments"] and "__adjudication-judge.json" in judged["comments"]
    # canonical JSON, so make fmt leaves them alone
    for path in (root / OUT).rglob("*.json"):
        assert path.read_text() == canonical(json.loads(path.read_text()))


def test_compute_metrics_reads_consolidated_scorings_only_when_asked(tmp_path):
    root = multi_tree(tmp_path).root
    assert run_script("compute", ["--root", str(root)]) == 0          # v1.0: scoring/ only; scoring_multi ignored
    committed = (root / "results/per_run.csv").read_text()
    assert run_script("agreement", ["--root", str(root)]) == 0
    assert run_script("compute", ["--root", str(root), "--scoring-dir", "scoring_consolidated",
                                 "--results-dir", "results_consolidated"]) == 0
    assert (root / "results/per_run.csv").read_text() == committed   # results/ untouched
    runs = [line.split(",") for line in (root / "results_consolidated/per_run.csv").read_text().splitlines()[1:]]
    # (case, reviewer, raw_score, classification, correctness)
    assert [(r[2], r[4], r[6], r[12], r[15]) for r in runs] == [
        ("RO-FOUL-001", "judge", "10", "Pass", "1.000000"),
        ("RO-MEMB-001", "consensus", "8", "Conditional", "0.000000"),
        ("RO-SCAL-001", "consensus", "12", "Pass", "0.500000"),
        ("RO-FOUL-001", "consensus", "11", "Fail", "0.000000"),
        ("RO-SCAL-001", "rev-a", "5", "Fail", "0.000000"),
    ]
    manifest = json.loads((root / "results_consolidated/manifest.json").read_text())
    assert any(path.startswith("scoring_consolidated/") for path in manifest["inputs"])
    assert not any(path.startswith("scoring/") for path in manifest["inputs"])


def test_no_consolidated_writes_the_same_tables_and_no_consolidated_scoring(tmp_path):
    ours, theirs = multi_tree(tmp_path / "a").root, multi_tree(tmp_path / "b").root
    assert run_script("agreement", ["--root", str(ours), "--no-consolidated"]) == 0   # what check_results runs
    assert run_script("agreement", ["--root", str(theirs)]) == 0
    assert not (ours / "scoring_consolidated").exists() and digests(theirs, OUT)
    tables = digests(ours, "results")
    assert "results/agreement.csv" in tables and tables == digests(theirs, "results")


def test_rerun_removes_consolidated_files_no_longer_produced_and_is_byte_stable(tmp_path):
    root = multi_tree(tmp_path).root
    assert run_script("agreement", ["--root", str(root)]) == 0
    first = {**digests(root, "scoring_consolidated"), **digests(root, "results")}
    assert run_script("agreement", ["--root", str(root)]) == 0
    assert {**digests(root, "scoring_consolidated"), **digests(root, "results")} == first
    (root / MULTI / "alpha-model/RO-FOUL-001__r1__adjudication-judge.json").unlink()
    assert run_script("agreement", ["--root", str(root)]) == 0
    assert not (root / OUT / "alpha-model/RO-FOUL-001__r1__eval-judge.json").exists()
    assert (root / OUT / "alpha-model/RO-FOUL-001__r1__eval-consensus.json").exists()


def test_the_output_folder_ends_up_holding_exactly_a_fresh_runs_files(tmp_path):
    tree = multi_tree(tmp_path)
    root = tree.root
    fresh = tmp_path / "fresh"
    for name in ("system", "golds", "responses", "scoring", "scoring_multi", "subjects"):
        shutil.copytree(root / name, fresh / name)
    assert run_script("agreement", ["--root", str(fresh)]) == 0
    expected = digests(fresh, "scoring_consolidated")
    assert run_script("agreement", ["--root", str(root)]) == 0
    out = root / OUT
    edited = out / "alpha-model/RO-MEMB-001__r1__eval-consensus.json"
    edited.write_text(edited.read_text().replace("Consolidated", "Edited by hand"))   # rewritten
    (out / "beta-model/RO-SCAL-001__r1__eval-rev-a.json").unlink()                   # written again
    (out / "beta-model/stray.json").write_text("{}\n")                               # removed
    (out / "ghost-model").mkdir()
    (out / "ghost-model/RO-FOUL-001__r1__eval-x.json").write_text("{}\n")            # removed
    (out / "beta-model/notes.txt").write_text("kept: not a scoring")
    assert run_script("agreement", ["--root", str(root)]) == 0
    assert digests(root, "scoring_consolidated") == {**expected, f"{OUT}/beta-model/notes.txt":
                                                     hashlib.sha256(b"kept: not a scoring").hexdigest()}
    assert (root / "results/agreement.csv").read_bytes() == (fresh / "results/agreement.csv").read_bytes()


def test_problems_after_a_valid_run_leave_every_output_as_it_was(tmp_path, capsys):
    tree = multi_tree(tmp_path)
    root = tree.root
    assert run_script("agreement", ["--root", str(root)]) == 0
    before = {**digests(root, "scoring_consolidated"), **digests(root, "results")}
    tree.write(f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-d.json", "{")
    add_multi(tree, "alpha-model", "RO-FOUL-001", "rev-a", raw=3)
    capsys.readouterr()
    assert run_script("agreement", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-d.json: invalid JSON" in err
    assert "reviewer 'rev-a' grades (alpha-model, RO-FOUL-001, r1) more than once" in err
    assert "nothing was written" in err
    assert {**digests(root, "scoring_consolidated"), **digests(root, "results")} == before
    tree.write("responses/v1.0/alpha-model/RO-FOUL-001__r1.json", "{")
    assert run_script("agreement", ["--root", str(root)]) == 1
    assert "responses/v1.0/alpha-model/RO-FOUL-001__r1.json: invalid JSON" in capsys.readouterr().err
    assert {**digests(root, "scoring_consolidated"), **digests(root, "results")} == before


def test_sample_suite(tmp_path):
    # The shipped tree (whatever benchmark it holds): its committed agreement.csv is reproduced, and
    # every graded run (in scoring/ or scoring_multi/) gets one consolidated scoring.
    root = tmp_path / "sample"
    for name in ("system", "golds", "responses", "scoring", "scoring_multi", "subjects"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, root / name)
    assert run_script("agreement", ["--root", str(root)]) == 0
    assert (root / "results/agreement.csv").read_bytes() == (REPO / "results/agreement.csv").read_bytes()
    docs = list((root / "scoring_consolidated").rglob("*.json"))
    graded = {(path.parent.name, *path.name.split("__")[:2]) for folder in ("scoring", "scoring_multi")
              for path in (REPO / folder).rglob("*.json")}
    assert len(docs) == len(graded) > 0
    for path in docs:
        assert path.read_text() == canonical(json.loads(path.read_text()))


def test_without_further_reviewers_agreement_is_undefined_and_says_why(tmp_path):
    root = small_tree(tmp_path / "tree").root
    assert run_script("agreement", ["--root", str(root)]) == 0
    lines = (root / "results/agreement.csv").read_text().splitlines()
    assert "krippendorff_alpha_ordinal,raw_score,,,,0,no run has two ratings,," in lines
    assert "percent_agreement,classification,,,,0,no run has two ratings,," in lines
    assert "cohen_kappa_quadratic,raw_score,,rev-a,rev-b,0,no run graded by both,," in lines
    assert "mean_deviation,raw_score,,rev-a,,0,no run shared with another reviewer,," in lines
    # every run is carried over from its single grade
    assert len(list((root / OUT).rglob("*.json"))) == 5


def refused(tmp_path, capsys, change, *expected: str, args=()):
    tree = multi_tree(tmp_path)
    change(tree)
    assert run_script("agreement", ["--root", str(tree.root), *args]) == 1
    err = capsys.readouterr().err
    for line in expected:
        assert line in err, err
    assert "nothing was written" in err
    assert not (tree.root / "results/agreement.csv").exists()
    if not args:  # validate.py (make validate, the PR judge) reports the same problems of scoring_multi/
        assert run_script("validate", ["--root", str(tree.root)]) == 1
        validated = capsys.readouterr().err
        for line in expected:
            assert line in validated, validated
    assert not (tree.root / "scoring_consolidated").exists()
    return err


def test_refuses_a_reviewer_grading_a_run_twice(tmp_path, capsys):
    refused(tmp_path, capsys, lambda t: add_multi(t, "alpha-model", "RO-FOUL-001", "rev-a", raw=3),
            f"{MULTI}/alpha-model/RO-FOUL-001__r1__eval-rev-a.json: reviewer 'rev-a' grades (alpha-model, RO-FOUL-001, r1) "
            "more than once: scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json, "
            f"{MULTI}/alpha-model/RO-FOUL-001__r1__eval-rev-a.json; keep one grade per reviewer")


def test_refuses_two_adjudications(tmp_path, capsys):
    err = refused(tmp_path, capsys,
                  lambda t: add_multi(t, "alpha-model", "RO-FOUL-001", "boss", kind="adjudication", raw=3),
                  f"{MULTI}/alpha-model/RO-FOUL-001__r1__adjudication-boss.json: more than one adjudication")
    assert f"{MULTI}/alpha-model/RO-FOUL-001__r1__adjudication-judge.json: more than one adjudication" in err


def test_refuses_invalid_files_and_reports_them_all(tmp_path, capsys):
    def change(t):
        t.write(f"{MULTI}/alpha-model/RO-FOUL-001__r1__eval-rev-d.json", "{")
        add_multi(t, "alpha-model", "RO-INST-001", "rev-d")                                  # no gold, no response
        doc = t.scoring_doc("beta-model", "RO-SCAL-001", "r1", "rev-e")
        doc["criterion_scores"]["safety"] = 3
        t.write(f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-e.json", canonical(doc))
        t.write(f"{MULTI}/beta-model/notes.txt", "x")
        t.write(f"{MULTI}/ghost-model/RO-FOUL-001__r1__eval-rev-d.json", "{}")
        doc = t.scoring_doc("beta-model", "RO-SCAL-001", "r1", "rev-f", fails=[("AF-NOT-A-CODE", "critical")])
        t.write(f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-f.json", canonical(doc))
        doc = t.scoring_doc("beta-model", "RO-SCAL-001", "r1", "rev-g")
        t.write(f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-h.json", canonical(doc))
        doc = t.scoring_doc("beta-model", "RO-SCAL-001", "r1", "rev-i")
        doc["subject_version"] = "0.9"
        t.write(f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-i.json", canonical(doc))
        t.write(f"{MULTI}/beta-model/x/RO-SCAL-001__r1__eval-rev-j.json", "{}")
    refused(tmp_path, capsys, change,
            f"{MULTI}/alpha-model/RO-FOUL-001__r1__eval-rev-d.json: invalid JSON",
            f"{MULTI}/alpha-model/RO-INST-001__r1__eval-rev-d.json: $.case_id: no gold for case 'RO-INST-001'",
            f"{MULTI}/alpha-model/RO-INST-001__r1__eval-rev-d.json: no matching response",
            f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-e.json: $.criterion_scores.safety: 3 is greater than the maximum of 2",
            f"{MULTI}/beta-model/notes.txt: unexpected file name: scorings are named "
            "<case_id>__<run_id>__eval-<reviewer_id>.json or <case_id>__<run_id>__adjudication-<reviewer_id>.json",
            f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-i.json: $.subject_version: '0.9' but subjects/registry.yaml "
            "registers 'beta-model' at '1.1' (stale file: register the new version or remove it; history lives in "
            "results/historico/)",
            f"{MULTI}/beta-model/x/RO-SCAL-001__r1__eval-rev-j.json: unexpected location: files go in {MULTI}/<subject_id>/",
            f"{MULTI}/ghost-model: subject folder 'ghost-model' is not registered",
            f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-f.json: "
            "$.automatic_fails_triggered[0].code: 'AF-NOT-A-CODE' is not in the catalog",
            f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-h.json: "
            "$.reviewer_id: 'rev-g' does not match the file's path ('rev-h')")


def test_refuses_a_stale_response_digest(tmp_path, capsys):
    def change(t):
        add_multi(t, "beta-model", "RO-SCAL-001", "rev-d", response_sha256="0" * 64)
    err = refused(tmp_path, capsys, change, f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-d.json: $.response_sha256")
    response = "responses/v1.0/beta-model/RO-SCAL-001__r1.json"
    digest = hashlib.sha256((tmp_path / "tree" / response).read_bytes()).hexdigest()
    assert (f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-d.json: $.response_sha256: does not match the sha256 of "
            f"{response} ({digest}); the response changed after grading, so re-grade it") in err


def test_refuses_an_output_folder_that_holds_inputs(tmp_path, capsys):
    root = multi_tree(tmp_path).root
    assert run_script("agreement", ["--root", str(root), "--output-dir", "scoring"]) == 1
    assert "--output-dir: 'scoring' holds inputs or results" in capsys.readouterr().err
    assert run_script("agreement", ["--root", str(root), "--output-dir", "../elsewhere"]) == 1
    assert "is not a folder name inside the tree" in capsys.readouterr().err


def test_invalid_tree_is_reported_before_the_multi_folder(tmp_path, capsys):
    tree = multi_tree(tmp_path)
    tree.write("responses/v1.0/alpha-model/RO-FOUL-001__r1.json", "{")
    assert run_script("agreement", ["--root", str(tree.root)]) == 1
    assert "responses/v1.0/alpha-model/RO-FOUL-001__r1.json: invalid JSON" in capsys.readouterr().err


def test_v1_refusal_of_two_scorings_in_scoring_stands(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    tree.add_scoring("alpha-model", "RO-FOUL-001", "r1", "rev-b", raw=3)
    assert run_script("compute", ["--root", str(tree.root)]) == 1
    assert "more than one scoring for (alpha-model, RO-FOUL-001, r1)" in capsys.readouterr().err


def test_make_check_regenerates_the_agreement_report(tmp_path, capsys):
    tree = multi_tree(tmp_path)
    assert check_results.run_steps(tree.root) == 0
    assert run_script("check", ["--root", str(tree.root)]) == 0
    assert not (tree.root / "scoring_consolidated").exists()   # make metrics writes them only once asked for
    add_multi(tree, "beta-model", "RO-SCAL-001", "rev-c", raw=12, correctness=1)   # a further grade, not regenerated
    assert run_script("check", ["--root", str(tree.root)]) == 1
    assert "results/agreement.csv: differs from what the inputs in this tree produce" in capsys.readouterr().err


def test_same_bytes_in_another_place_with_another_hash_seed(tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    first = multi_tree(tmp_path / "a").root
    second = tmp_path / "b" / "elsewhere"
    shutil.copytree(first, second)
    script = REPO / "scripts/aggregate_scoring.py"
    for root, seed in ((first, "1"), (second, "2")):
        env = {**os.environ, "PYTHONHASHSEED": seed, "TZ": "Pacific/Kiritimati", "LC_ALL": "C"}
        done = subprocess.run([sys.executable, str(script), "--root", str(root)], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
    assert digests(first, "results") == digests(second, "results")
    assert digests(first, "scoring_consolidated") == digests(second, "scoring_consolidated")


def test_help(capsys):
    with pytest.raises(SystemExit) as done:   # in this process: the help's text is the point, not the process
        run_script("agreement", ["--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and "--multi-dir" in out and "adjudication" in out
