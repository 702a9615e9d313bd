"""The board's words: the table first, at most 150 words of prose above the methods, and no sentence of the
methods lost when they moved into the collapsed Methods section (page) and <details> block (Markdown).

page_sentences.txt and markdown_sentences.txt are the sentences of the fixture's page and Markdown as built before
issue 27 (tests/page_text.py split them; the Markdown's list of disqualified runs, now with their quotes, left
out): each must still be in the page or the Markdown built now.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from page_text import prose, words_before_methods
from treebuilder import LIBRARY_SYSTEM, rows

from rgbench.cli import run_script
from rgbench.leaderboard.markdown import METHODS_OPEN

FIXTURE = Path(__file__).parent / "fixtures" / "leaderboard" / "basic"
REPO = Path(__file__).resolve().parent.parent
LIMIT = 150
COMMITTED = [REPO / "results", REPO / "examples" / "medadvice" / "results"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("prose") / "tree"
    shutil.copytree(FIXTURE / "tree", root)
    shutil.copytree(LIBRARY_SYSTEM, root / "system")
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    return root / "results"


def markdown_words_before_methods(markdown: str) -> int:
    """Words of the paragraph lines above the Methods block: not table rows, list items (the evidence) or tags."""
    head = markdown.split(METHODS_OPEN)[0]
    return sum(len(line.split()) for line in head.splitlines() if line and not line.lstrip().startswith(("|", "- ", "<")))


def test_at_most_150_words_of_prose_above_the_methods(built):
    for results in [built, *(path for path in COMMITTED if (path / "leaderboard.html").is_file())]:
        page = (results / "leaderboard.html").read_text(encoding="utf-8")
        assert 0 < words_before_methods(page) <= LIMIT, results
        assert page.index('id="ranked-table"') < page.index('id="methods"') < page.index('id="charts"')
        markdown = (results / "leaderboard.md").read_text(encoding="utf-8")
        assert 0 < markdown_words_before_methods(markdown) <= LIMIT, results
        assert markdown.index("| Rank |") < markdown.index(METHODS_OPEN) and markdown.rstrip().endswith("</details>")


def test_the_count_sees_paragraphs_and_stops_at_the_methods():
    page = ('<header><p>one two three</p></header><table><tr><td><p>not counted</p></td></tr></table>'
            '<section id="methods"><p>after the methods</p></section>')
    assert words_before_methods(page) == 3
    assert markdown_words_before_methods(f"| a | b |\n\nfour words of prose\n- a list item\n{METHODS_OPEN}\nlater\n") == 4


@pytest.mark.parametrize("name, kind", [("page_sentences.txt", "html"), ("markdown_sentences.txt", "md")])
def test_no_sentence_of_the_old_pages_is_lost(built, name, kind):
    text = (built / f"leaderboard.{kind}").read_text(encoding="utf-8")
    now = prose(text) if kind == "html" else " ".join(text.split())
    before = (FIXTURE / "expected" / name).read_text(encoding="utf-8").splitlines()
    assert len(before) >= 10
    assert [sentence for sentence in before if sentence not in now] == []


def test_the_methods_are_collapsed_below_the_table(built):
    page = (built / "leaderboard.html").read_text(encoding="utf-8")
    methods = page.split('id="methods"')[1].split("</section>")[0]
    assert methods.count("<details") >= 3 and " open" not in methods
    assert "Rank range (in parentheses with each rank)" in methods and "Leaderboard of benchmark version" in methods


def test_download_links_are_every_csv_the_page_summarises(built):
    for results in [built, *(path for path in COMMITTED if (path / "leaderboard.html").is_file())]:
        page = (results / "leaderboard.html").read_text(encoding="utf-8")
        nav = page.split('id="downloads"')[1].split("</nav>")[0]
        links = re.findall(r'<a href="\./([^"/]+)" download>', nav)
        outputs = json.loads((results / "manifest.json").read_text(encoding="utf-8"))["outputs"]
        assert links == ["leaderboard.csv", *sorted(name for name in outputs if name.endswith(".csv"))], results
        assert all((results / name).is_file() for name in links)   # relative: they work from results/ and a copy of it
        for name in ("reviewers.csv", "judge_agreement.csv"):      # the reviewers section links what it summarises
            assert (f"results/{name}</code>" in page) == (f'<a href="./{name}" download>' in page)


def test_the_date_is_the_newest_answers_never_a_clock(built):
    assert "The answers carry no dates." in (built / "leaderboard.html").read_text(encoding="utf-8")   # no run_metadata.csv
    for results in (path for path in COMMITTED if (path / "run_metadata.csv").is_file()):
        metadata = rows(results / "run_metadata.csv")
        newest = max((row["generated_to"] for row in metadata if row["generated_to"]), default="")
        expected = f"Answers dated up to {newest}." if newest else "The answers carry no dates."
        for name in ("leaderboard.html", "leaderboard.md"):
            assert expected in (results / name).read_text(encoding="utf-8"), (results, name)
