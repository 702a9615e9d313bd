"""The work spread over every core (file extraction, chart drawing) gives exactly what one process gives.

Both pools start only on large inputs (4,000 files, 8 charts), which the other tests never reach; here the
thresholds are lowered so that the pool path runs on small trees, and its outputs are compared byte for byte
with the one-process path. Both need two cores and fork; without them the pool path cannot run at all.
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
from rgbench.load.extract import EVALUATION, GOLD, RESPONSE
from rgbench.load.loader import load_tree
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


@needs_pool
def test_extraction_in_the_pool_equals_one_process(tmp_path, monkeypatch):
    tree, _ = tree_with_a_refused_response(tmp_path / "tree")
    spec, _ = load_spec(tree.root)
    serial = load_tree(tree.root, spec)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
    pools = spy_on_pools(monkeypatch)
    pooled = load_tree(tree.root, spec)
    assert pools == ["fork"]                    # the pool path did run
    assert serial[0] is None and serial[1]      # a refused tree: the problems must match too
    assert pooled == serial


@needs_pool
def test_extraction_in_many_chunks_keeps_each_result_with_its_file(tmp_path, monkeypatch):
    """The workers get ranges of the job list they inherited; results come back in order, chunk by chunk."""
    tree, broken = tree_with_a_refused_response(tmp_path / "tree")
    spec, _ = load_spec(tree.root)
    jobs = [(entry, kind) for folder, kind in (("golds", GOLD), ("responses", RESPONSE), ("scoring", EVALUATION))
            for entry in walk_files(tree.root, folder)[0]]
    serial = parallel.extract_files(tree.root, spec, jobs)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(parallel, "_CHUNK", 2)
    pools = spy_on_pools(monkeypatch)
    done: list[int] = []
    pooled = parallel.extract_files(tree.root, spec, jobs, done.append)
    assert pools == ["fork"] and len(jobs) > 8
    assert list(pooled.items()) == list(serial.items())
    assert done == [*range(2, len(jobs), 2), len(jobs)]
    assert [rel for rel, result in pooled.items() if result.problems] == [broken.relative_to(tree.root).as_posix()]


@needs_pool
def test_results_and_leaderboard_from_the_pools_are_byte_identical(tmp_path, monkeypatch):
    one, many = tmp_path / "one", tmp_path / "many"
    make_synthetic.build(one, subjects=4, cases=6, runs=2, seed=3, root=LIBRARY_ROOT)
    shutil.copytree(one, many)
    for root in (one, many):
        if root == many:
            monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
            monkeypatch.setattr(page_charts, "PARALLEL_MIN_CHARTS", 1)
            pools = spy_on_pools(monkeypatch)
        assert run_script("compute", ["--root", str(root)]) == 0
        assert run_script("leaderboard", ["--root", str(root)]) == 0
    assert pools == ["fork", "fork"]            # extraction and drawing both took their pool
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
