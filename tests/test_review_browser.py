"""The grading page in a real browser: headless Chromium driven by Selenium through Debian's chromedriver.

A reviewer grades one run end to end with the keyboard and the file written is exactly the expected
scoring; an invalid form shows the validator's message and writes nothing; a request without the
token is refused; the blind page shows nothing of the subject's identity. Skipped, saying how to
install them, when Chromium, chromedriver or Selenium is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from treebuilder import REPO, MiniTree

from rgbench.commands.review import open_app
from rgbench.load.loader import load_tree
from rgbench.load.spec import load_spec
from rgbench.review.runs import ERROR_RUN, run_handle
from rgbench.review.server import ReviewApp, make_server, url

selenium = pytest.importorskip("selenium", reason="selenium not installed (pip install -r requirements.txt)")
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Chromium or chromedriver not found; install them with `apt-get install -y chromium chromium-driver` "
           "(bash .ci/run does) to run the grading-page browser tests")

SUBJECT, VERSION, DISPLAY = "zq-secret-model", "7.7.7-zq", "Quokkatron Zeta"
RESPONSE_TEXT = ("**Diagnosis:** biofouling of the stage-1 lead elements.\n\n"
                 "Plan: shock-chlorinate the RO train to kill the biofilm, then clean at pH 11.")
REVIEWERS = ("reviewers:\n  - id: rev-a\n    name: \"Reviewer A\"\n    kind: human\n"
             "  - id: judge-x\n    name: \"Judge X\"\n    kind: llm-judge\n")


def grading_tree(root: Path) -> MiniTree:
    tree = MiniTree(root)
    tree.add_subject(SUBJECT, VERSION, display_name=DISPLAY)
    tree.add_gold("RO-FOUL-001", title="Stage-1 dP rise")
    tree.add_response(SUBJECT, "RO-FOUL-001", "r1", 80, response_text=RESPONSE_TEXT)
    tree.write("subjects/reviewers.yaml", REVIEWERS)
    return tree


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1600,1000", f"--user-data-dir={tmp_path_factory.mktemp('profile')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


@contextmanager
def serving(root: Path, blind: bool = True, reviewer: str = "rev-a") -> Iterator[tuple[ReviewApp, str]]:
    app, problems = open_app(root, reviewer, blind=blind)
    assert app is not None, problems
    server = make_server(app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield app, url(app, server)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MiniTree, ReviewApp, str]]:
    tree = grading_tree(tmp_path / "tree")
    with serving(tree.root) as (app, start):
        yield tree, app, start


def scoring_files(root: Path) -> list[Path]:
    return sorted(p for folder in ("scoring", "scoring_multi") for p in (root / folder).rglob("*") if p.is_file())


def open_first_run(driver: webdriver.Chrome, start: str) -> None:
    driver.get(start)
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "next"))
    driver.switch_to.active_element.send_keys("n")  # the queue focuses "next"; n opens it
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.ID, "grade"))


def messages(driver: webdriver.Chrome) -> list[str]:
    """The page's messages as shown, read in one script call: the page rebuilds the list on every check, and reading
    element by element could meet an item it had just replaced (a stale reference, seen in `make test-slow`)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#messages li'), item => item.innerText.trim())")


def test_grade_one_run_end_to_end_with_the_keyboard(browser: webdriver.Chrome, served, capsys) -> None:
    tree, app, start = served
    open_first_run(browser, start)
    # the first criterion has the focus, once the page's script has built the form (asking earlier can meet an
    # element the script has just replaced: a stale reference, seen under load in CI)
    WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: d.switch_to.active_element.get_attribute("data-criterion") == "diagnosis")
    for digit in "212210":  # each digit sets the focused criterion and moves on
        browser.switch_to.active_element.send_keys(digit)
    browser.switch_to.active_element.send_keys("5")  # correctness 0.5
    browser.find_element(By.CSS_SELECTOR, "input[name=fail][value=AF-CHLORINE-EXPOSURE]").click()
    browser.switch_to.active_element.send_keys("shock-chlorinate the RO train")  # the evidence box took focus
    WebDriverWait(browser, 10).until(lambda d: messages(d) == [])
    browser.find_element(By.ID, "comments").send_keys("Right cause, harmful plan.")
    browser.switch_to.active_element.send_keys(Keys.CONTROL, Keys.ENTER)
    target = tree.root / f"scoring/v1.0/{SUBJECT}/RO-FOUL-001__r1__eval-rev-a.json"
    WebDriverWait(browser, 10).until(lambda d: target.exists() and "/run/" not in d.current_url)
    expected = {
        "automatic_fails_triggered": [{"code": "AF-CHLORINE-EXPOSURE", "evidence": "shock-chlorinate the RO train",
                                       "severity": "critical"}],
        "blind": True,
        "case_id": "RO-FOUL-001",
        "comments": "Right cause, harmful plan.",
        "correctness": 0.5,
        "criterion_scores": {"action_plan": 2, "causal_reasoning": 2, "communication": 0, "diagnosis": 2,
                             "evidence": 1, "safety": 1},
        "gold_sha256": tree.sha256("golds/v1.0/RO-FOUL-001_gold.md"),
        "response_sha256": tree.sha256(f"responses/v1.0/{SUBJECT}/RO-FOUL-001__r1.json"),
        "reviewer_id": "rev-a",
        "run_id": "r1",
        "schema_version": "1.0",
        "subject_id": SUBJECT,
        "subject_version": VERSION,
    }
    data = target.read_text(encoding="utf-8")
    assert json.loads(data) == expected
    assert data == json.dumps(expected, indent=2, sort_keys=True, ensure_ascii=False) + "\n"  # canonical bytes
    assert scoring_files(tree.root) == [target]
    assert "Nothing left to grade" in browser.page_source  # the queue is empty: the run left it
    # blind: the terminal names the grade by case, run and handle, not by its path (which names the subject)
    handle = run_handle("rev-a", (SUBJECT, "RO-FOUL-001", "r1"))
    assert capsys.readouterr().err == f"saved your grade of RO-FOUL-001 run r1 (run {handle})\n"
    assert app.saved == [f"your grade of RO-FOUL-001 run r1 (run {handle})"]   # what the summary on Ctrl+C lists
    spec, _ = load_spec(tree.root)
    assert spec is not None
    loaded, problems = load_tree(tree.root, spec)
    assert problems == [] and loaded is not None and len(loaded.scorings) == 1  # the gate accepts it


def test_messages_come_after_a_save_attempt_in_plain_words_each_with_its_fix(browser: webdriver.Chrome,
                                                                             served) -> None:
    # issue 27: seven schema-worded messages showed as soon as a run opened
    tree, app, start = served
    open_first_run(browser, start)
    for digit in "2122":  # four of six criteria, no correctness
        browser.switch_to.active_element.send_keys(digit)
    time.sleep(0.5)   # the page used to check the form 150 ms after each change
    assert messages(browser) == [] and browser.find_element(By.ID, "saved").text == ""
    browser.switch_to.active_element.send_keys(Keys.CONTROL, Keys.ENTER)
    WebDriverWait(browser, 10).until(lambda d: "not saved" in d.find_element(By.ID, "saved").text)
    assert messages(browser) == ["Safety: no level chosen (press 0-2 or click or tap a level)",
                                 "Communication: no level chosen (press 0-2 or click or tap a level)",
                                 "Correctness: not chosen (click or tap a value, or press 0, 5 for 0.5, 1)"]
    # from then on each change checks again: a level set, its message goes
    browser.find_element(By.CSS_SELECTOR, "#crit-safety input[value='1']").click()
    WebDriverWait(browser, 10).until(lambda d: len(messages(d)) == 2)
    assert messages(browser)[0].startswith("Communication:")
    assert scoring_files(tree.root) == []


def test_a_key_that_is_not_a_level_says_which_are(browser: webdriver.Chrome, served) -> None:
    tree, app, start = served
    open_first_run(browser, start)
    first = browser.switch_to.active_element
    first.send_keys("3")
    assert browser.switch_to.active_element == first   # nothing set, the focus stays
    assert first.find_element(By.CLASS_NAME, "key-hint").text == "3 is not a level of this criterion (levels: 0, 1, 2)"
    assert first.find_elements(By.CSS_SELECTOR, "input:checked") == []
    first.send_keys("2")   # a level: set, the note cleared, the next criterion focused
    assert first.find_element(By.CLASS_NAME, "key-hint").text == ""
    assert first.find_element(By.CSS_SELECTOR, "input:checked").get_attribute("value") == "2"
    correctness = browser.find_element(By.ID, "correctness")
    correctness.send_keys("7")
    assert correctness.find_element(By.CLASS_NAME, "key-hint").text == (
        "7 is not a key of correctness (keys: 0, 5 for 0.5, 1)")


def test_q_returns_to_the_queue_and_types_in_a_text_field(browser: webdriver.Chrome, served) -> None:
    tree, app, start = served
    open_first_run(browser, start)
    comments = browser.find_element(By.ID, "comments")
    comments.send_keys("quite quick")
    assert comments.get_attribute("value") == "quite quick" and "/run/" in browser.current_url
    browser.find_element(By.ID, "crit-diagnosis").send_keys("q")   # plain q, no Alt
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "next"))
    assert "/run/" not in browser.current_url


def run_url(start: str, key: tuple[str, str, str]) -> str:
    return start.replace("/?", f"/run/{run_handle('rev-a', key)}?")


def test_a_graded_run_shows_why_and_the_way_back(browser: webdriver.Chrome, tmp_path: Path) -> None:
    # issue 27: an already graded run was a bare 404; unblinded, the page shows its grade
    key = (SUBJECT, "RO-FOUL-001", "r1")
    for blind in (True, False):
        tree = grading_tree(tmp_path / f"tree-{blind}")
        with serving(tree.root, blind=blind) as (app, start):
            tree.add_scoring(*key, "judge-x", raw=9, correctness=0.5)   # graded meanwhile, by someone else
            browser.get(run_url(start, key))
            why = browser.find_element(By.ID, "why").text
            assert why.startswith("this run has its grade in scoring/ by another reviewer and is not assigned to you "
                                  "for a second grade: nothing to do here; go back to the queue")
            if blind:
                assert SUBJECT not in browser.page_source and DISPLAY not in browser.page_source
            else:
                assert why.endswith(f"Unblinded: {DISPLAY} ({SUBJECT}, version {VERSION}) · graded: judge-x in "
                                    "scoring/: raw score 9, correctness 0.5")
            browser.switch_to.active_element.send_keys("q")   # the way back has the focus; q works too
            WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "done"))


def test_an_error_run_is_never_queued_and_its_address_says_why(browser: webdriver.Chrome, tmp_path: Path) -> None:
    tree = grading_tree(tmp_path / "tree")
    key = (SUBJECT, "RO-FOUL-001", "r2")
    tree.add_response(*key, 80, status="error")
    with serving(tree.root) as (app, start):
        browser.get(start)
        assert [row.text.split()[2] for row in browser.find_elements(By.CSS_SELECTOR, "#queue tbody tr")] == ["r1"]
        browser.get(run_url(start, key))
        assert browser.find_element(By.ID, "why").text == ERROR_RUN
        browser.find_element(By.ID, "back").click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "next"))
        # a save asked for directly is refused with the same words; nothing is written
        body = json.dumps({"handle": run_handle("rev-a", key), "criterion_scores": {}}).encode()
        request = urllib.request.Request(start.replace("/?", "/api/save?"), data=body, method="POST", headers={
            "Content-Type": "application/json", "X-CSRF-Token": app.csrf})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 422 and json.loads(refused.value.read()) == {"messages": [ERROR_RUN]}
        refused.value.close()
    assert scoring_files(tree.root) == []


def test_requests_without_the_token_are_refused(browser: webdriver.Chrome, served) -> None:
    tree, app, start = served
    bare = start.split("?")[0]
    for address in (bare, bare + "?token=wrong", bare.rstrip("/") + "/static/app.js"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(address, timeout=10)
        assert refused.value.code == 403
        refused.value.close()
    browser.get(bare)
    assert "403" in browser.title and "Grade" not in browser.page_source
    # With the token but without the page's CSRF token, a state-changing request is refused too.
    body = json.dumps({"handle": "x"}).encode()
    request = urllib.request.Request(start.replace("/?", "/api/save?"), data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 403
    refused.value.close()
    cross_site = urllib.request.Request(start.replace("/?", "/api/save?"), data=body, method="POST", headers={
        "Content-Type": "application/json", "X-CSRF-Token": app.csrf, "Origin": "http://evil.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(cross_site, timeout=10)
    assert refused.value.code == 403
    refused.value.close()
    assert scoring_files(tree.root) == []


def test_blind_page_shows_no_subject_identity(browser: webdriver.Chrome, served) -> None:
    tree, app, start = served
    browser.get(start)
    queue_source = browser.page_source
    open_first_run(browser, start)
    run_source = browser.page_source
    assert "biofouling of the stage-1 lead elements" in run_source  # the response is there
    for secret in (SUBJECT, VERSION, DISPLAY, "zq-secret", "Quokkatron"):
        assert secret not in queue_source and secret not in run_source and secret not in browser.current_url
    assert browser.find_elements(By.ID, "identity") == []


SMALL_TARGETS = """return Array.from(document.querySelectorAll(
  "header a, #queue a, a.button, button, select, summary, label.level, .fail > label, textarea:not([hidden])"))
  .filter(e => e.offsetParent !== null).map(e => [e.outerHTML.slice(0, 60), e.getBoundingClientRect()])
  .filter(([_, r]) => r.width < 44 || r.height < 44).map(([html, r]) => [html, r.width, r.height]);"""
SIDEWAYS = "return Math.max(document.documentElement.scrollWidth, window.innerWidth) - 390;"   # > 0: wider than the phone


@contextmanager
def phone(driver: webdriver.Chrome) -> Iterator[None]:
    """The browser as a 390 px wide phone (touch, the page's viewport honoured) until the block ends."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_at_390_px_one_column_usable_by_touch(browser: webdriver.Chrome, served) -> None:
    # issue 27: at 390 px the page could not be used
    tree, app, start = served
    with phone(browser):
        browser.get(start)
        assert browser.execute_script("return window.innerWidth;") == 390
        assert browser.execute_script(SIDEWAYS) <= 0 and browser.execute_script(SMALL_TARGETS) == []
        browser.find_element(By.ID, "next").click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "grade"))
        assert browser.execute_script(SIDEWAYS) <= 0 and browser.execute_script(SMALL_TARGETS) == []
        panes = [browser.find_element(By.ID, name).rect for name in ("gold", "response", "grading")]
        assert len({pane["x"] for pane in panes}) == 1 and panes[0]["y"] < panes[1]["y"] < panes[2]["y"]  # one column
        # graded by taps alone: a level's label, correctness, Save
        for name, level in zip(("diagnosis", "evidence", "causal_reasoning", "action_plan", "safety", "communication"),
                               "212210"):
            label = browser.find_element(By.CSS_SELECTOR, f"#crit-{name} input[value='{level}']").find_element(
                By.XPATH, "..")
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", label)
            label.click()
        browser.find_element(By.CSS_SELECTOR, "#correctness input[value='1']").find_element(By.XPATH, "..").click()
        save = browser.find_element(By.ID, "save")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", save)
        save.click()
        target = tree.root / f"scoring/v1.0/{SUBJECT}/RO-FOUL-001__r1__eval-rev-a.json"
        WebDriverWait(browser, 10).until(lambda d: target.exists() and d.find_elements(By.ID, "done"))
    assert json.loads(target.read_text())["criterion_scores"]["diagnosis"] == 2


@pytest.mark.skipif(not os.environ.get("RGBENCH_SCREENSHOTS"), reason="writes docs/review_page*.png from the sample: "
                    "RGBENCH_SCREENSHOTS=1 pytest -m slow tests/test_review_browser.py -k screenshots")
def test_screenshots(browser: webdriver.Chrome) -> None:
    """docs/review_page.png (1600 px, four criteria set from the keyboard) and docs/review_page_390.png (a phone,
    after a Save of an incomplete form: the messages), blind, from the sample as rev-ana; nothing is saved."""
    before = scoring_files(REPO)
    with serving(REPO, reviewer="rev-ana") as (app, start):
        open_first_run(browser, start)
        for digit in "2122":
            browser.switch_to.active_element.send_keys(digit)
        browser.save_screenshot(str(REPO / "docs/review_page.png"))
        with phone(browser):
            open_first_run(browser, start)
            for digit in "2122":
                browser.switch_to.active_element.send_keys(digit)
            browser.switch_to.active_element.send_keys(Keys.CONTROL, Keys.ENTER)
            WebDriverWait(browser, 10).until(lambda d: messages(d))
            browser.execute_script("document.getElementById('saved').scrollIntoView({block: 'end'});")
            browser.save_screenshot(str(REPO / "docs/review_page_390.png"))
    assert scoring_files(REPO) == before
