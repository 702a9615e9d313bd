"""Docs that cannot drift: every make target, script and result column is documented."""

from __future__ import annotations

import re

from treebuilder import REPO

from rgbench.results.tables import FAMILY_COLUMNS, PER_RUN_COLUMNS, SUBJECT_COLUMNS
from rgbench.stats.agreement_outputs import AGREEMENT_COLUMNS
from rgbench.stats.outputs import FAMILY_STATS_COLUMNS, STATS_TABLES, SUBJECT_STATS_COLUMNS

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


def test_every_result_column_is_in_results_readme():
    columns = set(PER_RUN_COLUMNS) | set(SUBJECT_COLUMNS) | set(FAMILY_COLUMNS)
    columns |= set(SUBJECT_STATS_COLUMNS) | set(FAMILY_STATS_COLUMNS) | set(AGREEMENT_COLUMNS)
    columns |= {column for table in STATS_TABLES.values() for column in table}
    missing = [c for c in sorted(columns) if f"`{c}`" not in RESULTS_README]
    assert missing == []


def test_readme_gives_the_two_fresh_machine_commands():
    assert "make metrics" in README and "make test" in README
    assert "sample data" in README.lower()


def test_every_statistics_file_has_its_section_in_results_readme():
    from rgbench.stats.agreement_outputs import AGREEMENT_FILE
    for name in list(STATS_TABLES) + [AGREEMENT_FILE]:
        assert f"## {name}" in RESULTS_README
