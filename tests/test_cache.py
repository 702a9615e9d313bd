"""The per-file cache can never change a result, and it does save the work it promises."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import compute_metrics
import rgbench.parallel as parallel
from rgbench.filecache import CACHE_FILE, FileCache
from rgbench.loader import load_tree
from rgbench.progress import Progress
from rgbench.spec import load_spec
from treebuilder import small_tree

OUTPUTS = ("manifest.json", "metrics_per_family.csv", "metrics_per_subject.csv", "per_run.csv")


def outputs(root: Path) -> dict[str, bytes]:
    return {name: (root / "results" / name).read_bytes() for name in OUTPUTS}


def age_cache(root: Path) -> None:
    """Pretend the cache was written long after the files (it only trusts files older than itself)."""
    path = root / CACHE_FILE
    head, _, payload = path.read_bytes().partition(b"\n")
    import json
    header = json.loads(head)
    header["written_ns"] += 10**12
    path.write_bytes(json.dumps(header, sort_keys=True).encode() + b"\n" + payload)


def count_parses(monkeypatch) -> list[str]:
    parsed: list[str] = []
    real = parallel._read_and_extract

    def spy(root, rel, kind, spec):
        parsed.append(rel)
        return real(root, rel, kind, spec)

    monkeypatch.setattr(parallel, "_read_and_extract", spy)
    return parsed


def test_results_identical_with_and_without_cache(tmp_path):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert compute_metrics.main(["--root", str(root), "--no-cache"]) == 0
    assert not (root / CACHE_FILE).exists()
    reference = outputs(root)
    assert compute_metrics.main(["--root", str(root)]) == 0  # builds the cache
    assert (root / CACHE_FILE).exists()
    assert outputs(root) == reference
    age_cache(root)
    assert compute_metrics.main(["--root", str(root)]) == 0  # served from the cache
    assert outputs(root) == reference


def test_warm_run_parses_only_the_changed_file(tmp_path, monkeypatch):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    spec, _ = load_spec(root)
    load_tree(root, spec)
    age_cache(root)
    parsed = count_parses(monkeypatch)
    load_tree(root, spec)
    assert parsed == []
    rel = tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b", raw=4, correctness=0).relative_to(root)
    tree_loaded, problems = load_tree(root, spec)
    assert problems == [] and parsed == [str(rel)]
    assert len(tree_loaded.scorings) == 6


@pytest.mark.parametrize("aged", [False, True])
def test_a_changed_file_with_the_same_size_and_time_is_still_seen(tmp_path, aged):
    # Not aged: the file is recent, so the racy-git rule re-reads it. Aged: the cache trusts old
    # files, but rewriting the file changed its ctime (which utime cannot set back).
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert compute_metrics.main(["--root", str(root)]) == 0
    if aged:
        age_cache(root)
    rel = root / "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"
    stat = rel.stat()
    rel.write_text(rel.read_text().replace('"correctness": 1', '"correctness": 0'))
    os.utime(rel, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert compute_metrics.main(["--root", str(root)]) == 0
    assert "alpha-model,2.0,RO-FOUL-001,r1,rev-a,FOUL,12,4,12,12,false,false,Pass,90,0.900000,0.000000" in \
        (root / "results/per_run.csv").read_text()


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "foreign-system", "empty"])
def test_corrupted_or_foreign_cache_is_detected_and_rebuilt(tmp_path, damage):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert compute_metrics.main(["--root", str(root), "--no-cache"]) == 0
    reference = outputs(root)
    assert compute_metrics.main(["--root", str(root)]) == 0
    path = root / CACHE_FILE
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        path.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff not a cache")
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # a cache built for another system/ (other schemas) must not be used
        spec, _ = load_spec(root)
        cache = FileCache(root, "0" * 64)
        cache.dirty = True
        cache.save()
    status = FileCache(root, _system_digest(root)).status
    assert status in {"corrupt", "stale", "empty"}
    assert compute_metrics.main(["--root", str(root)]) == 0
    assert outputs(root) == reference
    assert FileCache(root, _system_digest(root)).status == "loaded"  # rebuilt


def _system_digest(root: Path) -> str:
    from rgbench.loader import _Collector, _read_system
    return _read_system(_Collector(root))


def test_cache_is_not_shared_through_a_copy_of_the_tree(tmp_path):
    # A copied tree (new inodes) with other content at the same paths must not reuse entries.
    import shutil
    tree = small_tree(tmp_path / "one")
    assert compute_metrics.main(["--root", str(tree.root)]) == 0
    age_cache(tree.root)
    copy = tmp_path / "two"
    shutil.copytree(tree.root, copy)
    target = copy / "scoring/v1.0/beta-model/RO-SCAL-001__r1__eval-rev-a.json"
    target.write_text(target.read_text().replace('"correctness": 0', '"correctness": 1'))
    assert compute_metrics.main(["--root", str(copy)]) == 0
    assert ",0,0.000000,1.000000" in (copy / "results/per_run.csv").read_text()


def test_parallel_and_serial_extraction_agree(tmp_path, monkeypatch):
    tree = small_tree(tmp_path / "tree")
    for index in range(40):
        tree.add_response("beta-model", "RO-MEMB-001", f"x{index}", index)
    spec, _ = load_spec(tree.root)
    serial, _ = load_tree(tree.root, spec, use_cache=False)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(parallel, "_CHUNK", 7)
    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    parallel_tree, _ = load_tree(tree.root, spec, use_cache=False)
    assert parallel_tree == serial


def test_progress_is_silent_off_a_terminal_and_draws_on_one():
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    quiet = io.StringIO()
    progress = Progress(quiet)
    progress.update("reading", 5, 10)
    progress.close()
    assert quiet.getvalue() == ""
    shown = Tty()
    progress = Progress(shown, delay=0, enabled=True)
    progress.update("reading", 5, 10)
    progress.update("reading", 6, 10)      # throttled: within 0.1 s of the last draw
    progress.update("computing", 1, 3, force=True)
    progress.close()
    text = shown.getvalue()
    assert "reading" in text and "[###############---------------] 5/10" in text and "6/10" not in text
    assert "computing  [##########--------------------] 1/3" in text
    assert text.endswith("\r" + " " * 70 + "\r")  # the line is erased at the end
