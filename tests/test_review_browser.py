"""The grading page in a real browser: headless Chromium driven by Selenium through Debian's chromedriver.

A reviewer grades one run end to end with the keyboard and the file written is exactly the expected
scoring; an invalid form shows the validator's message and writes nothing; a request without the
token is refused; the blind page shows nothing of the subject's identity. Skipped, saying how to
install them, when Chromium, chromedriver or Selenium is missing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from treebuilder import MiniTree

from rgbench.commands.review import open_app
from rgbench.load.loader import load_tree
from rgbench.load.spec import load_spec
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


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MiniTree, ReviewApp, str]]:
    tree = grading_tree(tmp_path / "tree")
    app, problems = open_app(tree.root, "rev-a")
    assert app is not None, problems
    server = make_server(app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield tree, app, url(app, server)
    finally:
        server.shutdown()
        server.server_close()


def scoring_files(root: Path) -> list[Path]:
    return sorted(p for folder in ("scoring", "scoring_multi") for p in (root / folder).rglob("*") if p.is_file())


def open_first_run(driver: webdriver.Chrome, start: str) -> None:
    driver.get(start)
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "next"))
    driver.switch_to.active_element.send_keys("n")  # the queue focuses "next"; n opens it
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.ID, "grade"))


def messages(driver: webdriver.Chrome) -> list[str]:
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#messages li")]


def test_grade_one_run_end_to_end_with_the_keyboard(browser: webdriver.Chrome, served) -> None:
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
    spec, _ = load_spec(tree.root)
    assert spec is not None
    loaded, problems = load_tree(tree.root, spec)
    assert problems == [] and loaded is not None and len(loaded.scorings) == 1  # the gate accepts it


def test_invalid_form_shows_the_validator_message_and_writes_nothing(browser: webdriver.Chrome, served) -> None:
    tree, app, start = served
    open_first_run(browser, start)
    for digit in "2122":  # four of six criteria, no correctness
        browser.switch_to.active_element.send_keys(digit)
    browser.switch_to.active_element.send_keys(Keys.CONTROL, Keys.ENTER)
    WebDriverWait(browser, 10).until(lambda d: "not saved" in d.find_element(By.ID, "saved").text)
    shown = messages(browser)
    # What `rgbench validate` says about the same document written by hand (the unfilled fields as null):
    spec, _ = load_spec(tree.root)
    assert spec is not None
    incomplete = {"automatic_fails_triggered": [], "case_id": "RO-FOUL-001", "comments": "", "correctness": None,
                  "criterion_scores": {"diagnosis": 2, "evidence": 1, "causal_reasoning": 2, "action_plan": 2,
                                       "safety": None, "communication": None},
                  "reviewer_id": "rev-a", "run_id": "r1", "schema_version": "1.0", "subject_id": SUBJECT,
                  "subject_version": VERSION,
                  # the pins the page fills in (the probe tree holds the same response and gold)
                  "response_sha256": hashlib.sha256(
                      (tree.root / f"responses/v1.0/{SUBJECT}/RO-FOUL-001__r1.json").read_bytes()).hexdigest(),
                  "gold_sha256": hashlib.sha256((tree.root / "golds/v1.0/RO-FOUL-001_gold.md").read_bytes()).hexdigest()}
    rel = f"scoring/v1.0/{SUBJECT}/RO-FOUL-001__r1__eval-rev-a.json"
    probe = grading_tree(tree.root.parent / "probe")
    probe.write(rel, json.dumps(incomplete))
    _, problems = load_tree(probe.root, spec)
    validate_messages = sorted(p.message for p in problems if p.path == rel)
    assert validate_messages and shown == validate_messages
    assert "$.correctness: null is not one of [0, 0.5, 1] (fill it in)" in shown
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
