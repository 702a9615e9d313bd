"""The case explorer and the profiles' "Runs not passed" lists, drawn on demand by page.js from the page's
inline data block, in headless Chromium: one page of cases at a time, a run's details drawn when it opens, a
profile's list drawn when the profile opens, a link from a profile to a case on another page, and hostile
strings from the data (comments, titles, paths) shown as text.

Drives Chromium like tests/test_leaderboard_browser.py (its DevTools client); skipped without Chromium.
"""

from __future__ import annotations

import hashlib
import re

import pytest
from test_leaderboard_browser import CHROMIUM, DevTools, open_page
from test_leaderboard_lab_browser import VISIBLE_CASES, choose, js
from treebuilder import MiniTree, edit_json

from rgbench.cli import run_script

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium not found; install it with `apt-get install -y chromium` to run the browser test")

# 30 FOUL and 30 SCAL cases: 60 in cases.csv order, more than one page (50 cases with 2 subject columns)
PAGED = [f"RO-FOUL-{i:03d}" for i in range(1, 31)] + [f"RO-SCAL-{i:03d}" for i in range(1, 31)]
MISSED = "RO-SCAL-025"          # the 55th case (page 2): alpha's only run not passed
BLANK = "RO-FOUL-003"           # alpha's answer is empty (issue 23): graded, and marked "(empty answer)"
HOSTILE_COMMENT = "</script><script>alert(1)</script><!-- \u2028line\u2029para & <b>bold</b>"
HOSTILE_TITLE = '<img src=x onerror="alert(2)">'


def paged_tree(root) -> MiniTree:
    tree = MiniTree(root)
    tree.add_subject("alpha", "1", display_name="Alpha", kind="llm", provider="Acme")
    tree.add_subject("beta", "1", display_name="Beta", kind="llm", provider="Acme")
    for case in PAGED:
        tree.add_gold(case, difficulty=3)
        for sid in ("alpha", "beta"):
            tree.add_response(sid, case, "r1", **({"response_text": ""} if (sid, case) == ("alpha", BLANK) else {}))
            raw = 5 if (sid, case) == ("alpha", MISSED) else 11
            tree.add_scoring(sid, case, "r1", raw=raw, comments=f"{sid} on {case}: checked.")
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    return tree


def rewrite_output(tree: MiniTree, name: str, old: str, new: str) -> None:
    """Edit one results table (a path no loader would write) and record its new sha256 in the manifest, as a
    hostile pull request could."""
    path = tree.root / "results" / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_bytes(text.replace(old, new).encode("utf-8"))
    edit_json(tree.root / "results/manifest.json",
              lambda manifest: manifest["outputs"].update({name: hashlib.sha256(path.read_bytes()).hexdigest()}))


def hostile_tree(root) -> MiniTree:
    tree = MiniTree(root)
    tree.add_subject("evil", "1", display_name="Evil", kind="llm", provider="Acme")
    tree.add_gold("RO-FOUL-001", difficulty=3, title=HOSTILE_TITLE)
    tree.add_gold("RO-FOUL-002", difficulty=2)
    tree.add_gold("RO-FOUL-003", difficulty=2)
    for case in ("RO-FOUL-001", "RO-FOUL-002", "RO-FOUL-003"):
        tree.add_response("evil", case, "r1")
        tree.add_scoring("evil", case, "r1", raw=4, comments=HOSTILE_COMMENT)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    rewrite_output(tree, "explorer_runs.csv", "responses/v1.0/evil/RO-FOUL-001__r1.json", "javascript:alert(3)")
    rewrite_output(tree, "explorer_runs.csv", "responses/v1.0/evil/RO-FOUL-002__r1.json", "/etc/passwd")
    rewrite_output(tree, "cases.csv", "golds/v1.0/RO-FOUL-002_gold.md", "javascript:alert(4)")
    # relative, but out of the checkout: to another page of the same site
    rewrite_output(tree, "explorer_runs.csv", "responses/v1.0/evil/RO-FOUL-003__r1.json", "../../elsewhere/phish.html")
    rewrite_output(tree, "cases.csv", "golds/v1.0/RO-FOUL-003_gold.md", "golds/v1.0/../../x.md")
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    return tree


def wide_tree(root, n_subjects: int = 40, n_cases: int = 30) -> MiniTree:
    """Many subjects, one run each per case: the explorer shows fewer cases a page when all are columns."""
    tree = MiniTree(root)
    subjects = [f"s{i:02d}" for i in range(n_subjects)]
    for sid in subjects:
        tree.add_subject(sid, "1", display_name=sid.upper(), kind="llm", provider="Acme")
    for i in range(1, n_cases + 1):
        case = f"RO-FOUL-{i:03d}"
        tree.add_gold(case, difficulty=3)
        for sid in subjects:
            tree.add_response(sid, case, "r1")
            tree.add_scoring(sid, case, "r1", raw=10)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    return tree


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    client = DevTools(CHROMIUM, tmp_path_factory.mktemp("explorer-profile"))
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="module")
def paged(browser, tmp_path_factory):
    tree = paged_tree(tmp_path_factory.mktemp("paged") / "tree")
    return browser, open_page(browser, tree.root / "results" / "leaderboard.html")


@pytest.fixture(scope="module")
def hostile(browser, tmp_path_factory):
    tree = hostile_tree(tmp_path_factory.mktemp("hostile") / "tree")
    html = (tree.root / "results" / "leaderboard.html").read_text(encoding="utf-8")
    return browser, open_page(browser, tree.root / "results" / "leaderboard.html"), html


PAGER = """return {rows: [...document.querySelectorAll("#explorer-table tr.case-row")].map(r => r.id.replace("case-", "")),
  count: document.getElementById("explorer-count").textContent,
  page: document.getElementById("explorer-page").textContent,
  pagerShown: document.getElementById("explorer-pager").offsetParent !== null,
  prev: document.getElementById("explorer-prev").disabled, next: document.getElementById("explorer-next").disabled,
  runs: document.querySelectorAll("#explorer-table details.run").length,
  drawnBodies: document.querySelectorAll("#explorer-table details.run > :not(summary)").length};"""


def test_cases_come_a_page_at_a_time(paged):
    client, session = paged
    first = js(client, session, PAGER)
    assert first["rows"] == PAGED[:50] and first["count"] == "60 of 60 cases shown"
    assert first["pagerShown"] and first["page"] == "cases 1\u201350 of 60 (page 1 of 2)"
    assert first["prev"] is True and first["next"] is False
    assert first["runs"] == 100 and first["drawnBodies"] == 0       # summaries only: nothing opened yet
    js(client, session, 'document.getElementById("explorer-next").click(); return true;')
    second = js(client, session, PAGER)
    assert second["rows"] == PAGED[50:] and second["page"] == "cases 51\u201360 of 60 (page 2 of 2)"
    assert second["prev"] is False and second["next"] is True and second["runs"] == 20
    # a filter starts again at its first page; the count is of the cases matching it
    choose(client, session, "explorer-family", "SCAL")
    scal = js(client, session, PAGER)
    assert scal["rows"] == PAGED[30:] and scal["count"] == "30 of 60 cases shown" and not scal["pagerShown"]
    choose(client, session, "explorer-family", "")
    # one subject: one column; "did not pass" leaves alpha's one case
    choose(client, session, "explorer-subject", "alpha")
    choose(client, session, "explorer-outcome", "not-pass")
    assert js(client, session, VISIBLE_CASES) == [MISSED]
    choose(client, session, "explorer-outcome", "")
    choose(client, session, "explorer-subject", "")
    assert js(client, session, PAGER)["rows"] == PAGED[:50]


def test_a_run_is_drawn_when_opened(paged):
    client, session = paged
    js(client, session, """document.querySelector('#case-RO-FOUL-002 td[data-subject="beta"] details.run').open = true;
      return true;""")
    seen = js(client, session, """const run = document.querySelector('#case-RO-FOUL-002 td[data-subject="beta"] details.run');
      return {text: run.innerText, response: run.querySelector("a").getAttribute("href"),
              drawn: document.querySelectorAll("#explorer-table details.run[data-drawn]").length};""")
    assert "beta on RO-FOUL-002: checked." in seen["text"] and "reviewer rev-a" in seen["text"]
    assert seen["response"] == "../responses/v1.0/beta/RO-FOUL-002__r1.json" and seen["drawn"] == 1


def test_a_profile_lists_its_runs_when_opened_and_links_to_the_case(paged):
    client, session = paged
    choose(client, session, "explorer-family", "FOUL")     # hides the case: following the link clears it
    before = js(client, session, """const p = document.getElementById("subject-alpha");
      return {items: p.querySelectorAll("ul.failed-runs li").length, text: p.textContent};""")
    assert before["items"] == 0 and "Runs not passed (1)" in before["text"]
    js(client, session, 'document.getElementById("subject-alpha").open = true; return true;')
    items = js(client, session, """return [...document.querySelectorAll("#subject-alpha ul.failed-runs li")]
      .map(li => [li.textContent, li.querySelector("a").getAttribute("href")]);""")
    assert items == [[f"{MISSED} r1: Fail (5) \u2014 alpha on {MISSED}: checked.", f"#case-{MISSED}"]]
    js(client, session, 'document.querySelector("#subject-alpha ul.failed-runs a").click(); return true;')
    shown = js(client, session, f"""const row = document.getElementById("case-{MISSED}");
      const run = row && row.querySelector('td[data-subject="alpha"] details.run');
      const box = row && row.getBoundingClientRect();
      return {{hash: location.hash, family: document.getElementById("explorer-family").value,
              subject: document.getElementById("explorer-subject").value, shown: !!row && row.offsetParent !== null,
              inView: !!box && box.top >= 0 && box.bottom <= innerHeight, target: !!row && row.classList.contains("case-target"),
              open: !!run && run.open, text: run ? run.innerText : "",
              page: document.getElementById("explorer-page").textContent}};""")
    assert shown["hash"] == f"#case-{MISSED}" and shown["family"] == "" and shown["subject"] == "alpha"
    assert shown["shown"] and shown["inView"] and shown["target"]
    assert shown["open"] and f"alpha on {MISSED}: checked." in shown["text"]
    choose(client, session, "explorer-subject", "")


def test_an_empty_answer_is_marked(paged):
    client, session = paged
    choose(client, session, "explorer-family", "FOUL")       # its first page holds the case, whatever page was shown
    js(client, session, f"""document.querySelector('#case-{BLANK} td[data-subject="alpha"] details.run').open = true;
      return true;""")
    seen = js(client, session, f"""const cell = (s) => '#case-{BLANK} td[data-subject="' + s + '"] details.run';
      const run = (s) => document.querySelector(cell(s));
      return {{alpha: run("alpha").querySelector("summary").textContent, body: run("alpha").textContent,
              beta: run("beta").textContent, marks: document.querySelectorAll("#explorer-table .empty-answer").length}};""")
    choose(client, session, "explorer-family", "")
    assert seen["alpha"].endswith("(empty answer)") and "Pass" in seen["alpha"]     # graded like any answer
    assert "reviewer rev-a" in seen["body"] and seen["body"].count("(empty answer)") == 2   # summary and details
    assert "(empty answer)" not in seen["beta"] and seen["marks"] == 1


def test_hostile_strings_are_text(hostile):
    client, session, html = hostile
    # in the page's bytes: no string can close the data block; the separators are escaped too
    block = html.split('<script type="application/json" id="explorer-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block and ">" not in block and "&" not in block
    assert "\u2028" not in html and "\u2029" not in html and "\\u2028line\\u2029para" in block
    js(client, session, """document.querySelectorAll("#explorer-table details.run").forEach(d => { d.open = true; });
      document.getElementById("subject-evil").open = true; return true;""")
    seen = js(client, session, """const run = (c) => document.querySelector(`#case-${c} details.run`);
      return {alerts: window.__alerts, scripts: [...document.scripts].map(s => s.type || "script"),
              images: document.images.length, bolds: document.querySelectorAll("main b").length,
              comment: run("RO-FOUL-001").querySelector("blockquote").textContent,
              title: document.querySelector("#case-RO-FOUL-001 .case-title").textContent,
              links: [...document.querySelectorAll("#explorer a, #subjects a")].map(a => a.getAttribute("href")),
              refused: [...document.querySelectorAll("#explorer .refused-path")].map(s => s.textContent),
              profile: document.querySelector("#subject-evil ul.failed-runs").textContent};""")
    assert seen["alerts"] == [] and seen["images"] == 0 and seen["bolds"] == 0
    assert seen["scripts"] == ["application/json", "script"]          # the inert data block and the page's own
    assert seen["comment"] == HOSTILE_COMMENT and seen["title"] == HOSTILE_TITLE
    assert HOSTILE_COMMENT in seen["profile"]
    assert not [h for h in seen["links"] if not h.startswith(("#", "../"))]
    assert "../golds/v1.0/RO-FOUL-001_gold.md" in seen["links"]
    assert not [h for h in seen["links"] if "javascript" in h or "passwd" in h]
    assert sorted(seen["refused"]) == ["RO-FOUL-002 (not a relative path: javascript:alert(4))",
                                       "RO-FOUL-003 (not a relative path: golds/v1.0/../../x.md)",
                                       "response (not a relative path: ../../elsewhere/phish.html)",
                                       "response (not a relative path: /etc/passwd)",
                                       "response (not a relative path: javascript:alert(3))"]
    assert not [h for h in seen["links"] if "/../" in h[3:] or "phish" in h]
    assert not [e for e in client.events if e.get("method") == "Page.javascriptDialogOpening"]


def test_many_subject_columns_make_shorter_pages(browser, tmp_path_factory):
    tree = wide_tree(tmp_path_factory.mktemp("wide") / "tree")
    session = open_page(browser, tree.root / "results" / "leaderboard.html")
    wide = js(browser, session, PAGER)
    # 40 columns: 1000 // 40 = 25 cases a page (about 1,000 cells), not 50
    assert len(wide["rows"]) == 25 and wide["runs"] == 25 * 40 and wide["page"] == "cases 1\u201325 of 30 (page 1 of 2)"
    choose(browser, session, "explorer-subject", "s07")
    one = js(browser, session, PAGER)
    assert len(one["rows"]) == 30 and one["runs"] == 30 and not one["pagerShown"]


def test_the_explorer_shows_only_what_the_benchmark_records(browser, tmp_path_factory):
    """Issue 23: a benchmark without confidence, correctness, difficulty or pass rule. The data block leaves those
    columns out and page.js reads only the columns it names: a scored run shows its clipped score (no
    classification) and is not taken for an unscored one, and its details and the case rows name no correctness,
    confidence or difficulty."""
    import make_synthetic
    from treebuilder import LIBRARY_ROOT

    out = tmp_path_factory.mktemp("absent") / "tree"
    assert make_synthetic.main(["--subjects", "2", "--cases", "4", "--runs", "1", "--seed", "3", "--out", str(out),
                                "--root", str(LIBRARY_ROOT), "--no-confidence", "--no-correctness", "--no-difficulty",
                                "--no-pass-rule"]) == 0
    assert run_script("compute", ["--root", str(out)]) == 0
    assert run_script("leaderboard", ["--root", str(out)]) == 0
    session = open_page(browser, out / "results" / "leaderboard.html")
    js(browser, session, 'document.querySelectorAll("#explorer-table details.run").forEach(d => { d.open = true; });'
                         " return true;")
    seen = js(browser, session, """const runs = [...document.querySelectorAll("#explorer-table details.run")];
      return {summaries: runs.map(d => d.querySelector("summary").textContent), classes: runs.map(d => d.className),
              texts: runs.map(d => d.innerText),
              idents: [...document.querySelectorAll("#explorer-table .case-col .ident")].map(s => s.textContent)};""")
    scored = [i for i, s in enumerate(seen["summaries"]) if "unscored" not in s]
    assert scored and all(re.fullmatch(r"r1 \d+", seen["summaries"][i]) for i in scored), seen["summaries"]
    assert all(seen["classes"][i] == "run run-scored" for i in scored)
    assert all("raw " in seen["texts"][i] and "reviewer " in seen["texts"][i] for i in scored)
    assert not [t for t in seen["texts"] if "correctness" in t or "confidence" in t]
    assert seen["idents"] and all(i in ("Closed", "Open", "Ambiguous") for i in seen["idents"])
