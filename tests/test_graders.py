"""Several graders per answer end to end (issue 23, DESIGN D4): the consolidated grades accepted by every
command that reads them, the consolidation policies (median-v1, mean-v1) with hand-computed values, a board
computed from the consolidated grades of every rater, and LLM-judge grades kept out of what counts as human."""

from __future__ import annotations

import shutil
from pathlib import Path

import aggregate_scoring
import compute_metrics
import validate
from treebuilder import REPO

INPUTS = ("system", "golds", "responses", "scoring", "scoring_multi", "subjects")


def copy_inputs(source: Path, target: Path) -> Path:
    for name in INPUTS:
        if (source / name).exists():
            shutil.copytree(source / name, target / name)
    return target


def test_the_shipped_trees_consolidated_grades_are_accepted_by_every_command_that_reads_them(tmp_path, capsys):
    # Before: `make agreement` wrote grades by `consensus`, which the sample's registry does not hold, and
    # `compute_metrics --scoring-dir scoring_consolidated` refused every one of them (70 problems on the sample).
    root = copy_inputs(REPO, tmp_path / "sample")
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    capsys.readouterr()
    assert validate.main(["--root", str(root), "--scoring-dir", "scoring_consolidated"]) == 0, capsys.readouterr().err
    assert compute_metrics.main(["--root", str(root), "--scoring-dir", "scoring_consolidated",
                                 "--results-dir", "results_consolidated"]) == 0, capsys.readouterr().err
    graded = {(p.parent.name, *p.name.split("__")[:2]) for folder in ("scoring", "scoring_multi")
              for p in (root / folder).rglob("*.json")}
    rows = (root / "results_consolidated/per_run.csv").read_text().splitlines()[1:]
    assert len(rows) == len(graded)   # one consolidated grade per graded run, each accepted
