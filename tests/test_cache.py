"""The per-file cache can never change a result, and it does save the work it promises."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import compute_metrics
import rgbench.parallel as parallel
from rgbench.filecache import CACHE_DIR, LEGACY_CACHE_FILE, FileCache, shard_name
from rgbench.loader import load_tree
from rgbench.progress import Progress
from rgbench.spec import load_spec
from treebuilder import small_tree

OUTPUTS = ("manifest.json", "metrics_per_family.csv", "metrics_per_subject.csv", "per_run.csv")


def outputs(root: Path) -> dict[str, bytes]:
    return {name: (root / "results" / name).read_bytes() for name in OUTPUTS}


def shard_files(root: Path) -> list[Path]:
    folder = root / CACHE_DIR
    return sorted(folder.glob("*.bin")) if folder.is_dir() else []


def shard_of(root: Path, folder: str) -> Path:
    return root / CACHE_DIR / shard_name(folder)


def age_cache(root: Path) -> None:
    """Pretend every shard was written long after the files (a shard only trusts files older than itself)."""
    import json
    for path in shard_files(root):
        head, _, payload = path.read_bytes().partition(b"\n")
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
    assert shard_files(root) == []
    reference = outputs(root)
    assert compute_metrics.main(["--root", str(root)]) == 0  # builds the cache
    assert shard_of(root, "golds/v1.0").exists() and shard_of(root, "scoring/v1.0/alpha-model").exists()
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
    path = shard_of(root, "scoring/v1.0/alpha-model")
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
        import json
        head, _, payload = data.partition(b"\n")
        header = json.loads(head)
        header["system"] = "0" * 64
        path.write_bytes(json.dumps(header, sort_keys=True).encode() + b"\n" + payload)
    status = FileCache(root, _system_digest(root)).status
    assert status in {"corrupt", "stale", "empty"}
    assert compute_metrics.main(["--root", str(root)]) == 0
    assert outputs(root) == reference
    assert FileCache(root, _system_digest(root)).status == "loaded"  # rebuilt


def test_a_change_rewrites_only_its_shard_and_vanished_folders_lose_theirs(tmp_path, monkeypatch):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    spec, _ = load_spec(root)
    load_tree(root, spec)
    age_cache(root)
    before = {path.name: path.read_bytes() for path in shard_files(root)}
    assert len(before) > 3
    rel = root / "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"
    rel.write_text(rel.read_text().replace('"correctness": 1', '"correctness": 0'))
    written = []
    real_save = FileCache.save

    def spy(self):
        real_save(self)
        written.extend(self.written)

    monkeypatch.setattr(FileCache, "save", spy)
    load_tree(root, spec)
    assert written == ["scoring/v1.0/alpha-model"]
    after = {path.name: path.read_bytes() for path in shard_files(root)}
    changed = {name for name in before if before[name] != after.get(name)}
    assert changed == {shard_name("scoring/v1.0/alpha-model")}
    # A vanished subject folder takes its shard with it; the legacy single-file cache is removed.
    import shutil
    (root / LEGACY_CACHE_FILE).write_bytes(b"old cache")
    shutil.rmtree(root / "scoring/v1.0/beta-model")
    age_cache(root)  # the changed file is recent, so its shard would rightly be rewritten once more
    written.clear()
    load_tree(root, spec)
    assert written == []
    assert not shard_of(root, "scoring/v1.0/beta-model").exists()
    assert shard_of(root, "responses/v1.0/beta-model").exists()
    assert not (root / LEGACY_CACHE_FILE).exists()


def test_a_shard_moved_to_another_folders_name_is_refused(tmp_path):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert compute_metrics.main(["--root", str(root)]) == 0
    source = shard_of(root, "scoring/v1.0/alpha-model")
    target = shard_of(root, "scoring/v1.0/beta-model")
    target.write_bytes(source.read_bytes())
    cache = FileCache(root, _system_digest(root))
    assert cache.status == "corrupt" and "scoring/v1.0/beta-model" not in cache.shards


def _system_digest(root: Path) -> str:
    from rgbench.loader import Collector, read_system
    return read_system(Collector(root))


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
