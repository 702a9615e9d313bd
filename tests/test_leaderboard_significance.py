"""Rank ranges and the alpha statement in leaderboard.csv, leaderboard.md and leaderboard.html.

Three sources of comparisons, each worked out by hand:

* hand-built pairwise rows laid over the fixture tests/fixtures/leaderboard/basic (whose own pairwise.csv
  establishes nothing: see test_leaderboard_build.py), rendered through the real writers;
* the fixture without pairwise.csv and alpha_sensitivity.csv (results older than the statistics);
* a small tree run through compute_metrics, where real differences are significant and the top depends on alpha.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from treebuilder import LIBRARY_SYSTEM, MiniTree, edit_json, rows

from rgbench.cli import run_script
from rgbench.commands import leaderboard as build_leaderboard
from rgbench.leaderboard.board import build_board
from rgbench.leaderboard.inputs import load_inputs
from rgbench.leaderboard.rank_ranges import RankRange
from rgbench.stats.pairwise import PairwiseRow

REPO = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "leaderboard" / "basic"
EVIL_MD = "\\<script\\>alert(1)\\</script\\>"  # parentheses are no markup inside a line
EVIL_HTML = "&lt;script&gt;alert(1)&lt;/script&gt;"


def make_tree(root: Path) -> Path:
    shutil.copytree(FIXTURE / "tree", root)
    shutil.copytree(LIBRARY_SYSTEM, root / "system")
    return root


def rows_of(data: bytes) -> dict[str, dict[str, str]]:
    return {r["subject_id"]: r for r in rows(data)}


def pair(a: str, b: str, p_holm: str, q_diff: str) -> PairwiseRow:
    """A pairwise row over 3 shared cases with the given Holm-adjusted p and q_diff."""
    q = Fraction(q_diff)
    return PairwiseRow(a, b, 3, q, float(q) - 0.1, float(q) + 0.1, p_value=Fraction(p_holm), test="exact",
                       p_holm=Fraction(p_holm))


def render_with(tmp_path: Path, comparisons: list[PairwiseRow], rank_sets: dict) -> dict[str, str]:
    """The fixture's outputs with ``comparisons`` and ``rank_sets`` in place of its (checked) files' rows."""
    inputs, problems = load_inputs(make_tree(tmp_path / "tree"))
    assert problems == []
    files = build_leaderboard.render(build_board(replace(inputs, pairwise=comparisons, rank_sets=rank_sets)))
    return {name: data.decode("utf-8") for name, data in files.items()}


# simultaneous rank sets as rank_sets.csv gives them: subject -> (rank_low, rank_high)
SETS = {"atlas": RankRange(1, 3), "borealis": RankRange(1, 5), "cirrus": RankRange(1, 5), "dune": RankRange(2, 5),
        "evil": RankRange(2, 5)}


def test_rank_ranges_in_every_output(tmp_path):
    # Fixture ranks: atlas 1, borealis 2, cirrus 2, dune 4, evil 5; fathom disqualified (its pair is left out).
    out = render_with(tmp_path, [pair("atlas", "dune", "0.010000", "0.156250"),
                                 pair("atlas", "evil", "0.020000", "0.385417"),
                                 pair("evil", "fathom", "0.001000", "-0.437500")], SETS)
    table = rows_of(out["leaderboard.csv"].encode())
    assert {sid: (r["rank"], r["rank_best"], r["rank_worst"]) for sid, r in table.items()} == {
        "atlas": ("1", "1", "3"), "borealis": ("2", "1", "5"), "cirrus": ("2", "1", "5"), "dune": ("4", "2", "5"),
        "evil": ("5", "2", "5"), "fathom": ("", "", ""), "glacier": ("", "", "")}

    md = out["leaderboard.md"]
    for line in ("| 1 (1\u20133) | A | 4, 5 | Atlas 2 |", "| 2 (1\u20135) | A |  | Borealis |", "| 4 (2\u20135) | A |  | Dune |",
                 f"| 5 (2\u20135) | A |  | {EVIL_MD} |", "| **Disqualified** |  |  | Fathom |"):
        assert line in md
    # the family of the adjustment is the pairs of ranked subjects (pairwise.py: holm over the family): an
    # Incomplete or Disqualified subject on the board is tested apart and changes no ranked pair's p
    assert ("Holm-adjusted over the 2 pairs of ranked subjects, gives p < 0.05 (pairs with a disqualified, "
            "incomplete or unscored subject are tested apart and not counted)") in md
    assert f"Significant differences: Atlas 2 above Dune and {EVIL_MD}." in md
    assert "with 95% confidence, every ranked subject's true rank" in md and "for all subjects at once" in md
    assert "The top 3 (#1 Atlas 2, #2 Borealis, #2 cirrus) are the same for every alpha from 0 to 1" in md

    page = out["leaderboard.html"]
    ranks = page.split('id="ranked-table"')[1].split("</table>")[0]
    assert ranks.count('class="rank-range"') == 5 and ">(1\u20133)</span>" in ranks and ">(2\u20135)</span>" in ranks
    note = page.split('id="rank-ranges"')[1].split("</section>")[0]
    assert "p &lt; 0.05" in note and "Ranks inside a range are not established" in note
    assert (f'Significant differences: <span class="name-ref">Atlas 2</span> above <span class="name-ref">Dune</span> '
            f'and <span class="name-ref">{EVIL_HTML}</span>.') in note
    assert 'id="alpha-sensitivity">The top 3 (#1 <span class="name-ref">Atlas 2</span>' in page
    assert page.split('id="disqualified-table"')[1].split("</table>")[0].count("rank-range") == 0


def test_a_rank_outside_its_range_is_pointed_out(tmp_path):
    # rank_sets.csv's sets contain the rank by construction (the consistency check refuses any other); a board
    # given such a set anyway says so rather than hide it.
    out = render_with(tmp_path, [], {**SETS, "atlas": RankRange(2, 5), "evil": RankRange(1, 4)})
    table = rows_of(out["leaderboard.csv"].encode())
    assert (table["atlas"]["rank_best"], table["atlas"]["rank_worst"]) == ("2", "5")
    assert f"here they disagree: the rank lies outside the range for Atlas 2 and {EVIL_MD}." in out["leaderboard.md"]
    assert "the rank lies outside the range for" in out["leaderboard.html"]


def test_results_without_the_statistics_files(tmp_path):
    """Results older than the statistics: no pairwise.csv, rank_sets.csv, alpha_sensitivity.csv in the manifest."""
    root = make_tree(tmp_path / "tree")
    dropped = ("pairwise.csv", "alpha_sensitivity.csv", "rank_sets.csv")
    for name in dropped:
        (root / "results" / name).unlink()
    edit_json(root / "results/manifest.json", lambda manifest: [manifest["outputs"].pop(name) for name in dropped])
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    table = rows_of((root / "results" / "leaderboard.csv").read_bytes())
    assert table["atlas"]["rank"] == "1" and table["atlas"]["rank_best"] == table["atlas"]["rank_worst"] == ""
    md = (root / "results" / "leaderboard.md").read_text()
    assert "| 1 | Atlas 2 |" in md and "Rank range" not in md and "The top 3" not in md
    page = (root / "results" / "leaderboard.html").read_text()
    assert 'class="rank-range"' not in page and 'id="rank-ranges"' not in page and 'id="alpha-sensitivity"' not in page


def test_a_statistics_file_the_manifest_does_not_list_is_not_part_of_the_results(tmp_path):
    root = make_tree(tmp_path / "tree")
    edit_json(root / "results/manifest.json", lambda manifest: manifest["outputs"].pop("pairwise.csv"))
    path = root / "results" / "pairwise.csv"
    path.write_text(path.read_text().replace("atlas,evil,3,", "atlas,evil,2,"))
    inputs, problems = load_inputs(root)
    assert problems == [] and inputs is not None and inputs.pairwise is None   # the set is what the manifest lists


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
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    results = tree.root / "results"
    # Per-case Q_final differences (units of 1/12; Q = 0.5 · Pass + 0.5 · raw / 12) and the exact sign-flip test
    # over the 2^10 sign patterns:
    #   steady-weak: 11/12 - 1/12 = +10 on every case: only the two all-equal-sign patterns reach |T| = 100,
    #                p = 2/1024 = 1/512.  sharp-weak: +11 (001-008), +3 (009-010): likewise p = 1/512.
    #   steady-sharp: -1 on 001-008, +7 on 009-010, T = -8 + 14 = 6. With v = s9 + s10 and u = the sum of the
    #                other eight signs, T* = 7v - u; |T*| >= 6 for every pattern with v = ±2 (2 · 256) and for
    #                v = 0 (2 ways) when |u| >= 6 (u = ±6: 8 patterns each, ±8: 1 each, 18 of 256): p = 548/1024.
    #   reckless (critical fail on 001) pairs: reckless-weak +11 everywhere but +5 on 001: p = 1/512.
    # Holm over the 6 pairs: 6/512 = 0.0117 for the smallest, so steady and sharp are above weak, steady and
    # sharp are not distinguishable (p = 0.535). The rank sets (bootstrap over the 10 cases): weak's
    # differences never vary in sign, so it is established last; steady and sharp share 1-2.
    table = rows_of((results / "leaderboard.csv").read_bytes())
    assert {sid: (r["rank"], r["rank_best"], r["rank_worst"]) for sid, r in table.items()} == {
        "steady": ("1", "1", "2"), "sharp": ("2", "1", "2"), "weak": ("3", "3", "3"), "reckless": ("", "", "")}
    pairwise = {(r["subject_a"], r["subject_b"]): r for r in rows(results / "pairwise.csv")}
    assert pairwise[("sharp", "steady")]["p_value"] == "0.535156" and pairwise[("sharp", "steady")]["test"] == "exact"
    assert pairwise[("steady", "weak")]["p_value"] == "0.001953"                 # 1/512
    md = (results / "leaderboard.md").read_text()
    assert "| 1 (1\u20132) | A | 3 | Steady |" in md and "| 3 (3\u20133) |  |  | Weak |" in md
    assert "Significant differences: Steady above Weak; Sharp above Weak." in md
    # Q_final(alpha): steady 5/6 + alpha/6, sharp 14/15 - 2 alpha/15: equal at alpha = 1/3, so sharp leads up to
    # 0.3 and steady from 0.4; weak (P = 0, s_bar = 2: 1/6 at alpha 0) is third everywhere.
    assert ("The top 3 depend on alpha (results/alpha_sensitivity.csv; this leaderboard uses alpha 0.5): "
            "#1 Sharp, #2 Steady, #3 Weak for alpha 0 to 0.3; #1 Steady, #2 Sharp, #3 Weak for alpha 0.4 to 1.") in md
    page = (results / "leaderboard.html").read_text()
    assert 'id="alpha-sensitivity">The top 3 depend on alpha' in page
    assert pairwise[("steady", "weak")]["significantly_better"] == "steady"


def test_inputs_keep_the_exact_comparisons(tmp_path):
    """The board uses pairwise.csv's rows checked against per_run.csv: q_diff is the exact recomputation."""
    inputs, problems = load_inputs(make_tree(tmp_path / "tree"))
    assert problems == []
    by_pair = {(r.subject_a, r.subject_b): r for r in inputs.pairwise}
    # atlas vs borealis per case (3 shared cases): mean over cases of the per-case Q contribution difference.
    assert by_pair[("atlas", "borealis")].q_diff == Fraction("0.111111") and by_pair[("atlas", "borealis")].n_cases == 3
    assert inputs.rank_sets is not None and inputs.rank_sets["atlas"] == RankRange(low=1, high=4)
    assert len(inputs.alpha_rows) == 7 * 11 and inputs.spec.stats.significance_level == Fraction(5, 100)


def test_a_subject_below_min_case_coverage_is_incomplete_in_every_output(tmp_path):
    # full: all 10 cases; partial: 8 of 10 (0.8 < 0.9), with the best figures; it must not be ranked.
    tree = MiniTree(tmp_path / "tree")
    tree.add_subject("full", "1.0", display_name="Full")
    tree.add_subject("partial", "1.0", display_name="Partial")
    for i in range(1, 11):
        case = f"RO-FOUL-{i:03d}"
        tree.add_gold(case)
        tree.add_run("full", case, raw=8)
        if i <= 8:
            tree.add_run("partial", case, raw=12)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    results = tree.root / "results"
    table = rows_of((results / "leaderboard.csv").read_bytes())
    assert (table["full"]["rank"], table["full"]["leaderboard_status"]) == ("1", "Ranked")
    partial = table["partial"]
    assert (partial["rank"], partial["leaderboard_status"], partial["n_cases"], partial["n_cases_missing"],
            partial["missing_cases"]) == ("", "Incomplete", "8", "2", "RO-FOUL-009 RO-FOUL-010")
    md = (results / "leaderboard.md").read_text()
    assert "**Incomplete**" in md and "- **Partial** (`1.0`): 8 cases scored, missing: `RO-FOUL-009`, `RO-FOUL-010`" in md
    page = (results / "leaderboard.html").read_text()
    assert 'id="incomplete-table"' in page and "<strong>1</strong> incomplete" in page
    # not in the rank sets, and no rank at any alpha
    assert [line.split(",")[0] for line in (results / "rank_sets.csv").read_text().splitlines()[1:]] == ["full"]
    alpha = rows(results / "alpha_sensitivity.csv")
    assert {r["rank"] for r in alpha if r["subject_id"] == "partial"} == {""}


def beside_full(tmp_path, other: str, cases: int) -> MiniTree:
    """A tree of ``cases`` cases RO-FOUL-001.. that subject "full" (Full) answers once each with raw 8, and a
    registered subject ``other`` (display name capitalised) with no run yet."""
    tree = MiniTree(tmp_path / "tree")
    tree.add_subject("full", "1.0", display_name="Full")
    tree.add_subject(other, "1.0", display_name=other.capitalize())
    for i in range(1, cases + 1):
        tree.add_gold(f"RO-FOUL-{i:03d}")
        tree.add_run("full", f"RO-FOUL-{i:03d}", raw=8)
    return tree


def test_a_subject_with_one_case_reads_in_the_singular_and_is_counted_in_the_summary(tmp_path, capsys):
    # "single" answered 1 of the 10 cases with 1 run: "1 case scored", "1 run, 1 case" (never "1 cases", "1 runs"),
    # and build_leaderboard's summary line counts it as incomplete (it used to say "1 ranked, 0 disqualified, 0
    # unscored", leaving the Incomplete subject out)
    tree = beside_full(tmp_path, "single", cases=10)
    tree.add_run("single", "RO-FOUL-001", raw=12)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    capsys.readouterr()
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    assert capsys.readouterr().out == ("leaderboard: 1 ranked, 1 incomplete, 0 disqualified, 0 unscored -> "
                                       "tree/results/leaderboard.{csv,html,md}\n")
    results = tree.root / "results"
    md = (results / "leaderboard.md").read_text()
    # 9 missing cases, more than LIST_LIMIT (5): their count, where they all are, the first five
    assert ("- **Single** (`1.0`): 1 case scored, missing: 9 cases (all in results/metrics_per_subject.csv, column "
            "missing_cases); the first 5: `RO-FOUL-002`, `RO-FOUL-003`, `RO-FOUL-004`, `RO-FOUL-005`, `RO-FOUL-006`\n") in md
    page = (results / "leaderboard.html").read_text()
    assert '<span class="ident">1 run, 1 case</span>' in page and "Single: N = 1 (1 case)" in page
    assert "1 cases" not in md + page and "1 runs" not in page
    # the Q_final chart labels Single "inc." and its caption says what that means
    assert 'Bars labelled &quot;inc.&quot; are Incomplete subjects (scored on too few of the cases), not ranked.' in page
    # Single's one run scores 2 on every criterion: no criterion is singled out as the weakest
    assert "<p>Every criterion has the same mean (2.00 of 2).</p>" in page


def test_a_subject_whose_every_run_is_an_error_says_so(tmp_path):
    # "broken" has two responses, both status error (API failures): N = 0, so Unscored; the board said
    # "Broken (0 responses awaiting a scoring)" as if nothing had been run, and the page's table the same
    tree = beside_full(tmp_path, "broken", cases=2)
    for i in range(1, 3):
        tree.add_response("broken", f"RO-FOUL-{i:03d}", "r1", status="error")
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    results = tree.root / "results"
    md = (results / "leaderboard.md").read_text()
    assert "**Unscored** (no scored run yet): Broken (0 responses awaiting a scoring, 2 error runs, not answers)." in md
    page = (results / "leaderboard.html").read_text()
    table = page.split('id="unscored-table"', 1)[1].split("</table>", 1)[0]
    assert '<th scope="col" class="num">Error runs (not answers)</th>' in table
    assert '<td class="num">0</td><td class="num">2</td>' in table


def test_the_rank_range_sentence_names_the_configured_correction():
    from rgbench.leaderboard.rank_ranges import Significance
    from rgbench.leaderboard.significance_text import rank_range_method
    base = dict(level=Fraction(5, 100), n_pairs=1, above=(), ranges={"a": (1, 2), "b": (1, 2)})
    holm_text = rank_range_method(Significance(**base), lambda t: t)
    bh_text = rank_range_method(Significance(**base, correction="benjamini-hochberg"), lambda t: t)
    assert "Holm-adjusted over the 1 pair of ranked subjects, gives" in holm_text
    assert "Benjamini-Hochberg-adjusted (a false discovery rate, not a family-wise error) over the 1 pair of ranked" in bh_text


def test_one_ranked_subject_gets_the_rank_range_paragraph_and_no_empty_one(tmp_path):
    # "idle" has no run, so "full" is ranked alone: the method paragraph says why no pair is compared, and the
    # differences paragraph, which has nothing to say, is left out (it was an empty <p> and a trailing space)
    tree = beside_full(tmp_path, "idle", cases=10)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    results = tree.root / "results"
    page = (results / "leaderboard.html").read_text()
    assert "Only one subject is ranked, so no pair is compared.</p>" in page and '<p class="note"></p>' not in page
    md = (results / "leaderboard.md").read_text()
    assert "Only one subject is ranked, so no pair is compared.\n" in md
