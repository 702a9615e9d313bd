"""Issue 23, end to end: what a benchmark does not record is declared once in system/, and the whole of
`make metrics` and `make check` runs on such a benchmark.

For each make_synthetic.py flag (--no-confidence, --no-correctness, --no-difficulty, --no-pass-rule, and all
four at once) a tiny tree (4 subjects x 8 cases x 2 runs, the library fixture's system/) goes through
scripts/metrics.py and scripts/check_results.py, both exiting 0; then the results are read: the figures that
need the absent field are empty (their CSV columns kept), the sections of the page and of the Markdown that
show them are gone, the page states the reason once, and every other point figure equals the one the same tree
gives with the field recorded (the same seed writes the same runs).
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from treebuilder import LIBRARY_ROOT, metrics_and_check, rows, synthetic

from rgbench.cli import run_script
from rgbench.load.loader import load_tree
from rgbench.load.spec import load_spec
from rgbench.numfmt import fmt_fixed
from rgbench.results.tables import compute_results

SHAPE = ("--subjects", "4", "--cases", "8", "--runs", "2", "--seed", "11")
ON_LIBRARY = (*SHAPE, "--root", str(LIBRARY_ROOT))   # the tree of the library fixture's system/
CONFIDENCE = "This benchmark records no model confidence, so BS, ECE and calibration are not computed."
CORRECTNESS = "This benchmark records no correctness, so BS, ECE and calibration are not computed."
BOTH = "This benchmark records no model confidence and no correctness, so BS, ECE and calibration are not computed."
DIFFICULTY = "This benchmark records no case difficulty, so there are no figures by difficulty"
PASS_RULE = "This benchmark declares no pass rule (no pass_threshold), so runs are not classified"
TAGS = "No case carries a tag, so there is no breakdown by tag."


def header_only(root: Path, name: str) -> bool:
    text = (root / "results" / name).read_text(encoding="utf-8")
    return text.count("\n") == 1 and text.endswith("\n")


def page(root: Path) -> tuple[str, str]:
    """(leaderboard.html without its inline script and data, leaderboard.md)."""
    html = (root / "results/leaderboard.html").read_text(encoding="utf-8")
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    return html, (root / "results/leaderboard.md").read_text(encoding="utf-8")


def once(text: str, sentence: str) -> None:
    assert text.count(sentence) == 1, (sentence, text.count(sentence))


def without(text: str, sentence: str) -> str:
    """``text`` without the paragraph that starts with ``sentence`` (the reasons name the absent figures)."""
    start = text.index(sentence)
    return text[:start] + text[text.index("</p>", start):]


def table_head(markdown: str) -> list[str]:
    line = next(line for line in markdown.splitlines() if line.startswith("| Rank |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, dict[str, str]]:
    """metrics_per_subject's point figures of the same tree with every field recorded (computed, not written)."""
    root = tmp_path_factory.mktemp("recorded") / "tree"
    synthetic(root, *ON_LIBRARY)
    spec, _ = load_spec(root)
    assert spec is not None
    tree, problems = load_tree(root, spec)
    assert tree is not None, problems
    results = compute_results(tree, spec)
    return {m.subject_id: {"N": str(m.n), "P": m.p, "s_bar": m.s_bar, "BS": m.bs, "Q_final": m.q_final}
            for m in results.subjects}


def same_point_figures(root: Path, recorded: dict, figures: tuple[str, ...]) -> None:
    for row in rows(root / "results" / "metrics_per_subject.csv"):
        want = recorded[row["subject_id"]]
        for figure in figures:
            expected = want[figure]
            assert row[figure] == (expected if isinstance(expected, str) else fmt_fixed(expected)), figure


def test_no_confidence(tmp_path, capsys, recorded):
    root = synthetic(tmp_path / "tree", *ON_LIBRARY, "--no-confidence")
    spec, _ = load_spec(root)
    assert spec is not None and not spec.has_confidence and spec.has_correctness and spec.has_pass_rule
    metrics_and_check(root, capsys)
    assert header_only(root, "calibration_bins.csv")
    for row in rows(root / "results" / "metrics_per_subject.csv"):
        for column in ("BS", "ECE", "BS_low", "BS_high", "ECE_low", "ECE_high", "BS_reliability", "BS_resolution",
                       "BS_uncertainty", "BS_within_bin",
                       "BS_reliability_corrected", "BS_resolution_corrected", "BS_uncertainty_corrected"):
            assert row[column] == "", column
        assert row["P"] and row["Q_final"] and row["P_low"] and row["Q_final_low"]
    assert all(r["reported_confidence"] == r["confidence_unit"] == "" and r["correctness"]
               for r in rows(root / "results" / "per_run.csv"))
    assert all(r["BS"] == r["ECE"] == r["BS_reliability_label"] == "" for r in rows(root / "results" / "leaderboard.csv"))
    assert all(r["confidence"] == "" for r in rows(root / "results" / "explorer_runs.csv"))
    same_point_figures(root, recorded, ("N", "P", "s_bar", "Q_final"))   # nothing else changes
    html, md = page(root)
    once(html, CONFIDENCE)
    once(md, CONFIDENCE)
    assert 'id="calibration"' not in html and "Reliability diagram" not in html and "calibration-reading" not in html
    assert "BS" not in table_head(md) and "ECE" not in table_head(md) and "P" in table_head(md)
    assert ">BS<" not in html and ">ECE<" not in html and "for ECE" not in html
    assert "Calibration read against chance" not in md


def test_no_correctness(tmp_path, capsys, recorded):
    root = synthetic(tmp_path / "tree", *ON_LIBRARY, "--no-correctness")
    spec, _ = load_spec(root)
    assert spec is not None and not spec.has_correctness and spec.has_confidence
    metrics_and_check(root, capsys)
    assert header_only(root, "calibration_bins.csv")
    assert all(r["correctness"] == "" and r["reported_confidence"] for r in rows(root / "results" / "per_run.csv"))
    assert all(r["BS"] == r["ECE"] == "" for r in rows(root / "results" / "metrics_per_subject.csv"))
    assert all(r["correctness"] == "" for r in rows(root / "results" / "explorer_runs.csv"))
    assert not [r for r in rows(root / "results" / "agreement.csv") if r["target"] == "correctness"]
    assert not [r for r in rows(root / "results" / "reviewers.csv") if r["target"] == "correctness"]
    same_point_figures(root, recorded, ("N", "P", "s_bar", "Q_final"))
    html, md = page(root)
    once(html, CORRECTNESS)
    once(md, CORRECTNESS)
    assert 'id="calibration"' not in html and ">BS<" not in html and "BS" not in table_head(md)
    assert "correctness" not in html.replace(CORRECTNESS, "")   # the explorer's intro names no correctness either


def test_no_difficulty(tmp_path, capsys, recorded):
    root = synthetic(tmp_path / "tree", *ON_LIBRARY, "--no-difficulty")
    spec, _ = load_spec(root)
    assert spec is not None and not spec.has_difficulty and spec.has_pass_rule
    err = metrics_and_check(root, capsys)
    assert "difficulty" not in err   # no trend warning: there is no difficulty to test
    for name in ("metrics_per_difficulty.csv", "difficulty_trend.csv", "metrics_advanced.csv"):
        assert header_only(root, name), name
    assert all(r["P_weighted"] == "" for r in rows(root / "results" / "metrics_per_subject.csv"))
    assert all(r["difficulty"] == "" for r in rows(root / "results" / "cases.csv"))
    same_point_figures(root, recorded, ("N", "P", "s_bar", "BS", "Q_final"))
    html, md = page(root)
    once(html, DIFFICULTY)
    once(md, DIFFICULTY)
    for section in ('id="difficulty"', 'id="advanced"', 'id="explorer-difficulty"', "difficulty-reading",
                    "<h4>Difficulties</h4>"):
        assert section not in html, section
    assert 'id="calibration"' in html and 'id="pass-at-k"' in html   # the rest stays
    assert "Difficulty labels" not in md


def test_no_pass_rule(tmp_path, capsys, recorded):
    root = synthetic(tmp_path / "tree", *ON_LIBRARY, "--no-pass-rule")
    spec, _ = load_spec(root)
    assert spec is not None and not spec.has_pass_rule and spec.alpha == 0
    metrics_and_check(root, capsys)
    for name in ("alpha_sensitivity.csv", "pass_at_k.csv", "metrics_per_difficulty.csv", "difficulty_trend.csv"):
        assert header_only(root, name), name
    runs = rows(root / "results" / "per_run.csv")
    assert all(r["classification"] == "" for r in runs)
    scored = [r for r in rows(root / "results" / "metrics_per_subject.csv") if r["N"] != "0"]
    for row in scored:
        assert row["P"] == row["P_low"] == row["P_high"] == row["P_weighted"] == ""
        assert row["alpha"] == "0.000000"
        # Q_final is s_bar / max_score alone: the exact mean clipped score of the subject's runs over 12
        mine = [int(r["clipped_score"]) for r in runs if r["subject_id"] == row["subject_id"]]
        assert row["Q_final"] == fmt_fixed(Fraction(sum(mine), len(mine) * spec.scale.high))
        assert row["BS"]   # calibration does not need the pass rule
    assert all(r["P_family"] == r["P_family_low"] == "" and r["s_bar_family"]
               for r in rows(root / "results" / "metrics_per_family.csv"))
    assert all(r["p_diff"] == r["p_diff_low"] == r["p_mde"] == "" for r in rows(root / "results" / "pairwise.csv"))
    assert all(r["n_pass"] == r["P"] == "" for r in rows(root / "results" / "metrics_per_case_type.csv"))
    same_point_figures(root, recorded, ("N", "s_bar", "BS"))
    board = rows(root / "results" / "leaderboard.csv")
    ranked = [r for r in board if r["rank"]]
    assert [r["Q_final"] for r in ranked] == sorted((r["Q_final"] for r in ranked), reverse=True)  # ranked on it
    html, md = page(root)
    once(html, PASS_RULE)
    once(md, PASS_RULE)
    assert "P" not in table_head(md) and "Q_final" in table_head(md)
    assert "Q_final = s\u0304 / 12" in md and "alpha" not in md
    for section in ('id="pass-at-k"', 'id="difficulty"', 'id="explorer-outcome"', "Runs not passed", "Cost per Pass",
                    ">alpha<", "P_family", "for every alpha", "on alpha", "for any alpha", "swap at alpha"):
        assert section not in without(html, PASS_RULE), section


def test_everything_absent_at_once(tmp_path, capsys):
    root = synthetic(tmp_path / "tree", *ON_LIBRARY, "--no-confidence", "--no-correctness", "--no-difficulty", "--no-pass-rule")
    metrics_and_check(root, capsys)
    html, md = page(root)
    for sentence in (PASS_RULE, BOTH, DIFFICULTY, TAGS):
        once(html, sentence)
        once(md, sentence)
    assert table_head(md)[4:] == ["Q_final", "N"]   # the Markdown's figures: Q_final (here s̄ normalised) and P
    assert "s\u0304" in html and "BS" not in html.split('id="ranked-table"')[1].split("</table>")[0]
    assert "rows equal on Q_final and s\u0304 share a rank" in md


@pytest.mark.parametrize("correctness", [{"enum": [0, 0.25, 0.5, 0.75, 1]},
                                         {"type": "number", "minimum": 0, "maximum": 1}],
                         ids=["quarters", "range"])
def test_another_correctness_scale_keeps_working(tmp_path, capsys, correctness):
    """Correctness in quarters, or any number from 0 to 1 without an enum (make_synthetic.py then writes quarters):
    BS is the exact mean of (confidence / 100 - correctness)^2 over per_run.csv's cells."""
    import json
    import shutil

    shutil.copytree(LIBRARY_ROOT / "system", tmp_path / "root" / "system")
    schema_path = tmp_path / "root/system/schemas/v1.0/evaluation.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    schema["properties"]["correctness"] = correctness
    schema_path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    root = tmp_path / "tree"
    synthetic(root, *SHAPE, "--root", str(tmp_path / "root"))
    assert run_script("metrics", ["--root", str(root)]) == 0, capsys.readouterr().err
    runs = rows(root / "results" / "per_run.csv")
    assert {r["correctness"] for r in runs} <= {"0.000000", "0.250000", "0.500000", "0.750000", "1.000000"}
    assert {r["correctness"] for r in runs} & {"0.250000", "0.750000"}
    for row in rows(root / "results" / "metrics_per_subject.csv"):
        mine = [r for r in runs if r["subject_id"] == row["subject_id"]]
        bs = sum((Fraction(int(r["reported_confidence"]), 100) - Fraction(r["correctness"])) ** 2 for r in mine)
        assert row["BS"] == fmt_fixed(bs / len(mine)) and row["ECE"] and row["BS_low"]
