"""The lab views of the page in headless Chromium (issue 15): the case explorer and its filters, the
page-wide filters by subject kind and provider, run settings with "not declared", and the layout at 390 px
(every table scrolls in its own box with the subject column fixed, charts legible, nothing clipped).

Drives Chromium like tests/test_leaderboard_browser.py (its DevTools client); skipped without Chromium.
The tree is built here, so the expected values are known: two LLMs (one with prices), a human panel.
"""

from __future__ import annotations

import json

import pytest
from test_leaderboard_browser import CHROMIUM, DevTools, open_page
from treebuilder import REPO, MiniTree

from rgbench.cli import run_script

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium not found; install it with `apt-get install -y chromium` to run the browser test")

CASES = ("RO-FOUL-001", "RO-FOUL-002", "RO-SCAL-001", "RO-MEMB-001")


def lab_tree(root) -> MiniTree:
    tree = MiniTree(root)
    tree.add_subject("model-a", "1", display_name="Model A with a rather long display name", kind="llm",
                     provider="Acme Labs", temperature=0.2,
                     prices={"input_per_million": 2, "output_per_million": 10, "currency": "USD"})
    tree.add_subject("model-b", "1", display_name="Model B", kind="llm", provider="Borealis AI")
    tree.add_subject("panel", "1", display_name="Panel", kind="human", provider="Committee",
                     participants=[{"participant_id": "ana", "experience_level": "senior"}])
    tree.add_gold("RO-FOUL-001", tags=["bio", "warm"], difficulty=4, title="Warm-water biofouling")
    tree.add_gold("RO-FOUL-002", tags=["bio"], difficulty=2)
    tree.add_gold("RO-SCAL-001", tags=["scale"], case_type="Open", difficulty=3)
    tree.add_gold("RO-MEMB-001", difficulty=5, case_type="Ambiguous")
    usage = {"input_tokens": 1000, "output_tokens": 200}
    for i, case in enumerate(CASES):
        for run_id, raw in (("r1", 12 - i), ("r2", 9 - i)):
            tree.add_response("model-a", case, run_id, usage=usage)
            tree.add_scoring("model-a", case, run_id, raw=raw, comments=f"A on {case} {run_id}: cites the dP trend.")
        tree.add_response("model-b", case, "r1")
        tree.add_scoring("model-b", case, "r1", raw=6 + i)
        tree.add_response("panel", case, "r1", participant="ana")
        tree.add_scoring("panel", case, "r1", raw=11)
    tree.add_response("model-b", "RO-FOUL-001", "r2", status="error")
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    return tree


@pytest.fixture(scope="module")
def lab_page(tmp_path_factory):
    client = DevTools(CHROMIUM, tmp_path_factory.mktemp("lab-profile"))
    try:
        tree = lab_tree(tmp_path_factory.mktemp("lab") / "tree")
        yield client, open_page(client, tree.root / "results" / "leaderboard.html")
    finally:
        client.close()


def js(client, session, body: str):
    return json.loads(client.evaluate(session, f"JSON.stringify((() => {{ {body} }})())"))


def choose(client, session, select_id: str, value: str) -> None:
    js(client, session, f"""const s = document.getElementById({json.dumps(select_id)});
      s.value = {json.dumps(value)}; s.dispatchEvent(new Event("change")); return true;""")


VISIBLE_CASES = """return [...document.querySelectorAll("#explorer-table tr.case-row")]
  .filter(r => r.offsetParent !== null).map(r => r.id.replace("case-", ""));"""
VISIBLE_COLUMNS = """return [...document.querySelectorAll("#explorer-table thead th[data-subject]")]
  .filter(th => th.offsetParent !== null).map(th => th.getAttribute("data-subject"));"""


def test_explorer_shows_each_run_with_its_grade_and_links(lab_page):
    client, session = lab_page
    # a run's details are drawn when it opens (its toggle event, a task after this script)
    js(client, session, """document.querySelector('#case-RO-FOUL-001 td[data-subject="model-a"] details.run').open = true;
      return true;""")
    seen = js(client, session, """
      const row = document.getElementById("case-RO-FOUL-001");
      const cell = row.querySelector('td[data-subject="model-a"]');
      const run = cell.querySelector("details.run");
      const error = row.querySelector('td[data-subject="model-b"] details.run-error');
      return {cases: [...document.querySelectorAll("#explorer-table tr.case-row")].map(r => r.id),
              summary: run.querySelector("summary").textContent, text: run.innerText,
              response: run.querySelector('a[href*="responses/"]').getAttribute("href"),
              gold: row.querySelector("th a").getAttribute("href"),
              error: error && error.querySelector("summary").textContent,
              shownHeight: run.getBoundingClientRect().height};""")
    assert seen["cases"] == [f"case-{c}" for c in sorted(CASES)]
    assert seen["summary"] == "r1 Pass 12"                               # raw 12 on RO-FOUL-001 r1
    assert "A on RO-FOUL-001 r1: cites the dP trend." in seen["text"]    # the reviewer's comments
    assert "diagnosis 2" in seen["text"] and "reviewer rev-a" in seen["text"]
    assert seen["response"] == "../responses/v1.0/model-a/RO-FOUL-001__r1.json"
    assert seen["gold"] == "../golds/v1.0/RO-FOUL-001_gold.md"
    assert seen["error"] == "r2 error" and seen["shownHeight"] > 40


def test_explorer_filters(lab_page):
    client, session = lab_page
    choose(client, session, "explorer-tag", "bio")
    assert js(client, session, VISIBLE_CASES) == ["RO-FOUL-001", "RO-FOUL-002"]
    choose(client, session, "explorer-difficulty", "4")
    assert js(client, session, VISIBLE_CASES) == ["RO-FOUL-001"]
    choose(client, session, "explorer-tag", "")
    choose(client, session, "explorer-difficulty", "")
    choose(client, session, "explorer-type", "Open")
    assert js(client, session, VISIBLE_CASES) == ["RO-SCAL-001"]
    choose(client, session, "explorer-type", "")
    choose(client, session, "explorer-family", "FOUL")
    assert js(client, session, VISIBLE_CASES) == ["RO-FOUL-001", "RO-FOUL-002"]
    choose(client, session, "explorer-family", "")
    choose(client, session, "explorer-subject", "panel")
    assert js(client, session, VISIBLE_COLUMNS) == ["panel"]
    # the panel scores 11 everywhere: Pass on every case, so "did not pass" leaves nothing
    choose(client, session, "explorer-outcome", "not-pass")
    assert js(client, session, VISIBLE_CASES) == []
    # model-b scores 6, 7, 8, 9 (below the Pass threshold 10): every case
    choose(client, session, "explorer-subject", "model-b")
    assert js(client, session, VISIBLE_CASES) == sorted(CASES)
    assert js(client, session, 'return document.getElementById("explorer-count").textContent;') == "4 of 4 cases shown"
    choose(client, session, "explorer-outcome", "")
    choose(client, session, "explorer-subject", "")
    assert len(js(client, session, VISIBLE_COLUMNS)) == 3


def test_subject_kind_and_provider_filters_apply_to_every_table(lab_page):
    client, session = lab_page
    rows = """return [...document.querySelectorAll("#ranked-table tbody tr, #settings-table tbody tr")]
      .filter(r => r.offsetParent !== null).map(r => r.getAttribute("data-subject"));"""
    choose(client, session, "filter-kind", "human")
    assert js(client, session, rows) == ["panel", "panel"]
    assert js(client, session, VISIBLE_COLUMNS) == ["panel"]
    choose(client, session, "filter-kind", "")
    choose(client, session, "filter-provider", "Borealis AI")
    assert set(js(client, session, rows)) == {"model-b"}
    assert js(client, session, 'return document.getElementById("filter-count").textContent;') == "1 of 3 subjects shown"
    choose(client, session, "filter-provider", "")
    assert len(js(client, session, rows)) == 6


def test_settings_cost_and_profiles(lab_page):
    client, session = lab_page
    seen = js(client, session, """
      const row = (table, sid) => document.querySelector(`#${table} tr[data-subject="${sid}"]`).innerText;
      const profile = document.getElementById("subject-model-b");
      location.hash = "#subject-model-b";
      return {panel: row("settings-table", "panel"), a: row("settings-table", "model-a"),
              b: row("settings-table", "model-b"), costA: row("cost-table", "model-a"),
              costB: row("cost-table", "model-b"), profile: profile.textContent,
              baseline: document.getElementById("baseline-table").innerText,
              ranked: document.querySelector('#ranked-table tr[data-subject="model-b"]').innerText};""")
    assert "+1 error" in seen["ranked"]               # next to the runs (N = 4) in the ranked table
    assert "not declared" in seen["panel"]            # no temperature or max tokens for the panel
    assert "0.2" in seen["a"]                          # the registry's temperature
    assert seen["b"].rstrip().endswith("1")            # one error run, out of N
    # model-a: 8 runs x (1000 x 2 + 200 x 10) / 10^6 = 8 x 0.004 = 0.032 USD; 3 Pass runs (12, 11, 10)
    # -> cost per Pass 0.032 / 3 = 0.010667 (6 decimals, as in the CSV)
    assert "0.032000 USD" in seen["costA"] and "0.010667 USD" in seen["costA"]
    assert "not declared" in seen["costB"]
    assert "Runs not passed (4)" in seen["profile"] and "Weakest criterion" in seen["profile"]
    assert "mean of the participants" in seen["baseline"]
    # following a link to a profile opens it
    assert js(client, session, 'return document.getElementById("subject-model-b").open;') is True


NARROW = """
  const boxes = [...document.querySelectorAll("table")].map(t => {
    const box = t.closest(".scroll");
    return {id: t.id, boxed: !!box, boxWidth: box ? box.getBoundingClientRect().width : null,
            boxRight: box ? box.getBoundingClientRect().right : null};
  });
  const cards = [...document.querySelectorAll("section.card, header, footer")].map(s => s.getBoundingClientRect().right);
  const charts = [...document.querySelectorAll("svg.chart")].map(s => s.getBoundingClientRect().width);
  const box = document.querySelector("#explorer-table").closest(".scroll");
  box.scrollLeft = 0;
  const before = document.querySelector("#case-RO-FOUL-001 th").getBoundingClientRect().left;
  box.scrollLeft = 250;
  const first = document.querySelector("#case-RO-FOUL-001 th").getBoundingClientRect();
  const cell = document.querySelector('#case-RO-FOUL-001 td[data-subject="model-a"]').getBoundingClientRect();
  const settings = document.querySelector("#settings-table").closest(".scroll");
  settings.scrollLeft = 400;
  const subject = document.querySelector('#settings-table tr[data-subject="panel"] th').getBoundingClientRect();
  return {width: innerWidth, page: document.documentElement.scrollWidth, boxes, cards, charts,
          explorerScrolls: box.scrollWidth > box.clientWidth, scrolled: box.scrollLeft, before,
          stuck: first.left - box.getBoundingClientRect().left, firstRight: first.right, cellLeft: cell.left,
          settingsScrolled: settings.scrollLeft, settingsStuck: subject.left - settings.getBoundingClientRect().left};
"""


def test_narrow_layout_at_390_px(lab_page):
    client, session = lab_page
    client.send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1,
                                                       "mobile": True}, session)
    try:
        seen = js(client, session, NARROW)
    finally:
        client.send("Emulation.clearDeviceMetricsOverride", {}, session)
    assert seen["width"] == 390
    assert seen["page"] <= 390                                   # the page itself never scrolls sideways
    assert all(b["boxed"] and b["boxRight"] <= 390 for b in seen["boxes"]), seen["boxes"]
    assert all(right <= 390 for right in seen["cards"])          # no card clipped at the right edge
    assert all(width >= 300 for width in seen["charts"])         # charts keep a legible size (they scroll in a box)
    assert seen["explorerScrolls"] and seen["scrolled"] > 0      # the explorer scrolls inside its own box
    assert abs(seen["stuck"]) <= 1                               # the case column stays at the box's left edge
    assert seen["settingsScrolled"] > 0 and abs(seen["settingsStuck"]) <= 1   # so does the subject column


def test_a_benchmark_of_one_case_counts_it_in_the_singular(tmp_path):
    # page.js wrote "1 of 1 cases shown" for a benchmark with a single case
    tree = MiniTree(tmp_path / "tree")
    tree.add_subject("model-a", "1", display_name="Model A")
    tree.add_gold("RO-FOUL-001")
    tree.add_run("model-a", "RO-FOUL-001", raw=12)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    client = DevTools(CHROMIUM, tmp_path / "profile")
    try:
        session = open_page(client, tree.root / "results" / "leaderboard.html")
        assert js(client, session, 'return document.getElementById("explorer-count").textContent;') == (
            "1 of 1 case shown")
    finally:
        client.close()


def test_the_committed_page_never_scrolls_sideways_at_390_px(tmp_path):
    # The Reviewers section's tables (reviewers.csv, and judge_agreement.csv when a judge grades; not in the lab
    # tree, which runs no aggregate_scoring) sat outside a scroll box: at 390 px the sample page was 718 px wide.
    # Whatever the benchmark (a fork's page may have one table or none), every one of them scrolls in its box.
    client = DevTools(CHROMIUM, tmp_path / "profile")
    try:
        session = open_page(client, REPO / "results" / "leaderboard.html")
        client.send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1,
                                                           "mobile": True}, session)
        seen = js(client, session, """return {page: document.documentElement.scrollWidth,
          reviewers: [...document.querySelectorAll("#reviewers table")].map(t => !!t.closest(".scroll"))};""")
    finally:
        client.close()
    assert seen["page"] == 390 and all(seen["reviewers"]), seen
