"""The page's lab views without a browser: refusals of edited or broken lab tables, results without them,
and the source commit (shown only when given, so committed results stay reproducible)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter

import pytest
from test_leaderboard_lab_browser import lab_tree
from treebuilder import REPO, MiniTree, edit_json

from rgbench.cli import run_script
from rgbench.leaderboard.lab_tables import LAB_FILES


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The lab tree with its results, built once; each test works on a copy."""
    return lab_tree(tmp_path_factory.mktemp("lab") / "tree").root


@pytest.fixture
def root(built, tmp_path):
    shutil.copytree(built, tmp_path / "tree")
    return tmp_path / "tree"


def page(root) -> str:
    return (root / "results" / "leaderboard.html").read_text(encoding="utf-8")


def explorer_block(html: str) -> dict:
    """The page's one ``<script type="application/json" id="explorer-data">``, parsed."""
    start = '<script type="application/json" id="explorer-data">'
    assert html.count(start) == 1
    return json.loads(html.split(start, 1)[1].split("</script>", 1)[0])


def test_the_page_shows_the_lab_views(root):
    html = page(root)
    for anchor in ("settings", "cost", "breakdowns", "criteria", "difficulty", "pass-at-k", "tags", "by-case-type",
                   "advanced", "baseline", "explorer", "subjects", "filters"):
        assert f'id="{anchor}"' in html, anchor
    assert 'id="chart-criteria-title"' in html and 'id="chart-difficulty-title"' in html
    assert 'id="chart-pass-at-k-title"' in html
    # the explorer's rows are drawn by page.js from the inline data block (its 4 cases, 16 + 1 runs)
    data = explorer_block(html)
    assert [c[0] for c in data["cases"]["rows"]] == ["RO-FOUL-001", "RO-FOUL-002", "RO-MEMB-001", "RO-SCAL-001"]
    assert len(data["runs"]["rows"]) == 17 and 'class="case-row"' not in html
    assert "not declared" in html


def test_no_subject_takes_an_id_of_the_page(tmp_path):
    """A subject's profile is ``#subject-<id>`` and page.js gives a case's row ``#case-<id>``: the page's own
    ids never begin so, so a subject named like one of them ("filters" and "facets" were ``#subject-filters``
    and ``#subject-facets``) or a case id such as ``types`` (``#case-types``) cannot take its anchor."""
    tree = MiniTree(tmp_path / "tree")
    for sid in ("filters", "facets", "explorer"):
        tree.add_subject(sid, "1", display_name=sid.title(), kind="llm", provider="Acme")
    for case in ("RO-FOUL-001", "RO-FOUL-002"):
        tree.add_gold(case, difficulty=3)
        for sid in ("filters", "facets", "explorer"):
            tree.add_response(sid, case, "r1")
            tree.add_scoring(sid, case, "r1", raw=9)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    ids = Counter(re.findall(r'\bid="([^"]+)"', page(tree.root)))
    assert [name for name, count in ids.items() if count > 1] == []
    profiles = {"subject-filters", "subject-facets", "subject-explorer"}
    assert profiles <= set(ids)
    assert [name for name in ids if name.startswith(("subject-", "case-")) and name not in profiles] == []


def test_an_edited_lab_table_is_refused(root, capsys):
    path = root / "results" / "metrics_per_tag.csv"
    path.write_text(path.read_text().replace("bio", "bioX", 1))
    before = page(root)
    assert run_script("leaderboard", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "results/metrics_per_tag.csv: differs from the file compute_metrics wrote" in err
    assert page(root) == before   # nothing written


def test_a_broken_header_and_a_missing_listed_table_are_refused(root, capsys):
    (root / "results" / "cost_per_subject.csv").write_text("subject,cost\nx,1\n")
    (root / "results" / "cases.csv").unlink()
    assert run_script("leaderboard", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "results/cost_per_subject.csv: differs from the file compute_metrics wrote" in err
    assert "results/cases.csv: missing (this file is required); run `make metrics` to regenerate it" in err


def test_results_without_lab_tables_still_build(root):
    dropped = [name for name in LAB_FILES if name not in ("pass_at_k.csv", "metrics_per_difficulty.csv")]
    for name in dropped:
        (root / "results" / name).unlink()
    edit_json(root / "results/manifest.json", lambda manifest: [manifest["outputs"].pop(name) for name in dropped])
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    html = page(root)
    assert "These results carry no run metadata" in html
    assert "These results carry no per-case tables" in html
    assert 'id="chart-pass-at-k-title"' in html   # pass@k and difficulty come from the statistics


def test_source_commit_is_shown_only_when_given(root, capsys):
    committed = page(root)
    assert "git log -S " in committed and "Source commit" in committed
    assert run_script("leaderboard", ["--root", str(root), "--source-commit", "0123abc"]) == 0
    assert "<code>0123abc</code>" in page(root)
    assert run_script("leaderboard", ["--root", str(root), "--source-commit", "HEAD; rm -rf"]) == 1
    assert "--source-commit: 'HEAD; rm -rf' is not a commit id" in capsys.readouterr().err
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    assert page(root) == committed   # without the option, the same bytes as before


def test_the_criterion_views_use_the_rubrics_scale_and_name_every_tied_weakest(tmp_path):
    # examples/medadvice scores criteria 0-3: its page said "(0-2)" and "Weakest criterion: advice (mean 2.25 of
    # 2)", and picked one of two criteria tied at the minimum (metrics_per_criterion.csv: clinica-7 advice 2.25,
    # safety_netting 2.25; quack-1 triage 1.25, safety_netting 1.25; triage-lite safety_netting 1.25 alone)
    example = REPO / "examples" / "medadvice"
    root = tmp_path / "medadvice"
    for name in ("system", "golds", "responses", "scoring", "subjects"):
        shutil.copytree(example / name, root / name)
    assert run_script("compute", ["--root", str(root)]) == 0
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    html = page(root)
    assert "Weakest criteria: <strong>advice</strong>, <strong>safety netting</strong> (mean 2.25 of 3)." in html
    assert "Weakest criteria: <strong>triage</strong>, <strong>safety netting</strong> (mean 1.25 of 3)." in html
    assert "Weakest criterion: <strong>safety netting</strong> (mean 1.25 of 3)." in html
    assert "Mean score of each criterion (0-3) over the scored runs." in html and "Mean (0-3)" in html
    assert "0-2" not in html and "of 2)" not in html
    # the breakdown intervals are the case-bootstrap BCa intervals of aggregate_metrics.md §30, not percentile ones
    assert "Intervals in parentheses: 95% case-bootstrap BCa intervals over the subject's cases" in html
    assert "percentile" not in html
