"""`make metrics` in one process: validate every input, then write results/, reading the tree once.

Every input is read and checked first, the further reviewers' grades in scoring_multi/ included (what
validate.py checks); nothing is written unless all of it is valid. Then everything is computed in memory,
in this order: the metric tables (what compute_metrics.py writes), the reviewer agreement (aggregate_scoring.py's
tables) and the leaderboard from those very tables (build_leaderboard.py's; --readme also embeds it in
README.md), reading no result file; all of it is written as one set, manifest.json last, or nothing when a
step finds a problem. One run at a time on a tree: a second one started meanwhile is refused at once with a
message (rgbench.atomic.tree_lock), writing nothing. The files are the same bytes as the three scripts run one
after the other give (tests/test_cli_main.py); only the tree is read once instead of three times, and the
results are never read back. `make check` (check_results.py) runs this script on a copy of the inputs. With
`board_grades: consolidated` in config.yaml, the metric tables are computed from the consolidated grade of
each run (every rater of scoring/ and scoring_multi/, by the declared consolidation_policy), in memory.

The consolidated scorings (the default scoring_consolidated/, git-ignored, one file per run) are
aggregate_scoring.py's on request (`make agreement`): this script rewrites them only when that folder
already exists, so that it never goes stale once asked for, and a benchmark that never reads it does not
pay for writing it (a folder written with aggregate_scoring.py --output-dir is not kept current).
"""

from __future__ import annotations

import argparse
from contextlib import closing
from pathlib import Path

from ..atomic import Busy, OutputError, tree_lock, write_many_atomic
from ..problems import refuse, report
from ..progress import Progress
from ..results.tables import MANIFEST_FILE
from ..stats.consolidated_board import board_tree
from .agreement import CONSOLIDATED_DIR, agreement_tables, drop_stale_judge_report, write_agreement
from .common import collector_paused, load_valid_grades, one_blas_thread
from .compute import assisted_of, computed, metrics_summary
from .leaderboard import computed_files, leaderboard_outputs, summary


def run(args: argparse.Namespace) -> int:
    root = args.root
    return write_results(root, readme=args.readme)


def write_results(root: Path, *, readme: bool = False) -> int:
    """`make metrics` on the tree ``root``: every result-producing step from one load, under the tree's lock
    (and README.md's leaderboard block when ``readme``). 0, or 1 after printing every problem."""
    try:
        with tree_lock(root):
            return compute_and_write(root, readme=readme)
    except Busy:
        return refuse("results/: another `make metrics` is running on this tree (wait for it to end, then run again if the "
                      "inputs changed meanwhile; this run wrote nothing)")


def compute_and_write(root: Path, *, readme: bool) -> int:
    """Load and check every input once; compute the metric tables, the reviewer agreement and the leaderboard in
    memory; write them all as one set (manifest.json last), then the consolidated scorings when that folder
    exists. Nothing is written when any step finds a problem."""
    with collector_paused(), one_blas_thread(), closing(Progress()) as progress:
        loaded = load_valid_grades(root, progress=lambda done, total: progress.update("reading", done, total))
        if loaded is None:
            return 1
        spec, tree, multi = loaded   # every scoring: the agreement reads the llm-judge grades too
        counted, grades = board_tree(spec, tree, multi)
        assisted = assisted_of(spec, tree, multi)   # judge-assisted mode: the board's figures by the estimator
        progress.update("computing", 1, 2, force=True)
        results, published = computed(spec, counted, grades, assisted)
        agreement = agreement_tables(spec, tree, multi)
        published = published.with_tables(agreement)
        files, board, problems = computed_files(root, spec, published)
    outputs, problems = leaderboard_outputs(root, files, problems, readme=readme)
    if board is None or outputs is None:
        return report(problems)
    outputs.update({root / "results" / name: data for name, data in published.files.items()})
    try:  # manifest.json last: it vouches for the whole set (make leaderboard and make check read it)
        write_many_atomic(outputs, last=MANIFEST_FILE)
        drop_stale_judge_report(root, agreement)
    except OutputError as exc:
        return refuse(exc.strerror)
    print(metrics_summary(root, results))
    # the consolidated scorings (87,000 files at 100 x 300 x 3) are written on request (make agreement); once asked
    # for, they are kept current, so that a folder `--scoring-dir` reads is never stale
    status = write_agreement(root, spec, tree, multi, write_consolidated=(root / CONSOLIDATED_DIR).is_dir(),
                             tables=agreement)
    if status == 0:
        print(summary(root, board))
    return status
