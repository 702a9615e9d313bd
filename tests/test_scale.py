"""At the size where a board's own results outgrow the 1 MiB limit of an input, every step still reads them.

manifest.json held ~125 bytes an input file: 15 subjects x 100 cases x 3 runs gave ~8,800 response and
scoring files and a manifest above 1 MiB (MAX_FILE_BYTES), which build_leaderboard, check_results and the
pre-flight used to refuse as "larger than 1048576 bytes" (a board of 30 x 100 x 3 could not be built). The
manifest now records a digest per subject folder and stays small; explorer_runs.csv, ~210 bytes a run and read
back by build_leaderboard, passes 1 MiB at 15 x 100 x 4.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rgbench.load.safe_read import MAX_FILE_BYTES, MAX_RESULT_BYTES, read_result_file, read_single_file

REPO = Path(__file__).resolve().parent.parent


def test_result_files_have_their_own_limit(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results/manifest.json").write_bytes(b" " * (MAX_FILE_BYTES + 1))
    assert read_single_file(tmp_path, "results/manifest.json")[0] is None
    assert read_result_file(tmp_path, "results/manifest.json")[0] == b" " * (MAX_FILE_BYTES + 1)
    assert MAX_RESULT_BYTES > MAX_FILE_BYTES


def test_a_board_whose_results_exceed_one_mib_is_built_and_checked(tmp_path):
    tree = tmp_path / "tree"
    run = [sys.executable, str(REPO / "scripts/make_synthetic.py"), "--subjects", "15", "--cases", "100", "--runs", "4",
           "--out", str(tree)]
    subprocess.run(run, check=True, capture_output=True)
    for step in ("compute_metrics.py", "aggregate_scoring.py", "build_leaderboard.py", "check_results.py"):
        done = subprocess.run([sys.executable, str(REPO / "scripts" / step), "--root", str(tree)],
                              capture_output=True, text=True)
        assert done.returncode == 0, f"{step}: {done.stderr}"
    assert (tree / "results/explorer_runs.csv").stat().st_size > MAX_FILE_BYTES
