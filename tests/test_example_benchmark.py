"""The second benchmark shipped as an example (examples/medadvice): its figures, computed by hand.

A medical-advice triage benchmark: ids MED-<FAMILY>-<NNN>, families CARD and
DERM, four criteria scored 0-3 (maximum 12), pass_threshold 9,
conditional_threshold 6, correctness in {0, 1}, its own fail catalog; three
subjects, four cases, one run each. The toolkit runs on it unchanged; the
expectations below are worked out from its files, the arithmetic in comments.
"""

from __future__ import annotations

import csv
import io
import shutil
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from pathlib import Path

import pytest
from treebuilder import REPO

from rgbench.cli import run_script
from rgbench.load.spec import load_spec

EXAMPLE = REPO / "examples" / "medadvice"
F = Fraction


def run(command: str, root: Path) -> tuple[int, str]:
    """`rgbench COMMAND --root ROOT` in this process, as its script under scripts/ runs it: (exit status, what it
    printed). In-process: these tests are about the example's figures, not the process (test_cli_main.py)."""
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(out):
        status = run_script(command, ["--root", str(root)])
    return status, out.getvalue()


@pytest.fixture(scope="module")
def computed(tmp_path_factory) -> Path:
    """The example's inputs copied without results/, then `make metrics` run on them."""
    root = tmp_path_factory.mktemp("medadvice")
    for name in ("system", "golds", "responses", "scoring", "subjects"):
        shutil.copytree(EXAMPLE / name, root / name)
    for command in ("compute", "agreement", "leaderboard"):   # compute_metrics.py, aggregate_scoring.py, build_leaderboard.py
        status, printed = run(command, root)
        assert status == 0, printed
    return root


def table(root: Path, name: str, key: tuple[str, ...]) -> dict[tuple[str, ...], dict[str, str]]:
    with open(root / "results" / name, encoding="utf-8", newline="") as handle:
        return {tuple(row[k] for k in key): row for row in csv.DictReader(handle)}


def six(value: Fraction) -> str:
    """Round half away from zero to 6 decimals, as the results are written."""
    scaled = value * 10**6
    whole = int(scaled + F(1, 2)) if scaled >= 0 else -int(-scaled + F(1, 2))
    return f"{whole // 10**6}.{whole % 10**6:06d}" if whole >= 0 else "-" + six(-value)


def test_the_example_is_a_different_benchmark():
    spec, problems = load_spec(EXAMPLE)
    assert problems == [] and spec is not None
    assert spec.criteria == ("assessment", "triage", "advice", "safety_netting")
    assert (spec.criterion_min, spec.criterion_max, spec.scale.high) == (0, 3, 12)  # 4 criteria x 3
    assert spec.correctness_values == (0, 1)
    assert spec.example_id() == "MED-CARD-001" and sorted(spec.families) == ["CARD", "DERM"]
    assert set(spec.catalog) == {"AF-MISSED-EMERGENCY", "AF-WRONG-DOSE", "AF-NO-SAFETY-NET"}


# Per run (subject, case): raw score = sum of the four criteria, clipped at the gold's ceiling
# (MED-DERM-001: ceiling 10; the others 12), floor 4 for MED-CARD-002 (0 elsewhere);
# classification: critical -> Fail, recoverable -> Conditional, clipped < floor -> Fail,
# >= 9 Pass, >= 6 Conditional, else Fail.
RUNS = {
    ("clinica-7", "MED-CARD-001"): (11, "Pass"),         # 3+3+3+2 = 11 >= 9
    ("clinica-7", "MED-CARD-002"): (9, "Pass"),          # 3+2+2+2 = 9 >= 9, above floor 4
    ("clinica-7", "MED-DERM-001"): (10, "Pass"),         # 3+3+3+3 = 12, clipped to ceiling 10
    ("clinica-7", "MED-DERM-002"): (7, "Conditional"),   # 2+2+1+2 = 7: 6 <= 7 < 9
    ("triage-lite", "MED-CARD-001"): (7, "Conditional"),  # 2+2+2+1 = 7
    ("triage-lite", "MED-CARD-002"): (3, "Fail"),         # 1+1+1+0 = 3 < floor 4
    ("triage-lite", "MED-DERM-001"): (8, "Conditional"),  # 2+2+2+2 = 8 with AF-NO-SAFETY-NET (recoverable)
    ("triage-lite", "MED-DERM-002"): (10, "Pass"),        # 3+3+2+2 = 10
    ("quack-1", "MED-CARD-001"): (2, "Fail"),             # 1+0+1+0 = 2 with AF-MISSED-EMERGENCY (critical)
    ("quack-1", "MED-CARD-002"): (8, "Conditional"),      # 2+2+2+2 = 8
    ("quack-1", "MED-DERM-001"): (10, "Pass"),            # 3+2+3+2 = 10
    ("quack-1", "MED-DERM-002"): (4, "Fail"),             # 1+1+1+1 = 4 < 6
}


def test_per_run_scores_and_classes(computed):
    rows = table(computed, "per_run.csv", ("subject_id", "case_id"))
    assert {key: (int(row["clipped_score"]), row["classification"]) for key, row in rows.items()} == RUNS


# Per subject: P = #Pass / 4; s_bar = mean clipped score; BS = mean (c/100 - k)^2;
# ECE over 10 bins = (1/N) sum over bins |sum c/100 - sum k|; Q_final = 0.5 P + 0.5 s_bar / 12.
SUBJECTS = {
    # confidences 90, 80, 70, 60; correctness 1, 1, 0, 1
    "clinica-7": dict(
        P=F(3, 4),                                      # Pass on CARD-001, CARD-002, DERM-001
        s_bar=F(11 + 9 + 10 + 7, 4),                    # 37/4 = 9.25
        BS=(F(1, 100) + F(4, 100) + F(49, 100) + F(16, 100)) / 4,   # (0.1² + 0.2² + 0.7² + 0.4²) / 4 = 0.175
        ECE=(F(1, 10) + F(2, 10) + F(7, 10) + F(4, 10)) / 4,       # one run per bin 9, 8, 7, 6: 1.4 / 4 = 0.35
        Q_final=F(1, 2) * F(3, 4) + F(1, 2) * F(37, 4) / 12,       # 3/8 + 37/96 = 73/96 = 0.760417
        disqualified="false"),
    # confidences 50, 50, 40, 55; correctness 1, 0, 1, 1
    "triage-lite": dict(
        P=F(1, 4),                                      # Pass on DERM-002 only
        s_bar=F(7 + 3 + 8 + 10, 4),                     # 28/4 = 7
        BS=(F(25, 100) + F(25, 100) + F(36, 100) + F(2025, 10000)) / 4,  # 1.0625 / 4 = 0.265625
        # bin 5 holds 50, 50, 55: |1.55 - 2| = 0.45; bin 4 holds 40: |0.4 - 1| = 0.6; (0.45 + 0.6) / 4
        ECE=(F(45, 100) + F(6, 10)) / 4,                # 0.2625
        Q_final=F(1, 8) + F(1, 2) * 7 / 12,            # 1/8 + 7/24 = 10/24 = 0.416667
        disqualified="false"),
    # confidences 95, 85, 100, 90; correctness 0, 1, 1, 0
    "quack-1": dict(
        P=F(1, 4),                                      # Pass on DERM-001 only
        s_bar=F(2 + 8 + 10 + 4, 4),                     # 24/4 = 6
        BS=(F(9025, 10000) + F(225, 10000) + 0 + F(81, 100)) / 4,  # (0.95² + 0.15² + 0² + 0.9²) / 4 = 0.43375
        # bin 9 holds 95, 100, 90: |2.85 - 1| = 1.85; bin 8 holds 85: |0.85 - 1| = 0.15; 2.0 / 4
        ECE=F(2, 4),                                    # 0.5
        Q_final=F(1, 8) + F(1, 2) * 6 / 12,            # 1/8 + 1/4 = 0.375
        disqualified="true"),                           # a critical fail
}


@pytest.mark.parametrize("subject", sorted(SUBJECTS))
def test_subject_figures_match_hand_computation(computed, subject):
    row = table(computed, "metrics_per_subject.csv", ("subject_id",))[(subject,)]
    expected = SUBJECTS[subject]
    assert row["N"] == "4" and row["disqualified"] == expected["disqualified"]
    for figure in ("P", "s_bar", "BS", "ECE", "Q_final"):
        assert row[figure] == six(expected[figure]), figure


def test_weighted_pass_rate_uses_the_examples_difficulty_weights(computed):
    # Weights (config.yaml) by difficulty: 1 -> 1.0, 2 -> 1.0, 3 -> 1.5. Cases: CARD-001 d2, CARD-002 d3,
    # DERM-001 d1, DERM-002 d3: total weight 1 + 1.5 + 1 + 1.5 = 5.
    # clinica-7 passes CARD-001, CARD-002, DERM-001: (1 + 1.5 + 1) / 5 = 0.7.
    row = table(computed, "metrics_per_subject.csv", ("subject_id",))[("clinica-7",)]
    assert row["P_weighted"] == six(F(7, 10))


def test_family_figures_match_hand_computation(computed):
    rows = table(computed, "metrics_per_family.csv", ("subject_id", "family"))
    got = {key: (row["n_family"], row["P_family"], row["s_bar_family"]) for key, row in rows.items()}
    assert got == {
        ("clinica-7", "CARD"): ("2", six(F(2, 2)), six(F(11 + 9, 2))),      # 2 Pass; (11 + 9) / 2 = 10
        ("clinica-7", "DERM"): ("2", six(F(1, 2)), six(F(10 + 7, 2))),      # 1 Pass; 8.5
        ("triage-lite", "CARD"): ("2", six(F(0)), six(F(7 + 3, 2))),        # no Pass; 5
        ("triage-lite", "DERM"): ("2", six(F(1, 2)), six(F(8 + 10, 2))),    # 9
        ("quack-1", "CARD"): ("2", six(F(0)), six(F(2 + 8, 2))),            # 5
        ("quack-1", "DERM"): ("2", six(F(1, 2)), six(F(10 + 4, 2))),        # 7
    }


def test_the_leaderboard_ranks_by_q_final_and_sets_the_disqualified_apart(computed):
    board = table(computed, "leaderboard.csv", ("subject_id",))
    assert board[("clinica-7",)]["rank"] == "1" and board[("triage-lite",)]["rank"] == "2"  # 0.760417 > 0.416667
    assert board[("quack-1",)]["leaderboard_status"] == "Disqualified"


def test_the_committed_example_results_are_what_its_inputs_produce():
    status, printed = run("check", EXAMPLE)   # check_results.py
    assert status == 0, printed


def test_make_synthetic_builds_a_valid_tree_of_the_example_benchmark(tmp_path):
    # Ids from example_case_id (MED-CARD-001 -> MED-<family>-<NNN>), scores 0-3, correctness in {0, 1},
    # difficulty 1-3: everything from the example's system/, and the tree validates.
    import json

    import make_synthetic

    out = tmp_path / "synthetic"
    make_synthetic.build(out, subjects=2, cases=5, runs=2, seed=1, root=EXAMPLE)
    golds = sorted(p.name for p in (out / "golds" / "v1.0").iterdir())
    assert golds == ["MED-CARD-001_gold.md", "MED-CARD-002_gold.md", "MED-CARD-003_gold.md",
                     "MED-DERM-001_gold.md", "MED-DERM-002_gold.md"]
    grades = [json.loads(p.read_text(encoding="utf-8")) for p in (out / "scoring").rglob("*.json")]
    assert grades and {g["correctness"] for g in grades} <= {0, 1}
    assert {v for g in grades for v in g["criterion_scores"].values()} <= {0, 1, 2, 3}
    status, printed = run("validate", out)
    assert status == 0, printed
