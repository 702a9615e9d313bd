"""Boards of 100-200 subjects (issue 23): a 150-subject tree through the whole of `make metrics` and `make check`.

scripts/make_synthetic.py writes 150 subjects x 4 cases x 1 run (600 runs: small, so that the board's own size,
not the runs, dominates), two of them with display names full of Markdown markup. Then:

- `make metrics` and `make check` exit 0 and print no library warning (only the benchmark's own
  ``warning:`` lines about its data);
- no file of results/ outgrows the per-run table beyond the stated rule (:func:`size_budget`);
- the page's and the Markdown's long lists give the count, the CSV that holds every item and the first five;
  the charts draw the first subjects and say so;
- display names read as written: escaped for HTML in the page (never a Markdown escape), and rendered back to
  themselves from the Markdown.

Also, without a tree: a heatmap of one column beside long labels draws without matplotlib's constrained-layout
warning (a one-criterion rubric or a one-family benchmark made `make metrics` warn).
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import make_synthetic
import pytest
from markdown_it import MarkdownIt

from rgbench.leaderboard.chart_limits import CHART_SUBJECTS, LINE_SUBJECTS
from rgbench.leaderboard.charts import Chart, draw_families
from rgbench.leaderboard.lab_charts import draw_criteria
from rgbench.leaderboard.markdown import md_text

REPO = Path(__file__).resolve().parent.parent
SUBJECTS, CASES = 150, 4
NAMES = {"synth-001": "ref.A (human reference)", "synth-002": "a*b* [c] #1 <x> & y_z | w ~~s~~"}
KIB = 1024


def size_budget(name: str, per_run: int, subjects: int) -> int:
    """The most bytes a file of results/ may hold: three times per_run.csv (the files that grow with the runs:
    the explorer's table, the page's inline copy of it), plus a fixed part and a part per subject (the tables
    with a row per subject, the page's rows and profiles and its charts of at most CHART_SUBJECTS subjects),
    plus a part per pair of subjects for the two tables with a row per pair (pairwise.csv, every pair's test;
    rank_stability.csv, every ranked pair's crossing and swap share)."""
    pairs = subjects * (subjects - 1) // 2
    if name == "leaderboard.html":
        return 3 * per_run + 1024 * KIB + 20 * KIB * subjects
    budget = 3 * per_run + 64 * KIB + 2 * KIB * subjects
    return budget + 200 * pairs if name in ("pairwise.csv", "rank_stability.csv") else budget


def run(script: str, root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "scripts" / script), "--root", str(root)],
                          capture_output=True, text=True)


def assert_no_library_output(stderr: str) -> None:
    """stderr holds only the benchmark's own ``warning:`` lines (about its data), no Python warning or traceback."""
    assert not re.search(r"\b[A-Z][A-Za-z]*Warning\b|Traceback", stderr), stderr
    assert all(line.startswith("warning: ") for line in stderr.splitlines()), stderr


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("large") / "tree"
    root.mkdir()
    make_synthetic.build(root, subjects=SUBJECTS, cases=CASES, runs=1, seed=0)
    registry = root / "subjects/registry.yaml"
    text = registry.read_text()
    for sid, name in NAMES.items():
        text = re.sub(rf'(subject_id: "{sid}"\n(?:    .*\n)*?    kind: "llm"\n)', rf'\1    display_name: "{name}"\n', text)
    registry.write_text(text)
    done = run("metrics.py", root)
    assert done.returncode == 0, done.stderr
    assert_no_library_output(done.stderr)
    return root


def test_make_check_passes_without_library_warnings(board):
    done = run("check_results.py", board)
    assert done.returncode == 0, done.stderr
    assert_no_library_output(done.stderr)


def test_every_result_file_stays_within_its_size_budget(board):
    results = board / "results"
    sizes = {path.name: path.stat().st_size for path in results.iterdir() if path.is_file()}
    per_run = sizes["per_run.csv"]
    over = {name: (size, size_budget(name, per_run, SUBJECTS)) for name, size in sizes.items()
            if size > size_budget(name, per_run, SUBJECTS)}
    assert not over, f"per_run.csv is {per_run} bytes; over budget: {over}"
    # the manifest records a digest per subject folder, not per file: about one line per subject folder and gold
    assert sizes["manifest.json"] < 200 * (2 * SUBJECTS + CASES) + 64 * KIB


def test_long_lists_give_the_count_the_csv_and_the_first_five(board):
    page = (board / "results/leaderboard.html").read_text()
    md = (board / "results/leaderboard.md").read_text()
    # 150 subjects in the footer's N per subject
    assert (f"<dt>Scored runs</dt><dd>{SUBJECTS} subjects (all in results/metrics_per_subject.csv, columns N and "
            "n_cases); the first 5: ") in page
    # every neighbouring pair's swap share: ranked subjects - 1 pairs
    alpha = re.search(r'<p class="note" id="alpha-sensitivity">(.*?)</p>', page, re.S).group(1)
    assert re.search(r"cannot order them\): \d+ pairs \(all in results/rank_stability\.csv\); the first 5: #1 ", alpha)
    assert alpha.count('class="name-ref"') <= 2 * 5 + 2 * 3 * 11   # five pairs; at most 11 stretches of the top 3
    calibration = re.search(r'<p class="note" id="calibration-reading">(.*?)</p>', page, re.S).group(1)
    assert re.search(r"\d+ subjects \(all in results/metrics_per_subject\.csv, columns ECE, ECE_low and "
                     r"ECE_high\); the first 5: ", calibration)
    assert calibration.count('class="name-ref"') <= 2 * 5
    # the Markdown: the same paragraphs, and the incomplete subject versions as a count and five lines
    assert re.search(r"cannot order them\): \d+ pairs \(all in results/rank_stability\.csv\); the first 5: ", md)
    incomplete = re.search(r"\*\*Incomplete\*\* [^\n]*\n(\d+) subject versions \(all in results/leaderboard\.csv, "
                           r"column leaderboard_status\); the first 5:\n((?:- .*\n)+)", md)
    assert incomplete and int(incomplete.group(1)) > 5 and incomplete.group(2).count("\n") == 5


def test_charts_draw_the_first_subjects_and_say_so(board):
    page = (board / "results/leaderboard.html").read_text()
    scored = SUBJECTS  # every synthetic subject has scored runs
    assert len(re.findall(r'<title id="chart-calibration-\d+-title">', page)) == CHART_SUBJECTS
    assert page.count(f"Drawn: the first {CHART_SUBJECTS} of {scored} scored subjects, in leaderboard order") == 4
    assert page.count(f"Drawn: the first {LINE_SUBJECTS} of {scored} scored subjects, in leaderboard order") == 2


def test_display_names_read_as_written(board):
    page = (board / "results/leaderboard.html").read_text()
    md = (board / "results/leaderboard.md").read_text()
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)
    assert md_text(NAMES["synth-001"]) == NAMES["synth-001"]   # nothing in it is markup inside a line
    for sid, name in NAMES.items():
        assert f'<a class="profile-link" href="#subject-{sid}">{html.escape(name)}</a>' in page   # the ranked table
        assert f"| {md_text(name)} |" in md
        assert f"<td>{html.escape(name, quote=False)}</td>" in rendered
    assert "\\(" not in md and md_text(NAMES["synth-002"]) not in page


@pytest.mark.parametrize("draw", ["criteria", "families"])
def test_a_one_column_heatmap_beside_long_labels_draws_without_a_warning(draw):
    # 36 characters, the longest a label gets ("#123  " + a name cut to 30), of wide letters; one criterion (a 0-100
    # score) or one family: the figure was 2.85 in (criteria) or 3.85 in (families) wide, too narrow for the labels
    # (3.7 in) and the colour bar
    labels = [f"#{i}  " + "WIDE MODEL MMMMWWWW " + "M" * 10 for i in range(100, 105)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if draw == "criteria":
            svg = draw_criteria(Chart("chart-criteria", "c", (("win_rate",), tuple((label, (50.0,)) for label in labels),
                                                              (0, 100, True))))
        else:
            svg = draw_families(Chart("families", "f", ((("A", "Family A"),),
                                                        tuple((label, ((Fraction(1, 2), 3, 3),)) for label in labels))))
    assert svg.startswith("<svg")
