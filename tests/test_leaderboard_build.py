"""build_leaderboard.py on the hand-built tree tests/fixtures/leaderboard/basic/tree (+ the repository's system/).

The fixture's metric tables were computed by hand (alpha = 0.5, s_bar out of 12,
Q_final = P/2 + s_bar/24), four runs on three cases per scored subject:

* atlas   : Pass 12, Pass 11, Conditional 8, Pass 10 -> P = 3/4, s_bar = 41/4 = 10.25,
            Q = 0.375 + 10.25/24 = 0.802083; BS = (0.1^2+0.2^2+0.1^2+0.2^2)/4 = 0.025.
* borealis: Pass 12, Cond 9, Cond 7, Pass 10 -> P = 0.5, s_bar = 38/4 = 9.5, Q = 0.25 + 9.5/24 = 0.645833;
            BS = (0.2^2+0.2^2+0.5^2+0.4^2)/4 = 0.49/4 = 0.1225.
* cirrus  : the same runs as borealis -> a true tie with it (rank 2 twice); no display_name.
* dune    : the same scores, confidences 100/90/90/90 -> BS = (0+0.4^2+0.9^2+0.1^2)/4 = 0.245 > 0.1225,
            so rank 4 ("1, 2, 2, 4").
* evil    : Fail 6, Pass 10, Fail 4, Cond 8 -> P = 0.25, s_bar = 7, Q = 0.125 + 7/24 = 0.416667; its
            registry strings are hostile (script tags, an onerror image, Markdown and table syntax).
* fathom  : the best Q_final (P = 0.75, s_bar = 11.5, Q = 0.375 + 11.5/24 = 0.854167) but one critical
            fail (AF-CHLORINE-EXPOSURE on RO-MEMB-001 r1): Disqualified, no rank, metrics still shown.
* glacier : N = 0 (2 responses awaiting a scoring): Unscored, empty metrics, last.

pairwise.csv (15 pairs of the six scored subjects; every pair shares the same 4 runs on 3 cases): Pass flags per
run (FOUL r1, FOUL r2, MEMB r1, SCAL r1) are atlas 1101, borealis = cirrus = dune 1001, evil 0100, fathom 1101.
The most discordant pairs are atlas-evil and evil-fathom, (2, 0): McNemar p = 2 * 1/2^2 = 0.5; every other pair
has p = 1; Holm over 15 pairs gives 1 everywhere. With 4 shared runs no pair can ever be significant (the
smallest possible p, 4 discordant runs all one way, is 2/16 = 0.125), so every ranked subject's rank range is
1-5 ("1 (1-5)"). q_diff is the difference of Q_final (all runs shared), e.g. atlas - borealis = 0.802083 -
0.645833 = 0.15625; the q_diff bounds come from the paired bootstrap (rgbench.stats.pairwise.pairwise_table,
seed from the manifest's input digest, 2000 resamples), which the build does not redo.

alpha_sensitivity.csv: Q_final(alpha) = alpha * P + (1 - alpha) * s_bar / 12 for alpha = 0, 0.1, ..., 1. atlas
has both the higher P and the higher s_bar than borealis/cirrus/dune, and they than evil, so the order (and the
BS tie-break, dune 4th) is the same at every alpha: "The top 3 (#1 Atlas 2, #2 Borealis, #2 cirrus) are the
same for every alpha". fathom keeps its Q_final without a rank; glacier has neither.

The build recomputes these tables from per_run.csv with the pipeline's formulas
and refuses them if they disagree, so a passing build also checks the arithmetic.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from treebuilder import LIBRARY_SYSTEM, edit_json, rows

from rgbench.cli import run_script
from rgbench.commands import leaderboard as build_leaderboard
from rgbench.compute.input_groups import listing_digest
from rgbench.leaderboard.board import build_board
from rgbench.leaderboard.html_page import JS, content_security_policy
from rgbench.leaderboard.inputs import load_inputs
from rgbench.leaderboard.leaderboard_csv import COLUMNS, REQUIRED_COLUMNS, leaderboard_csv
from rgbench.leaderboard.manifest import folder_digest_now
from rgbench.leaderboard.readme import END, START, replace_block, split_readme
from rgbench.leaderboard.svg import RC, scope_ids

REPO = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "leaderboard" / "basic"
SCRIPT = REPO / "scripts" / "build_leaderboard.py"
EVIL_NAME = "<script>alert(1)</script>"
OUTPUT_FILES = ("leaderboard.csv", "leaderboard.html", "leaderboard.md")


def readme_block(text: str) -> str | None:
    """The embedded leaderboard (without markers, with a final newline), or None without valid markers."""
    parts = split_readme(text)
    return None if isinstance(parts, str) else parts[1] + "\n"


def make_tree(root: Path) -> Path:
    """The fixture tree plus a copy of the repository's system/ folder."""
    shutil.copytree(FIXTURE / "tree", root)
    shutil.copytree(LIBRARY_SYSTEM, root / "system")
    return root


def refresh_manifest(root: Path, **extra) -> None:
    """Re-record the digests of the files the manifest lists (after a test edits one of them), add ``extra`` keys."""
    def refresh(manifest: dict) -> None:
        manifest["inputs"] = {rel: folder_digest_now(root, rel) if rel.endswith("/") else
                              hashlib.sha256((root / rel).read_bytes()).hexdigest() for rel in manifest["inputs"]}
        manifest["input_digest"] = listing_digest(manifest["inputs"])
        manifest["outputs"] = {name: hashlib.sha256((root / "results" / name).read_bytes()).hexdigest()
                               for name in manifest["outputs"]}
        manifest.update(extra)
    edit_json(root / "results/manifest.json", refresh)


def run_cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, cwd=cwd)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, bytes]:
    """The three outputs of one CLI run on the fixture tree."""
    root = make_tree(tmp_path_factory.mktemp("lb") / "tree")
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    return {name: (root / "results" / name).read_bytes() for name in OUTPUT_FILES}


# --- leaderboard.csv ------------------------------------------------------------------

def test_csv_is_the_hand_checked_file(built):
    assert built["leaderboard.csv"] == (FIXTURE / "expected" / "leaderboard.csv").read_bytes()


def test_csv_columns_start_with_the_required_ones(built):
    header = built["leaderboard.csv"].decode().splitlines()[0].split(",")
    assert tuple(header[: len(REQUIRED_COLUMNS)]) == REQUIRED_COLUMNS == (
        "rank", "subject_id", "subject_version", "display_name", "leaderboard_status",
        "N", "P", "s_bar", "Q_final", "BS", "ECE", "n_critical")
    assert tuple(header) == COLUMNS
    assert header[len(REQUIRED_COLUMNS): len(REQUIRED_COLUMNS) + 2] == ["rank_best", "rank_worst"]


def test_csv_order_ranks_and_statuses(built):
    board = rows(built["leaderboard.csv"])
    assert [(r["rank"], r["subject_id"], r["leaderboard_status"]) for r in board] == [
        ("1", "atlas", "Ranked"),          # Q 0.802083
        ("2", "borealis", "Ranked"),       # Q 0.645833, P 0.5, s_bar 9.5, BS 0.1225 ...
        ("2", "cirrus", "Ranked"),         # ... identical: shares rank 2, after borealis by subject_id
        ("4", "dune", "Ranked"),           # same Q, P, s_bar, but BS 0.245: rank 4, not 3
        ("5", "evil", "Ranked"),           # Q 0.416667
        ("", "fathom", "Disqualified"),    # Q 0.854167 would be first, but one critical fail
        ("", "glacier", "Unscored"),       # N = 0
    ]


def test_csv_rows_show_everything_a_lab_needs(built):
    board = {r["subject_id"]: r for r in rows(built["leaderboard.csv"])}
    assert board["cirrus"]["display_name"] == "cirrus"            # no display_name: the subject_id
    assert board["evil"]["display_name"] == EVIL_NAME              # the CSV keeps data verbatim
    dq = board["fathom"]
    assert (dq["Q_final"], dq["P"], dq["s_bar"], dq["BS"], dq["ECE"], dq["n_critical"]) == (
        "0.854167", "0.750000", "11.500000", "0.233125", "0.162500", "1")
    assert dq["critical_fails"] == "RO-MEMB-001/r1:AF-CHLORINE-EXPOSURE"
    unscored = board["glacier"]
    assert [unscored[c] for c in ("N", "P", "s_bar", "Q_final", "BS", "ECE", "n_unscored")] == ["0", "", "", "", "", "", "2"]
    assert unscored["kind"] == "human" and unscored["P_reliability_label"] == ""
    # Rank ranges: Ranked board only, from rank_sets.csv's simultaneous sets; with 3 cases little is established
    # (atlas, first, is not last; evil, last, is not first).
    assert [(r["rank_best"], r["rank_worst"]) for r in board.values()] == (
        [("1", "4"), ("1", "5"), ("1", "5"), ("1", "5"), ("2", "5")] + [("", "")] * 2)
    atlas = board["atlas"]
    assert (atlas["provider"], atlas["parameters"], atlas["evaluation_date"], atlas["kind"]) == (
        "Example Labs", "70B, temperature 0", "2025-05-01", "llm")
    # Labels come from each figure's interval half-width; this fixture's results carry no interval: no label.
    assert atlas["n_cases"] == "3" and atlas["n_cases_missing"] == "0" and atlas["missing_cases"] == ""
    assert [atlas[f"{m}_reliability_label"] for m in ("P", "s_bar", "Q_final", "BS", "ECE")] == [""] * 5


# --- leaderboard.md ---------------------------------------------------------------------

def test_markdown_is_the_hand_checked_file(built):
    assert built["leaderboard.md"] == (FIXTURE / "expected" / "leaderboard.md").read_bytes()


def test_markdown_rendered_has_no_markup_from_the_data(built):
    rendered = MarkdownIt("commonmark").enable("table").render(built["leaderboard.md"].decode())
    assert "<script" not in rendered and "<img" not in rendered
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered
    table = rendered.split("<tbody>")[1].split("</tbody>")[0]
    for line in re.findall(r"<tr>.*?</tr>", table, flags=re.S):
        assert line.count("<td") == 7                        # no name can add a cell with "|"
    assert rendered.count("<tr>") == 1 + 7                    # header + every subject


# --- leaderboard.html (static checks; test_leaderboard_browser.py renders it) ----------

def test_html_escapes_every_registry_string(built):
    page = built["leaderboard.html"].decode()
    assert EVIL_NAME not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img" not in page and "onerror=\"" not in page
    assert len(re.findall(r"<script\b", page)) == 1          # ours, at the end of the body


def test_html_is_self_contained(built):
    page = built["leaderboard.html"].decode()
    references = re.findall(r"\b(?:src|href|action|poster|data)\s*=\s*\"([^\"]*)\"", page)
    # in-page anchors, and the download links to the CSVs beside the page (navigation, never loaded)
    assert references and all(ref.startswith("#") or re.fullmatch(r"\./[a-z_]+\.csv", ref) for ref in references)
    assert not re.search(r'<(?:img|script|link|iframe)[^>]*(?:src|href)="\./', page)
    assert "@import" not in page and "<link" not in page and "<iframe" not in page
    assert re.findall(r"url\(([^)]*)\)", page) and all(u.startswith("#") for u in re.findall(r"url\(([^)]*)\)", page))


def test_html_content_security_policy_allows_only_our_script(built):
    page = built["leaderboard.html"].decode()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert policy.replace("&#x27;", "'") == content_security_policy(JS)
    assert "default-src 'none'" in content_security_policy(JS)
    assert f"<script>{JS}</script>" in page


def test_html_sections_badge_and_charts(built):
    page = built["leaderboard.html"].decode()
    for anchor in ('id="ranked"', 'id="disqualified"', 'id="unscored"', 'id="charts"', "<footer>"):
        assert anchor in page
    assert page.count('class="badge badge-dq"') == 1
    assert "AF-CHLORINE-EXPOSURE" in page and "RO-MEMB-001" in page
    # One Q_final chart, one reliability diagram per scored subject (6), one heatmap.
    assert page.count("<svg ") == 8
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "ids must be unique across the inlined charts"


def test_html_footer_gives_provenance_and_explains_labels(built):
    footer = built["leaderboard.html"].decode().split("<footer>")[1]
    manifest = json.loads((FIXTURE / "tree" / "results" / "manifest.json").read_text())
    assert manifest["input_digest"] in footer
    assert "0.500000" in footer and "Benchmark version</dt><dd>1.0" in footer
    assert "Atlas 2: N = 4 (3 cases)" in footer
    for label in ("indicative", "reasonable", "stable", "robust"):
        assert f"<dt>{label}</dt>" in footer


def test_html_shows_registry_metadata(built):
    page = built["leaderboard.html"].decode()
    for text in ("Example Labs", "70B, temperature 0", "2025-05-01", "human baseline"):
        assert text in page


def test_intervals_when_the_statistics_provide_them(tmp_path):
    """compute_metrics' statistics add interval columns; the leaderboard carries and shows them."""
    root = make_tree(tmp_path / "tree")
    path = root / "results" / "metrics_per_subject.csv"
    lines = path.read_text().splitlines()
    bounds = {"atlas": "0.600000,0.750000,0.710000,0.880000", "fathom": "0.500000,0.900000,0.760000,0.930000"}
    written = [lines[0] + ",P_low,P_high,Q_final_low,Q_final_high,P_weighted,n_cases"]
    for line in lines[1:]:
        sid = line.split(",")[0]
        written.append(f"{line},{bounds.get(sid, ',,,')},0.500000,{0 if sid == 'glacier' else 3}")
    path.write_text("\n".join(written) + "\n")
    refresh_manifest(root, statistics={"bootstrap_resamples": 2000, "confidence_level": "0.950000"})
    files, board, problems = build_leaderboard.build_files(root)
    assert problems == []
    table = {r["subject_id"]: r for r in rows(files["leaderboard.csv"])}
    assert [table["atlas"][c] for c in ("P_low", "P_high", "Q_final_low", "Q_final_high")] == [
        "0.600000", "0.750000", "0.710000", "0.880000"]
    assert table["borealis"]["Q_final_low"] == "" and table["atlas"]["s_bar_low"] == ""   # absent: empty
    page = files["leaderboard.html"].decode()
    assert "0.710\u20130.880" in page and "0.600\u20130.750" in page
    assert "95% intervals: a bootstrap over cases (2000 resamples), each case counting once with all its runs: " \
           "bias-corrected and accelerated (BCa) for P" in page
    markdown = files["leaderboard.md"].decode()
    # 3 cases < reliability_min_cases 10: indicative whatever the width; P and Q_final have intervals, the others none
    assert "| Atlas 2 | 0.802 (0.710\u20130.880) | 0.750 | 4 |" in markdown   # Q_final's interval; P's is on the page
    # Q_final's whiskers: one error bar per subject with an interval, in the bar chart's SVG.
    chart = page.split('id="chart-q-final-title"')[1].split("</svg>")[0]
    assert chart.count('id="chart-q-final-LineCollection_') == 2


# --- determinism ------------------------------------------------------------------------

@pytest.mark.slow   # end to end: make test-slow (CI runs it)
def test_outputs_are_byte_identical_across_runs_paths_and_hash_seeds(built, tmp_path):
    # Another process, another hash seed, another path, time zone and locale: the same bytes.
    root = make_tree(tmp_path / "elsewhere" / "deeper" / "tree")
    env = {**os.environ, "PYTHONHASHSEED": "4242", "TZ": "Pacific/Chatham", "LC_ALL": "C"}
    completed = run_cli("--root", str(root), env=env, cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    for name in OUTPUT_FILES:
        assert (root / "results" / name).read_bytes() == built[name], name
    # And again in this process (same seed as `built`, warm caches): still the same bytes.
    files, _, problems = build_leaderboard.build_files(root)
    assert problems == [] and files == built


def test_no_clock_or_version_in_the_outputs(built):
    page = built["leaderboard.html"].decode()
    assert "dc:date" not in page and "<metadata>" not in page and "Matplotlib v" not in page
    assert "\r" not in page and page.endswith("</html>\n")


def test_charts_use_matplotlibs_own_dejavu_sans():
    import matplotlib
    from matplotlib import font_manager, rc_context
    with rc_context(RC):  # the DejaVu Sans file matplotlib resolves for the charts
        path = Path(font_manager.findfont(font_manager.FontProperties(family=["sans-serif"])))
    assert path.name == "DejaVuSans.ttf"
    assert Path(matplotlib.get_data_path()).resolve() in path.resolve().parents  # .venv may be a symlink


def test_scope_ids_prefixes_definitions_and_references():
    svg = '<g id="a"><use xlink:href="#a"/><path clip-path="url(#ab)"/><clipPath id="ab"/></g><x gid="keep"/>'
    assert scope_ids(svg, "c1") == ('<g id="c1-a"><use xlink:href="#c1-a"/><path clip-path="url(#c1-ab)"/>'
                                    '<clipPath id="c1-ab"/></g><x gid="keep"/>')


# --- CLI and failure behaviour --------------------------------------------------------

def test_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        run_script("leaderboard", ["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--root" in out and "--readme" in out and "leaderboard.csv" in out


def test_failure_writes_nothing_and_keeps_previous_outputs(tmp_path, capsys):
    root = make_tree(tmp_path / "tree")
    (root / "results" / "leaderboard.csv").write_text("previous\n")
    (root / "results" / "metrics_per_family.csv").write_text("broken\n")
    before = {p.name: p.read_bytes() for p in (root / "results").iterdir()}
    assert run_script("leaderboard", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("results/metrics_per_family.csv: differs from the file compute_metrics wrote")
    assert {p.name: p.read_bytes() for p in (root / "results").iterdir()} == before


def test_a_display_name_edit_needs_no_metrics_rerun_but_a_fresh_manifest(tmp_path):
    root = make_tree(tmp_path / "tree")
    registry = root / "subjects" / "registry.yaml"
    registry.write_text(registry.read_text().replace("display_name: Borealis", "display_name: Borealis XL"))
    files, _, problems = build_leaderboard.build_files(root)
    assert files is None
    assert [str(p) for p in problems] == [
        "subjects/registry.yaml: changed since the results were computed (results/manifest.json records another "
        "sha256; run `make metrics`)"]
    refresh_manifest(root)
    inputs, problems = load_inputs(root)
    assert problems == [] and "Borealis XL" in leaderboard_csv(build_board(inputs))


# --- end to end with the real producer ------------------------------------------------------

def test_end_to_end_after_compute_metrics(tmp_path):
    """compute_metrics on a small valid tree, then the leaderboard: the formats fit together."""
    from treebuilder import small_tree

    from rgbench.cli import run_script

    tree = small_tree(tmp_path / "tree")
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    board = rows((tree.root / "results" / "leaderboard.csv").read_bytes())
    # alpha-model: 3 scored runs on 3 cases, no critical fail -> rank 1, "Alpha" from the registry;
    # beta-model: a critical AF-CHLORINE-EXPOSURE on RO-FOUL-001 r1 -> Disqualified, no rank.
    assert [(r["rank"], r["subject_id"], r["display_name"], r["leaderboard_status"]) for r in board] == [
        ("1", "alpha-model", "Alpha", "Ranked"), ("", "beta-model", "beta-model", "Disqualified")]
    assert board[0]["n_cases"] == "3" and board[0]["n_unscored"] == "1"
    assert board[1]["critical_fails"] == "RO-FOUL-001/r1:AF-CHLORINE-EXPOSURE"


# --- README embedding -------------------------------------------------------------------

def test_readme_block_replacement():
    text = f"# Title\n\nIntro.\n\n{START}\nold table\n{END}\n\nMore.\n"
    new = replace_block(text, "| new |\n")
    assert new == f"# Title\n\nIntro.\n\n{START}\n| new |\n{END}\n\nMore.\n"
    assert readme_block(new) == "| new |\n"
    assert readme_block("no markers") is None
    with pytest.raises(ValueError, match="exactly one"):
        replace_block(f"{START}\n{START}\n{END}\n", "x")


def test_cli_readme_option(tmp_path, capsys):
    root = make_tree(tmp_path / "tree")
    (root / "README.md").write_text(f"# Bench\n\n## Leaderboard\n\n{START}\n{END}\n")
    assert run_script("leaderboard", ["--root", str(root), "--readme"]) == 0
    readme = (root / "README.md").read_text()
    assert readme_block(readme) == (root / "results" / "leaderboard.md").read_text()
    (root / "README.md").write_text("# Bench without markers\n")
    capsys.readouterr()
    assert run_script("leaderboard", ["--root", str(root), "--readme"]) == 1
    assert capsys.readouterr().err.startswith("README.md: needs exactly one <!-- leaderboard:start -->")
    assert (root / "README.md").read_text() == "# Bench without markers\n"


def test_committed_readme_embeds_the_committed_leaderboard():
    readme, table = REPO / "README.md", REPO / "results" / "leaderboard.md"
    if not table.exists() or not readme.exists() or readme_block(readme.read_text(encoding="utf-8")) is None:
        pytest.skip("README.md has no leaderboard markers or results/leaderboard.md is not committed yet")
    assert readme_block(readme.read_text(encoding="utf-8")) == table.read_text(encoding="utf-8"), (
        "README.md's leaderboard block is stale: run `make leaderboard`")


def test_every_leaderboard_column_is_documented():
    docs = (REPO / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    assert [column for column in COLUMNS if f"`{column}`" not in docs] == []
    for status in ("Ranked", "Incomplete", "Disqualified", "Unscored"):
        assert f"`{status}`" in docs


def test_nobody_scored_yet(tmp_path):
    """A fresh benchmark: every subject registered, no scoring yet. No rank, no chart, a clear page."""
    root = make_tree(tmp_path / "tree")
    results = root / "results"
    for name in ("per_run.csv", "metrics_per_family.csv"):
        header = (results / name).read_text().splitlines()[0]
        (results / name).write_text(header + "\n")
    subjects = (results / "metrics_per_subject.csv").read_text().splitlines()
    written = [subjects[0]] + [
        f"{line.split(',')[0]},{line.split(',')[1]},0,1,,,,,,0.500000,false,0" for line in subjects[1:]]
    (results / "metrics_per_subject.csv").write_text("\n".join(written) + "\n")
    # No shared run: no pair; every (subject, alpha) row has neither Q_final nor rank.
    (results / "pairwise.csv").write_text((results / "pairwise.csv").read_text().splitlines()[0] + "\n")
    (results / "rank_sets.csv").write_text((results / "rank_sets.csv").read_text().splitlines()[0] + "\n")
    alpha = (results / "alpha_sensitivity.csv").read_text().splitlines()
    (results / "alpha_sensitivity.csv").write_text(
        "\n".join([alpha[0]] + [",".join(line.split(",")[:3]) + ",," for line in alpha[1:]]) + "\n")
    refresh_manifest(root)
    files, board, problems = build_leaderboard.build_files(root)
    assert problems == []
    assert [(e.rank, e.status) for e in board.entries] == [(None, "Unscored")] * 7
    page = files["leaderboard.html"].decode()
    assert "No subject is ranked yet." in page and "<svg" not in page
    assert 'id="rank-ranges"' not in page and 'id="alpha-sensitivity"' not in page   # nothing ranked: no notes
    assert [r["leaderboard_status"] for r in rows(files["leaderboard.csv"])] == ["Unscored"] * 7


def test_page_title_comes_from_benchmark_yaml(tmp_path):
    root = make_tree(tmp_path / "tree")
    bench = root / "system" / "benchmark.yaml"
    bench.write_text("".join(line for line in bench.read_text().splitlines(keepends=True)
                             if not line.startswith("title:")))
    inputs, _ = load_inputs(root)
    assert build_board(inputs).title == "Reviewer-graded benchmark"   # no title: a generic one
    with (root / "system" / "benchmark.yaml").open("a") as handle:
        handle.write('\ntitle: "RO plant operations <sample>"\n')
    inputs, problems = load_inputs(root)
    assert problems == [] and build_board(inputs).title == "RO plant operations <sample>"


def test_the_interval_note_names_each_method_it_covers():
    # The note said "bias-corrected and accelerated (BCa), for every figure", but ECE's interval is the
    # projected bin-gap interval (aggregate_metrics.md §18, not BCa, not centred on ECE) and a P of 0 or 1
    # takes the Wilson interval; BS's is no bootstrap but the bounded score interval (issue 25: the bootstrap-t covered
    # it 88-90% when large errors are rare); over one case every bootstrap interval is a point (unknown spread, not
    # certainty).
    from rgbench.leaderboard.intervals import method_note
    assert method_note("0.950000", 2000) == (
        "95% intervals: a bootstrap over cases (2000 resamples), each case counting once with all its runs: "
        "bias-corrected and accelerated (BCa) for P, s\u0304 and Q_final (a P of 0 or 1 takes the Wilson interval "
        "over the cases); for BS, no bootstrap but Wilson's score interval extended to a mean of values in [0, 1], "
        "which allows for large errors the cases did not show, so it is wide over few cases "
        "(docs/statistics_check.md); for ECE, the studentised bootstrap of its bin gaps projected onto ECE, not "
        "centred on ECE, which is biased upward (above 0: miscalibration distinguishable from chance) "
        "(aggregate_metrics.md \u00a718). They say how far the figure could move on another sample of "
        "cases like these; over a single case a bootstrap interval is a point: its spread is unknown, not zero.")
    assert "for every figure" not in method_note(None, None)


def test_in_judge_assisted_mode_the_interval_note_names_the_estimators_interval_not_bca():
    # judge-assisted figures take the percentile interval at the expanded level (aggregate_metrics.md §35,
    # judge_assisted.interval), not the human board's BCa: the note said BCa on examples/judgeassist's board
    from rgbench.leaderboard.absent import Shown
    from rgbench.leaderboard.intervals import method_note
    note = method_note("0.950000", 2000, Shown(confidence=False, correctness=False, judge_assisted=True))
    assert "BCa" not in note and "BS" not in note and "\u00a735" in note
    assert "for P, s\u0304 and Q_final the percentile interval at Hesterberg's expanded level" in note
    assert "Wilson interval over the cases with a human grade" in note
    # the interval covers the draw of the answers humans grade as well as the sample of cases (the study's
    # replications redraw both): the note says so in this mode, and only of cases on a human board
    assert "another sample of cases like these and another draw of the answers humans grade;" in note
    assert "humans grade" not in method_note("0.950000", 2000)
    without_pass = method_note("0.950000", 2000, Shown(pass_rule=False, judge_assisted=True))
    assert "for s\u0304 and Q_final the percentile" in without_pass and "Wilson" not in without_pass



def test_no_message_or_page_text_cites_a_document_of_the_toolkits_own_history():
    # An adopter's page and messages are read by people who never saw this project's source documents: a
    # sentence such as "less than the 0.5 of seed 000's check" means nothing to them. Docstrings and comments
    # may cite the seeds; no other string literal (page text, messages) may.
    docstrings = set()
    found = []
    for path in sorted((REPO / "scripts").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    docstrings.add(id(first.value))
        found += [f"{path.name}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                  and re.search(r"\bseeds? \d{3}\b", node.value, re.IGNORECASE)]
    assert found == []


def test_make_metrics_reads_no_result_file_and_writes_what_make_leaderboard_reads_back(tmp_path, monkeypatch):
    """issue 26: the leaderboard is rendered from the results set just computed, in memory; `make leaderboard`
    alone, through the one reader of result files, writes the same bytes."""
    from treebuilder import small_tree

    root = small_tree(tmp_path / "tree").root

    def refuse(root: Path, rel: str):
        raise AssertionError(f"make metrics read the result file {rel}")

    for name, module in list(sys.modules.items()):
        if name.startswith("rgbench") and hasattr(module, "read_result_file"):
            monkeypatch.setattr(module, "read_result_file", refuse)
    assert run_script("metrics", ["--root", str(root)]) == 0
    monkeypatch.undo()
    written = {p.name: p.read_bytes() for p in (root / "results").glob("leaderboard.*")}
    assert sorted(written) == ["leaderboard.csv", "leaderboard.html", "leaderboard.md"]
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    assert {p.name: p.read_bytes() for p in (root / "results").glob("leaderboard.*")} == written


def test_a_manifest_that_lists_no_result_file_is_refused(tmp_path):
    """The manifest says which files are the results; without its `outputs` there is no set to read back."""
    root = make_tree(tmp_path / "tree")
    edit_json(root / "results/manifest.json", lambda manifest: manifest.pop("outputs"))
    files, _, problems = build_leaderboard.build_files(root)
    assert files is None and [str(p) for p in problems] == [
        "results/manifest.json: $.outputs: lists no result file (written by an older toolkit, or by hand; run "
        "`make metrics` to regenerate it)"]
