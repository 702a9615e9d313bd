"""Docs that cannot drift: every make target, script and result column is documented."""

from __future__ import annotations

import re

from treebuilder import REPO

from rgbench.result_columns import KINDS
from rgbench.stats.outputs import STATS_TABLES

README = (REPO / "README.md").read_text(encoding="utf-8")
RESULTS_README = (REPO / "results/README.md").read_text(encoding="utf-8")


def make_targets() -> list[str]:
    return re.findall(r"^([a-z][a-z-]*):.*##", (REPO / "Makefile").read_text(), flags=re.M)


def test_every_make_target_is_in_the_readme():
    targets = make_targets()
    assert {"metrics", "test", "check", "validate", "fmt"} <= set(targets)
    assert [t for t in targets if t != "clean-venv" and f"`make {t}`" not in README] == []


def test_every_script_is_in_the_readme():
    scripts = sorted(p.name for p in (REPO / "scripts").glob("*.py"))
    assert [s for s in scripts if f"scripts/{s}" not in README] == []


def test_every_registered_result_column_is_documented():
    """Every column of the column registry (rgbench/result_columns.py, which tests/test_result_columns.py holds
    the writers to) is described in results/README.md, or for leaderboard.csv's own in docs/leaderboard.md."""
    leaderboard_doc = (REPO / "docs/leaderboard.md").read_text(encoding="utf-8")
    missing = [c for c in sorted(KINDS) if f"`{c}`" not in RESULTS_README and f"`{c}`" not in leaderboard_doc]
    assert missing == []


def test_readme_gives_the_two_fresh_machine_commands():
    assert "make metrics" in README and "make test" in README
    assert "sample data" in README.lower()


def test_every_statistics_file_has_its_section_in_results_readme():
    from rgbench.stats.agreement_outputs import AGREEMENT_FILE
    for name in list(STATS_TABLES) + [AGREEMENT_FILE]:
        assert f"## {name}" in RESULTS_README
