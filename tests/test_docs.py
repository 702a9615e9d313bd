"""Docs that cannot drift: every make target, script and result column is documented."""

from __future__ import annotations

import re

import pytest
from treebuilder import REPO

from rgbench.result_columns import KINDS
from rgbench.stats.outputs import STATS_TABLES

README = (REPO / "README.md").read_text(encoding="utf-8")
# The pages people read: the README and docs/ (results/README.md holds the columns and is checked apart).
PAGES = {"README.md": README} | {f"docs/{p.name}": p.read_text(encoding="utf-8")
                                 for p in sorted((REPO / "docs").glob("*.md"))}
READER_PAGES = ("docs/maintainer.md", "docs/reviewing.md", "docs/adopting.md", "docs/methods.md",
                "docs/architecture.md")
RESULTS_README = (REPO / "results/README.md").read_text(encoding="utf-8")


def make_targets() -> list[str]:
    return re.findall(r"^([a-z][a-z-]*):.*##", (REPO / "Makefile").read_text(), flags=re.M)


def described(kind: str) -> list[str]:
    """Every `make T` (kind "make") or `rgbench S` (kind "rgbench") that heads a row of a table on a page: the
    first cell starts with `make ...` or `rgbench ...`; every such name in that cell is described there."""
    names = []
    for text in PAGES.values():
        for line in text.splitlines():
            cell = line.split("|")[1].strip() if line.startswith("|") and line.count("|") > 2 else ""
            if re.match(r"`(make|rgbench) ", cell):
                names += re.findall(rf"`{kind} ([a-z][a-z-]*)", cell)
    return names


def test_every_make_target_and_command_is_described_on_exactly_one_row():
    from rgbench.cli import COMMANDS
    targets = make_targets()
    assert {"metrics", "test", "check", "validate", "fmt"} <= set(targets) and "metrics" in COMMANDS
    make_rows, command_rows = described("make"), described("rgbench")
    assert {t: make_rows.count(t) for t in targets if make_rows.count(t) != 1} == {}
    assert {c: command_rows.count(c) for c in COMMANDS if command_rows.count(c) != 1} == {}
    assert sorted(set(make_rows) - set(targets)) == [] and sorted(set(command_rows) - set(COMMANDS)) == []


def test_every_script_is_named_on_a_page():
    scripts = sorted(p.name for p in (REPO / "scripts").glob("*.py"))
    assert [s for s in scripts if not any(f"scripts/{s}" in text for text in PAGES.values())] == []


def test_every_registered_result_column_is_documented():
    """Every column of the column registry (rgbench/result_columns.py, which tests/test_result_columns.py holds
    the writers to) is described in results/README.md, or for leaderboard.csv's own in docs/leaderboard.md."""
    leaderboard_doc = (REPO / "docs/leaderboard.md").read_text(encoding="utf-8")
    missing = [c for c in sorted(KINDS) if f"`{c}`" not in RESULTS_README and f"`{c}`" not in leaderboard_doc]
    assert missing == []


def test_readme_is_short_and_gives_the_two_fresh_machine_commands_first():
    lines = README.splitlines()
    assert len(lines) <= 150
    head = "\n".join(lines[:60])
    assert "make metrics" in head and "make test" in head
    assert "sample data" in README.lower()


def test_readme_points_each_reader_to_a_page_with_contents():
    for page in READER_PAGES:
        assert f"]({page})" in README, page
        text = PAGES[page]
        assert "\nContents\n- [" in text.split("\n## ", 1)[0], f"{page}: no contents list before its first section"


def headings(text: str) -> list[str]:
    """The Markdown headings of a page, fenced code blocks (``` or longer, closed by as many) left out."""
    found, fence = [], ""
    for line in text.splitlines():
        ticks = re.match(r"^(`{3,})", line)
        if fence:
            fence = "" if ticks and len(ticks.group(1)) >= len(fence) and not line.strip("`") else fence
        elif ticks:
            fence = ticks.group(1)
        elif match := re.match(r"^#{1,6} (.+)$", line):
            found.append(match.group(1))
    return found


def slugs(text: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation but - and _ dropped, spaces to -, a
    repeated heading numbered -1, -2, ..."""
    seen: dict[str, int] = {}
    out = set()
    for heading in headings(text):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


def broken_links(under_system: bool) -> list[str]:
    """``page: target[#anchor]`` of every relative link of the pages that reaches no file or no heading; links
    into system/ (the shipped sample's definition) only when ``under_system``, the others only when not."""
    broken = []
    for name, text in PAGES.items():
        here = (REPO / name).parent
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]+))?\)", text):
            if target.startswith(("http:", "https:", "mailto:")):
                continue
            path = (here / target).resolve() if target else REPO / name
            if path.is_relative_to(REPO / "system") != under_system:
                continue
            if not path.exists():
                broken.append(f"{name}: {target}")
            elif anchor and path.suffix == ".md" and anchor not in slugs(path.read_text(encoding="utf-8")):
                broken.append(f"{name}: {target}#{anchor}")
    return broken


def test_links_between_the_pages_reach_a_file_and_a_heading():
    assert broken_links(under_system=False) == []


@pytest.mark.sample   # the pages quote the shipped sample's system/ (a fork with another benchmark has its own)
def test_links_into_the_samples_definition_reach_a_file_and_a_heading():
    assert broken_links(under_system=True) == []


def titled(text: str, title: str) -> bool:
    """Whether ``title`` names a part of the page ``text``: a heading, a bold lead-in (**title...) or a paragraph
    opening ``title:`` or ``title.``."""
    lines = text.splitlines()
    return (any(re.match(r"#+ " + re.escape(title), line) for line in lines) or "**" + title in " ".join(text.split())
            or any(line.startswith((title + ":", title + ".")) for line in lines))


def quoted_sections() -> list[tuple[str, str, str]]:
    """(where, page, title) of every part of a page named by its title in quotes: ``<page>.md, "title"`` (also
    ``docs/<page>.md "title"``) in the pages and the library's, benches' and tests' sources, and ``above, "title"``
    or ``below, "title"`` within a page."""
    sources = dict(PAGES) | {p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8")
                             for folder in ("scripts", "bench", "tests") for p in sorted((REPO / folder).rglob("*.py"))}
    out = []
    for where, text in sources.items():
        flat = " ".join(text.replace('\\"', '"').split())
        out += [(where, f"docs/{page}" if f"docs/{page}" in PAGES else page, title)
                for page, title in re.findall(r'\b([a-z_]+\.md)[,:]? "([^"]{3,80})"', flat)
                if page in PAGES or f"docs/{page}" in PAGES]
        if where in PAGES:
            out += [(where, where, title) for title in re.findall(r'\b(?:above|below), "([^"]{3,80})"', flat)]
    return out


def test_a_section_named_in_quotes_is_on_its_page():
    refs = quoted_sections()
    assert len(refs) >= 40   # the pattern still finds the references (there were 44 when this was written)
    assert [ref for ref in refs if not titled(PAGES[ref[1]], ref[2])] == []


def test_every_statistics_file_has_its_section_in_results_readme():
    from rgbench.stats.agreement_outputs import AGREEMENT_FILE
    for name in list(STATS_TABLES) + [AGREEMENT_FILE]:
        assert f"## {name}" in RESULTS_README
