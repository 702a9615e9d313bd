"""Rank ranges and the alpha statement in leaderboard.csv, leaderboard.md and leaderboard.html.

Three sources of comparisons, each worked out by hand:

* hand-built pairwise rows laid over the fixture tests/fixtures/leaderboard/basic (whose own pairwise.csv
  establishes nothing: see test_leaderboard_build.py), rendered through the real writers;
* the fixture without pairwise.csv and alpha_sensitivity.csv (results older than the statistics);
* a small tree run through compute_metrics, where real differences are significant and the top depends on alpha.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import build_leaderboard
import compute_metrics
from treebuilder import LIBRARY_SYSTEM, MiniTree

from rgbench.leaderboard.board import build_board
from rgbench.leaderboard.inputs import load_inputs
from rgbench.stats.pairwise import PairwiseRow, mcnemar_exact_p

REPO = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "leaderboard" / "basic"
EVIL_MD = "\\<script\\>alert\\(1\\)\\</script\\>"
EVIL_HTML = "&lt;script&gt;alert(1)&lt;/script&gt;"


def make_tree(root: Path) -> Path:
    shutil.copytree(FIXTURE / "tree", root)
    shutil.copytree(LIBRARY_SYSTEM, root / "system")
    return root


def rows_of(data: bytes) -> dict[str, dict[str, str]]:
    return {r["subject_id"]: r for r in csv.DictReader(io.StringIO(data.decode("utf-8")))}


def pair(a: str, b: str, a_not_b: int, b_not_a: int, q_diff: str) -> PairwiseRow:
    p = mcnemar_exact_p(a_not_b, b_not_a)
    q = Fraction(q_diff)
    return PairwiseRow(a, b, 12, a_not_b, b_not_a, p, q, q - Fraction(1, 10), q + Fraction(1, 10), p, 4)


def render_with(tmp_path: Path, comparisons: list[PairwiseRow]) -> dict[str, str]:
    """The fixture's outputs with ``comparisons`` in place of the (checked) rows of its pairwise.csv."""
    inputs, problems = load_inputs(make_tree(tmp_path / "tree"))
    assert problems == []
    files = build_leaderboard.render(build_board(replace(inputs, pairwise=comparisons)))
    return {name: data.decode("utf-8") for name, data in files.items()}


def test_rank_ranges_in_every_output(tmp_path):
    # Fixture ranks: atlas 1, borealis 2, cirrus 2, dune 4, evil 5; fathom disqualified.
    #   atlas-dune (8, 0):  p = 2/2^8  = 1/128, q_diff > 0: atlas has the passes and the higher Q
    #   atlas-evil (10, 0): p = 2/2^10 = 1/512
    #   evil-fathom (0, 10): fathom is not ranked: the row is left out of the ranking and of Holm.
    # Holm over the 2 ranked rows: 2 * 1/512 = 0.0039, max(0.0039, 1 * 1/128 = 0.0078): both < 0.05.
    #   atlas: 1 + 0 = 1 .. 5 - 2 = 3; borealis, cirrus: 1..5; dune, evil: 1 + 1 = 2 .. 5.
    out = render_with(tmp_path, [pair("atlas", "dune", 8, 0, "0.156250"), pair("atlas", "evil", 10, 0, "0.385417"),
                                 pair("evil", "fathom", 0, 10, "-0.437500")])
    table = rows_of(out["leaderboard.csv"].encode())
    assert {sid: (r["rank"], r["rank_best"], r["rank_worst"]) for sid, r in table.items()} == {
        "atlas": ("1", "1", "3"), "borealis": ("2", "1", "5"), "cirrus": ("2", "1", "5"), "dune": ("4", "2", "5"),
        "evil": ("5", "2", "5"), "fathom": ("", "", ""), "glacier": ("", "", "")}

    md = out["leaderboard.md"]
    for line in ("| 1 (1\u20133) | Atlas 2 |", "| 2 (1\u20135) | Borealis |", "| 4 (2\u20135) | Dune |",
                 f"| 5 (2\u20135) | {EVIL_MD} |", "|  | Fathom |"):
        assert line in md
    assert "Holm-adjusted over the 2 pairs of ranked subjects, p < 0.05" in md
    assert f"Significant differences: Atlas 2 above Dune and {EVIL_MD}." in md
    assert "ranks within a range are not statistically established" in md
    assert "The top 3 (#1 Atlas 2, #2 Borealis, #2 cirrus) are the same for every alpha from 0 to 1" in md

    page = out["leaderboard.html"]
    ranks = page.split('id="ranked-table"')[1].split("</table>")[0]
    assert ranks.count('class="rank-range"') == 5 and ">(1\u20133)</span>" in ranks and ">(2\u20135)</span>" in ranks
    note = page.split('id="rank-ranges"')[1].split("</section>")[0]
    assert "p &lt; 0.05" in note and "ranks within a range are not statistically established" in note
    assert (f'Significant differences: <span class="name-ref">Atlas 2</span> above <span class="name-ref">Dune</span> '
            f'and <span class="name-ref">{EVIL_HTML}</span>.') in note
    assert 'id="alpha-sensitivity">The top 3 (#1 <span class="name-ref">Atlas 2</span>' in page
    assert page.split('id="disqualified-table"')[1].count("rank-range") == 0


def test_a_rank_outside_its_range_is_pointed_out(tmp_path):
    # evil beats atlas on their shared runs, (0, 10) with q_diff < 0, although atlas ranks first on all runs:
    # atlas 2..5 (rank 1), evil 1..4 (rank 5). Both ranks lie outside their range, and the outputs say so.
    out = render_with(tmp_path, [pair("atlas", "evil", 0, 10, "-0.100000")])
    table = rows_of(out["leaderboard.csv"].encode())
    assert (table["atlas"]["rank_best"], table["atlas"]["rank_worst"]) == ("2", "5")
    assert (table["evil"]["rank_best"], table["evil"]["rank_worst"]) == ("1", "4")
    assert (f"The rank of Atlas 2 and {EVIL_MD} lie outside the range: the ranking uses every scored run, the "
            "paired tests only the runs two subjects share, and here they disagree.") in out["leaderboard.md"]
    assert "lie outside the range" in out["leaderboard.html"]


def test_results_without_the_statistics_files(tmp_path):
    """Results older than the statistics: no pairwise.csv, no alpha_sensitivity.csv, the manifest lists neither."""
    root = make_tree(tmp_path / "tree")
    manifest_path = root / "results" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for name in ("pairwise.csv", "alpha_sensitivity.csv"):
        (root / "results" / name).unlink()
        del manifest["outputs"][name]
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    assert build_leaderboard.main(["--root", str(root)]) == 0
    table = rows_of((root / "results" / "leaderboard.csv").read_bytes())
    assert table["atlas"]["rank"] == "1" and table["atlas"]["rank_best"] == table["atlas"]["rank_worst"] == ""
    md = (root / "results" / "leaderboard.md").read_text()
    assert "| 1 | Atlas 2 |" in md and "Rank range" not in md and "The top 3" not in md
    page = (root / "results" / "leaderboard.html").read_text()
    assert 'class="rank-range"' not in page and 'id="rank-ranges"' not in page and 'id="alpha-sensitivity"' not in page


def test_a_statistics_file_the_manifest_does_not_list_is_still_checked(tmp_path, capsys):
    root = make_tree(tmp_path / "tree")
    manifest_path = root / "results" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["outputs"]["pairwise.csv"]
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    path = root / "results" / "pairwise.csv"
    path.write_text(path.read_text().replace("atlas,evil,4,2,0,", "atlas,evil,4,3,0,"))
    assert build_leaderboard.main(["--root", str(root)]) == 1
    assert capsys.readouterr().err == (
        "results/pairwise.csv: line 5: a_pass_b_not of (atlas, evil) is 3 but results/per_run.csv gives 2 "
        "(the results are out of step; run `make metrics`)\n1 problem(s) found; nothing was written.\n")


def significance_tree(root: Path) -> MiniTree:
    """Ten cases RO-FOUL-001..010, one run each, alpha 0.5 (config.yaml):

    * steady:   raw 10 everywhere: Pass (>= 10) x 10   -> P = 1,   s_bar = 10,   Q = 0.5 + 10/24   = 0.916667
    * sharp:    raw 12 on 001-008 (Pass), raw 8 on 009-010 (Conditional)
                                                      -> P = 0.8, s_bar = 11.2, Q = 0.4 + 11.2/24 = 0.866667
    * weak:     raw 2 everywhere: Fail                 -> P = 0,   s_bar = 2,    Q = 2/24          = 0.083333
    * reckless: raw 12 everywhere, a critical fail on 001: Disqualified.
    """
    tree = MiniTree(root)
    for sid, name in (("steady", "Steady"), ("sharp", "Sharp"), ("weak", "Weak"), ("reckless", "Reckless")):
        tree.add_subject(sid, "1.0", display_name=name)
    for i in range(1, 11):
        case = f"RO-FOUL-{i:03d}"
        tree.add_gold(case)
        tree.add_run("steady", case, raw=10)
        tree.add_run("sharp", case, raw=12 if i <= 8 else 8)
        tree.add_run("weak", case, raw=2, correctness=0)
        tree.add_run("reckless", case, raw=12,
                     fails=[("AF-CHLORINE-EXPOSURE", "critical")] if i == 1 else None)
    return tree


def test_end_to_end_significant_differences_and_an_alpha_dependent_top(tmp_path):
    tree = significance_tree(tmp_path / "tree")
    assert compute_metrics.main(["--root", str(tree.root)]) == 0
    assert build_leaderboard.main(["--root", str(tree.root)]) == 0
    results = tree.root / "results"
    # Pairs of ranked subjects, discordant Pass counts and exact McNemar p:
    #   steady-sharp (2, 0): 2/2^2 = 0.5;  steady-weak (10, 0): 2/2^10 = 1/512;  sharp-weak (8, 0): 2/2^8 = 1/128.
    # Holm over these 3: 3/512 = 0.0059 and max(0.0059, 2/128 = 0.0156) < 0.05; max(0.0156, 1 * 0.5) = 0.5.
    # So steady and sharp are both above weak, and not distinguishable from each other:
    #   steady 1..(3 - 1) = 1-2, sharp 1-2, weak (1 + 2)..3 = 3-3.
    table = rows_of((results / "leaderboard.csv").read_bytes())
    assert {sid: (r["rank"], r["rank_best"], r["rank_worst"]) for sid, r in table.items()} == {
        "steady": ("1", "1", "2"), "sharp": ("2", "1", "2"), "weak": ("3", "3", "3"), "reckless": ("", "", "")}
    md = (results / "leaderboard.md").read_text()
    assert "| 1 (1\u20132) | Steady |" in md and "| 3 (3\u20133) | Weak |" in md
    assert "Significant differences: Steady above Weak; Sharp above Weak." in md
    # Q_final(alpha): steady 5/6 + alpha/6, sharp 14/15 - 2 alpha/15: equal at alpha = 1/3, so sharp leads up to
    # 0.3 and steady from 0.4; weak (P = 0, s_bar = 2: 1/6 at alpha 0) is third everywhere.
    assert ("The top 3 depend on alpha (results/alpha_sensitivity.csv; this leaderboard uses alpha 0.5): "
            "#1 Sharp, #2 Steady, #3 Weak for alpha 0 to 0.3; #1 Steady, #2 Sharp, #3 Weak for alpha 0.4 to 1.") in md
    page = (results / "leaderboard.html").read_text()
    assert 'id="alpha-sensitivity">The top 3 depend on alpha' in page
    # pairwise.csv itself (Holm over all 6 pairs, reckless included) agrees here.
    pairwise = list(csv.DictReader(io.StringIO((results / "pairwise.csv").read_text())))
    assert {(r["subject_a"], r["subject_b"]): r["significantly_better"] for r in pairwise}[("steady", "weak")] == "steady"


def test_inputs_keep_the_exact_comparisons(tmp_path):
    """The board uses exact recomputed rows: p-values are Fractions, not the rounded CSV strings."""
    inputs, problems = load_inputs(make_tree(tmp_path / "tree"))
    assert problems == []
    by_pair = {(r.subject_a, r.subject_b): r for r in inputs.pairwise}
    assert by_pair[("atlas", "evil")].mcnemar_p == Fraction(1, 2)
    assert by_pair[("atlas", "borealis")].q_diff == Fraction(5, 32)             # 0.802083... - 0.645833... exactly
    assert len(inputs.alpha_rows) == 7 * 11 and inputs.significance_level == Fraction(5, 100)
