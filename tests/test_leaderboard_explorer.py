"""The case explorer's inline data block without a browser (explorer.py explorer_data, script_json): its exact
JSON for a small tree (interned cells, most frequent first), the escapes that keep any string inside the
script element, and what the page holds statically (frames, counts, the noscript sentences, no run HTML)."""

from __future__ import annotations

import json

import pytest
from test_leaderboard_lab import explorer_block
from treebuilder import MiniTree

from rgbench.cli import run_script
from rgbench.commands import leaderboard as build_leaderboard
from rgbench.leaderboard.explorer import explorer_data, script_json

HOSTILE = "</script>\u2028"


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """One subject, two cases, three runs (a Pass, an error, a Fail with a hostile comment)."""
    tree = MiniTree(tmp_path_factory.mktemp("explorer") / "tree")
    tree.add_subject("solo", "1", display_name="Solo <1>", kind="llm", provider="Acme")
    tree.add_gold("RO-FOUL-001", tags=["bio"], difficulty=4, title="Warm & wet")
    tree.add_gold("RO-SCAL-001", difficulty=2)
    tree.add_response("solo", "RO-FOUL-001", "r1")
    tree.add_scoring("solo", "RO-FOUL-001", "r1", raw=12, comments="fine")
    tree.add_response("solo", "RO-FOUL-001", "r2", status="error")
    tree.add_response("solo", "RO-SCAL-001", "r1")
    tree.add_scoring("solo", "RO-SCAL-001", "r1", raw=6, correctness=0.5, comments=HOSTILE)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    files, board, problems = build_leaderboard.build_files(tree.root)
    assert files is not None and board is not None and problems == []
    return board, files["leaderboard.html"].decode("utf-8")


EXPECTED = (
    '{"cases":{"columns":["case_id","family","case_type","difficulty","tags","title","gold_path"],"rows":['
    '["RO-FOUL-001","FOUL","Closed","4","bio","Warm \\u0026 wet","golds/v1.0/RO-FOUL-001_gold.md"],'
    '["RO-SCAL-001","SCAL","Closed","2","","","golds/v1.0/RO-SCAL-001_gold.md"]]},'
    '"runs":{"columns":["subject_id","case_id","run_id","status","participant","reviewer_id","classification",'
    '"raw_score","clipped_score","criterion_scores","fails","correctness","confidence","comments","response_dir",'
    '"response_file","empty_answer"],"rows":[[1,5,6,7,0,8,11,9,9,12,0,13,2,14,3,15,4],'
    '[1,5,16,17,0,0,0,0,0,0,0,0,2,0,3,18,4],[1,19,6,7,0,8,20,10,10,21,0,22,2,23,3,24,4]]},'
    '"strings":["","solo","50","responses/v1.0/solo/","false","RO-FOUL-001","r1","answered","rev-a","12","6","Pass",'
    '"diagnosis=2;evidence=2;causal_reasoning=2;action_plan=2;safety=2;communication=2","1.0","fine",'
    '"RO-FOUL-001__r1.json","r2","error","RO-FOUL-001__r2.json","RO-SCAL-001","Fail",'
    '"diagnosis=2;evidence=2;causal_reasoning=2;action_plan=0;safety=0;communication=0","0.5",'
    '"\\u003c/script\\u003e\\u2028","RO-SCAL-001__r1.json"],'
    '"subjects":[["solo","Solo \\u003c1\\u003e"]]}')


def test_the_data_block_of_a_small_tree(small):
    board, html = small
    assert script_json(explorer_data(board)) == EXPECTED
    assert f'<script type="application/json" id="explorer-data">{EXPECTED}</script>\n<script>' in html
    data = explorer_block(html)
    # each run's cells, back from the interned strings: explorer_runs.csv's, correctness rounded, path cut in two
    cells = [dict(zip(data["runs"]["columns"], (data["strings"][i] for i in row))) for row in data["runs"]["rows"]]
    assert [(c["case_id"], c["run_id"], c["status"], c["classification"], c["correctness"]) for c in cells] == [
        ("RO-FOUL-001", "r1", "answered", "Pass", "1.0"), ("RO-FOUL-001", "r2", "error", "", ""),
        ("RO-SCAL-001", "r1", "answered", "Fail", "0.5")]
    assert cells[2]["comments"] == HOSTILE
    assert cells[2]["response_dir"] + cells[2]["response_file"] == "responses/v1.0/solo/RO-SCAL-001__r1.json"


def test_the_page_holds_frames_not_runs(small):
    _, html = small
    assert 'id="explorer-table"' in html and 'class="case-row"' not in html and "details class=\"run" not in html
    assert '<h4>Runs not passed (1)</h4><ul class="failed-runs" data-runs-of="solo"></ul>' in html
    assert html.count("results/explorer_runs.csv</code>") == 2        # the explorer's and the profile's noscript
    assert "The case explorer needs JavaScript" in html and "This list needs JavaScript" in html
    assert HOSTILE not in html and html.count("</script>") == 2   # the data block's end and the page script's


@pytest.mark.parametrize("text", [
    "</script><script>alert(1)</script>", "<!-- <script>", "a\u2028b\u2029c", "&amp; &lt;", "]]>", "\"'\\",
    "caf\u00e9 \U0001f600"])
def test_script_json_keeps_any_string_inside_the_element(text):
    out = script_json({"s": [text], "k": 1})
    assert json.loads(out) == {"k": 1, "s": [text]}
    assert not set(out) & {"<", ">", "&", "\u2028", "\u2029"}
    assert out.startswith('{"k":1,"s":[')                             # sorted keys, compact separators


def test_script_json_escapes_exactly():
    assert script_json(["</script>", "a&b", "\u2028\u2029", "\u00e9"]) == (
        '["\\u003c/script\\u003e","a\\u0026b","\\u2028\\u2029","\u00e9"]')
