"""The page's charts drawn on every core give exactly what one process gives; input files are read in one.

The chart pool starts only from 8 charts, and the other tests draw in their own process (conftest.py); here the
threshold is lowered so that the pool runs on a small tree, and its outputs are compared byte for byte with the
one-process path: the page's SVGs here, every result file end to end in make test-slow.
It needs two cores and fork; without them the pool cannot run at all. (Input files were read by a pool too
until issue 26: at 177,000 files it saved about 2 s of a 20 s `make metrics` on two cores.)
"""

from __future__ import annotations

import multiprocessing
import shutil

import make_synthetic
import pytest
from treebuilder import LIBRARY_ROOT, small_tree

import rgbench.leaderboard.page_charts as page_charts
import rgbench.load.parallel as parallel
from rgbench.cli import run_script
from rgbench.commands.leaderboard import build_files
from rgbench.load.extract import EVALUATION, GOLD, RESPONSE, extract_files
from rgbench.load.safe_read import walk_files
from rgbench.load.spec import load_spec

needs_pool = pytest.mark.skipif(parallel.usable_cores() < 2 or "fork" not in multiprocessing.get_all_start_methods(),
                                reason="the pool path needs two cores and fork")


def spy_on_pools(monkeypatch) -> list[str]:
    """The start method of every multiprocessing context asked for from now on (the pools use one each)."""
    asked: list[str] = []
    real = multiprocessing.get_context

    def get_context(method=None):
        asked.append(method)
        return real(method)

    monkeypatch.setattr(multiprocessing, "get_context", get_context)
    return asked


def tree_with_a_refused_response(root):
    """The small tree plus one response whose confidence (500) the schema refuses, and that response's path."""
    tree = small_tree(root)
    broken = tree.add_response("beta-model", "RO-MEMB-001", "r1", 50)
    broken.write_text(broken.read_text().replace('"confidence": 50', '"confidence": 500'))
    return tree, broken


def test_extraction_keeps_each_result_with_its_file_and_reports_progress(tmp_path):
    tree, broken = tree_with_a_refused_response(tmp_path / "tree")
    spec, _ = load_spec(tree.root)
    jobs = [(entry, kind) for folder, kind in (("golds", GOLD), ("responses", RESPONSE), ("scoring", EVALUATION))
            for entry in walk_files(tree.root, folder)[0]]
    done: list[int] = []
    found = extract_files(tree.root, spec, jobs, done.append)
    assert list(found) == [entry.rel for entry, _ in jobs] and len(jobs) > 8 and done == [len(jobs)]
    assert [rel for rel, result in found.items() if result.problems] == [broken.relative_to(tree.root).as_posix()]


@needs_pool
def test_the_pool_draws_the_svgs_one_process_draws(tmp_path, monkeypatch):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    _, board, problems = build_files(root)
    assert board is not None, problems
    alone = page_charts.page_svgs(board)
    monkeypatch.setattr(page_charts, "PARALLEL_MIN_CHARTS", 1)
    pools = spy_on_pools(monkeypatch)
    assert page_charts.page_svgs(board) == alone
    assert pools == ["fork"] and alone.q_final and len(alone.calibration) == 2   # drawing took its pool


@pytest.mark.slow   # end to end: make test-slow (CI runs it)
@needs_pool
def test_results_and_leaderboard_from_the_pools_are_byte_identical(tmp_path, monkeypatch):
    one, many = tmp_path / "one", tmp_path / "many"
    make_synthetic.build(one, subjects=4, cases=6, runs=2, seed=3, root=LIBRARY_ROOT)
    shutil.copytree(one, many)
    for root in (one, many):
        if root == many:
            monkeypatch.setattr(page_charts, "PARALLEL_MIN_CHARTS", 1)
            pools = spy_on_pools(monkeypatch)
        assert run_script("compute", ["--root", str(root)]) == 0
        assert run_script("leaderboard", ["--root", str(root)]) == 0
    assert pools == ["fork"]                    # drawing took its pool
    names = sorted(path.name for path in (one / "results").iterdir())
    assert "leaderboard.html" in names and "per_run.csv" in names
    for name in names:
        assert (many / "results" / name).read_bytes() == (one / "results" / name).read_bytes(), name


def test_a_run_writes_nothing_but_its_results(tmp_path):
    root = small_tree(tmp_path / "tree").root
    before = {path for path in root.rglob("*")}
    assert run_script("compute", ["--root", str(root)]) == 0
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    added = {path.relative_to(root).as_posix() for path in root.rglob("*")} - {p.relative_to(root).as_posix() for p in before}
    assert added and all(path == "results" or path.startswith("results/") for path in added), sorted(added)
