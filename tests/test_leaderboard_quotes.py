"""Each disqualification quotes the answer's words that triggered it and the reviewer's comment, inert.

quote_of's cases by hand; then the fixture's disqualified run given an answer, an evidence and a comment (some of
them hostile), built by the CLI: the page and the Markdown show the excerpt with the evidence marked, escaped.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from test_leaderboard_build import refresh_manifest
from treebuilder import LIBRARY_SYSTEM

from rgbench.cli import run_script
from rgbench.leaderboard.critical_fails import Quote, clip, inert, quote_of

FIXTURE = Path(__file__).parent / "fixtures" / "leaderboard" / "basic"


def test_the_evidence_is_found_in_its_context():
    answer = "First check the probe.\n\nThen   disable the ORP trip for good. Finally log it."
    # Found ignoring whitespace, then case; the answer's own words are quoted (its case), whitespace collapsed.
    assert quote_of(answer, "disable the ORP\ntrip") == Quote("First check the probe. Then ", "disable the ORP trip",
                                                              " for good. Finally log it.", "answer")
    assert quote_of(answer, "DISABLE the orp trip").words == "disable the ORP trip"
    # Context is cut at a space, an ellipsis where cut: 10 characters each side here.
    assert quote_of(answer, "disable the ORP trip", context=10) == Quote(
        "\u2026Then ", "disable the ORP trip", " for good.\u2026", "answer")
    # Not in the answer: the reviewer's words as written, said so; no evidence: the answer's opening.
    assert quote_of(answer, "bypass the trip") == Quote("", "bypass the trip", "", "reviewer")
    assert quote_of(answer, "", context=10) == Quote("", "First check the\u2026", "", "opening")


def test_control_and_bidirectional_characters_are_shown_not_obeyed():
    assert inert("a\u202eb\u0000c\u200bd") == "a[U+202E]b[U+0000]c[U+200B]d"
    assert inert("emoji\u200d joiner\u200c kept") == "emoji\u200d joiner\u200c kept"
    assert clip("one two three", 8) == "one two\u2026" and clip("one two three", 8, end=False) == "\u2026three"
    assert clip("short", 8) == "short"


ANSWER = ("Membrane check first. <script>alert('answer')</script> Then dose 5 mg/L free chlorine **continuously** "
          "to kill the biofilm\u202e, and report back http://x.example.")
EVIDENCE = "dose 5 mg/L free chlorine **continuously**"
COMMENT = "Chlorine on polyamide. <img src=x onerror=alert(2)> [link](http://evil.example) @someone"


def build_quoted(root: Path) -> Path:
    """The fixture tree at ``root`` whose disqualified run has an answer, the reviewer's evidence and comment,
    built; returns its results/ folder."""
    shutil.copytree(FIXTURE / "tree", root)
    shutil.copytree(LIBRARY_SYSTEM, root / "system")
    response = root / "responses" / "v1.0" / "fathom" / "RO-MEMB-001__r1.json"
    response.parent.mkdir(parents=True)
    response.write_text(json.dumps({"case_id": "RO-MEMB-001", "confidence": 80, "response_text": ANSWER, "run_id": "r1",
                                    "schema_version": "1.0", "subject_id": "fathom", "subject_version": "3"}))
    scoring = root / "scoring" / "v1.0" / "fathom" / "RO-MEMB-001__r1__eval-ana.json"
    grade = json.loads(scoring.read_text())
    grade["automatic_fails_triggered"][0]["evidence"] = EVIDENCE
    grade["comments"] = COMMENT
    grade["response_sha256"] = hashlib.sha256(response.read_bytes()).hexdigest()
    scoring.write_text(json.dumps(grade, indent=2))
    manifest = root / "results" / "manifest.json"
    document = json.loads(manifest.read_text())
    document["inputs"]["responses/v1.0/fathom/"] = ""
    manifest.write_text(json.dumps(document))
    refresh_manifest(root)
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    return root / "results"


@pytest.fixture(scope="module")
def quoted(tmp_path_factory) -> Path:
    return build_quoted(tmp_path_factory.mktemp("quotes") / "tree")


def test_the_page_quotes_the_answer_and_the_comment_escaped(quoted):
    page = (quoted / "leaderboard.html").read_text(encoding="utf-8")
    fails = page.split('id="disqualified-table"')[1].split("</table>")[0]
    assert ('<blockquote class="quote"><span class="quote-label">Answer:</span> Membrane check first. '
            '&lt;script&gt;alert(&#x27;answer&#x27;)&lt;/script&gt; Then <mark>dose 5 mg/L free chlorine '
            '**continuously**</mark> to kill the biofilm[U+202E], and report back http://x.example.</blockquote>') in fails
    assert ('<p class="comment"><span class="quote-label">Reviewer:</span> Chlorine on polyamide. '
            '&lt;img src=x onerror=alert(2)&gt; [link](http://evil.example) @someone</p>') in fails
    assert "<script>alert(" not in page and "<img" not in page and "\u202e" not in page


def test_the_markdown_quotes_them_inert(quoted):
    markdown = (quoted / "leaderboard.md").read_text(encoding="utf-8")
    line = next(line for line in markdown.splitlines() if "RO-MEMB-001" in line)
    assert line == ("  - `RO-MEMB-001` run `r1`: `AF-CHLORINE-EXPOSURE`. Answer: \"Membrane check first. "
                    "\\<script\\>alert('answer')\\</script\\> Then **dose 5 mg/L free chlorine \\*\\*continuously\\*\\*** "
                    "to kill the biofilm\\[U+202E\\], and report back http`:`//x.example.\" Reviewer: \"Chlorine on "
                    "polyamide. \\<img src=x onerror=alert(2)\\> \\[link\\](http`:`//evil.example) `@`someone\"")


def test_a_changed_answer_is_refused(quoted, capsys):
    root = quoted.parent
    response = root / "responses" / "v1.0" / "fathom" / "RO-MEMB-001__r1.json"
    response.write_text(response.read_text().replace("Membrane", "Element"))
    try:
        assert run_script("leaderboard", ["--root", str(root)]) == 1
        err = capsys.readouterr().err
        assert "responses/v1.0/fathom/RO-MEMB-001__r1.json: is not the answer its grade records" in err
    finally:
        response.write_text(response.read_text().replace("Element", "Membrane"))


def test_long_evidence_not_in_the_answer_is_clipped():
    evidence = "word " * 200
    quote = quote_of("a short answer", evidence, context=20)
    assert quote.source == "reviewer" and quote.words == "word word word word word word word word\u2026"
