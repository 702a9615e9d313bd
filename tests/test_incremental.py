"""The incremental path of compute_metrics (folder fingerprints, per-subject slices and their memo) can
never change a result: after any change, results equal a cold ``--no-cache`` run byte for byte."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import zlib
from pathlib import Path

import numpy as np
import pytest

import compute_metrics
import rgbench.folder_scan as folder_scan
import rgbench.parallel as parallel
import rgbench.memo_files as memo_files
from rgbench.folder_scan import scan_subject_folders, subject_folders
from rgbench.loader import load_tree
from rgbench.spec import load_spec
from rgbench.stats.run_columns import RunColumns, SubjectColumns
from rgbench.subject_memo import MEMO_DIR, SubjectMemo
from rgbench.subject_slice import SubjectSlice
from rgbench.tables import input_digest, input_listing, slices_of_tree
from test_cache import age_cache
from treebuilder import small_tree

REPO = Path(__file__).resolve().parent.parent
METHODS = pytest.mark.parametrize("use_find", [True, False], ids=["find", "python"])


def replace_file(path: Path, text: str) -> None:
    """Write through a new file and a rename: a new inode, so the change is visible however fast it comes."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


# --- folder fingerprints ----------------------------------------------------------------------

def make_folders(root: Path) -> list[str]:
    for sid in ("a", "b"):
        for name in ("x.json", "y.json"):
            (root / "top" / sid).mkdir(parents=True, exist_ok=True)
            (root / "top" / sid / name).write_text(f"{sid}/{name}")
    return ["top/a", "top/b"]


@METHODS
def test_fingerprints_are_stable_and_see_every_change(tmp_path, use_find):
    folders = make_folders(tmp_path)
    first = scan_subject_folders(tmp_path, folders, use_find=use_find, racy_ns=0)
    assert set(first) == set(folders) and all(first.values())
    assert first["top/a"] != first["top/b"]
    assert scan_subject_folders(tmp_path, folders, use_find=use_find, racy_ns=0) == first
    replace_file(tmp_path / "top/a/x.json", "a/x.jsoN")  # same size, new content
    changed = scan_subject_folders(tmp_path, folders, use_find=use_find, racy_ns=0)
    assert changed["top/a"] != first["top/a"] and changed["top/b"] == first["top/b"]
    (tmp_path / "top/b/z.json").write_text("new")
    added = scan_subject_folders(tmp_path, folders, use_find=use_find, racy_ns=0)
    assert added["top/b"] != first["top/b"] and added["top/a"] == changed["top/a"]
    (tmp_path / "top/b/z.json").unlink()
    assert scan_subject_folders(tmp_path, folders, use_find=use_find, racy_ns=0)["top/b"] == first["top/b"]
    # every file was written just now: with the default 2 s window every folder is racy (untrusted)
    assert scan_subject_folders(tmp_path, folders, use_find=use_find) == {"top/a": None, "top/b": None}


@METHODS
@pytest.mark.parametrize("odd", ["symlink", "subfolder", "fifo", "symlinked-folder"])
def test_a_folder_holding_anything_but_regular_files_is_not_trusted(tmp_path, use_find, odd):
    folders = make_folders(tmp_path)
    if odd == "symlink":
        (tmp_path / "top/a/link.json").symlink_to(tmp_path / "top/a/x.json")
    elif odd == "subfolder":
        (tmp_path / "top/a/deeper").mkdir()
    elif odd == "fifo":
        os.mkfifo(tmp_path / "top/b/pipe.json")
    else:
        shutil.rmtree(tmp_path / "top/b")
        (tmp_path / "top/b").symlink_to(tmp_path / "top/a")
        assert subject_folders(tmp_path, "top") is None
        return
    found = scan_subject_folders(tmp_path, folders, use_find=use_find, racy_ns=0)
    odd_folder = "top/b" if odd == "fifo" else "top/a"
    assert found[odd_folder] is None and all(found[f] for f in folders if f != odd_folder)


def test_subject_folders_lists_plain_folders_only(tmp_path):
    assert subject_folders(tmp_path, "missing/v1.0") == []
    make_folders(tmp_path)
    (tmp_path / "top/.gitkeep").write_text("")
    assert subject_folders(tmp_path, "top") == ["a", "b"]
    (tmp_path / "top/stray.json").write_text("{}")
    assert subject_folders(tmp_path, "top") is None
    (tmp_path / "file").write_text("")
    assert subject_folders(tmp_path, "file/v1.0") is None


def test_without_gnu_find_the_python_scan_answers(tmp_path, monkeypatch):
    folders = make_folders(tmp_path)
    empty = tmp_path / "no-tools"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    found = scan_subject_folders(tmp_path, folders, racy_ns=0)
    assert set(found) == set(folders) and all(fp.startswith(b"py:") for fp in found.values())


# --- slices, columns and listings --------------------------------------------------------------

def test_a_slice_survives_its_round_trip_through_builtin_values():
    spec, _ = load_spec(REPO)
    tree, problems = load_tree(REPO, spec, use_cache=False)
    assert problems == []
    slices, loose = slices_of_tree(tree, spec)
    assert [s.subject_id for s in slices] == sorted(tree.subjects)
    for original in slices:
        blobs: list = []
        plain = original.to_plain(blobs)
        back = SubjectSlice.from_plain(plain, blobs)
        again: list = []
        assert back.to_plain(again) == plain and again == blobs
        assert back.metrics == original.metrics and back.families == original.families
    # the listing merged from loose files and per-folder blocks is the sorted listing of every input
    merged = input_listing(loose, (block for s in slices for block in s.blocks))
    assert merged.digest == input_digest(tree.inputs) and merged.count == len(tree.inputs)
    with pytest.raises(ValueError):
        SubjectColumns.from_plain(((("c", "r"),), np.array([1], dtype=np.int64).tobytes(), *[b""] * 5))


def test_blocks_sort_as_units_even_when_ids_share_a_prefix():
    # "a-b/" sorts before "a/" ('-' < '/') although subject "a" sorts before "a-b": the listing is by path.
    from rgbench.subject_slice import input_block
    files = {"r/a/x": "1" * 64, "r/a-b/x": "2" * 64, "r/a/y": "3" * 64, "q": "4" * 64, "s": "5" * 64}
    blocks = [input_block("r/a/", [("r/a/y", "3" * 64), ("r/a/x", "1" * 64)]), input_block("r/a-b/", [("r/a-b/x", "2" * 64)])]
    merged = input_listing({"q": "4" * 64, "s": "5" * 64}, blocks)
    listing = "".join(f"{d}  {p}\n" for p, d in sorted(files.items()))
    assert merged.digest == input_digest(files) == hashlib.sha256(listing.encode()).hexdigest()
    assert b",\n".join(merged.json_chunks).decode().split(",\n") == [f'    "{p}": "{d}"' for p, d in sorted(files.items())]


def test_columns_from_parts_equal_a_direct_construction():
    rng = np.random.default_rng(7)
    parts = {}
    for sid in ("s2", "s1", "s3"):
        n = int(rng.integers(0, 6))
        items = tuple(sorted({(f"C{int(rng.integers(0, 4))}", f"r{int(rng.integers(0, 2))}") for _ in range(n)}))
        runs = len(items) and int(rng.integers(1, 8))
        parts[sid] = SubjectColumns(items, rng.integers(0, max(len(items), 1), runs) if items else np.zeros(0, np.int64),
                                    *(rng.integers(0, 3, runs) for _ in range(3)),
                                    rng.integers(0, 2, runs), rng.choice([1, 2], runs))
    columns = RunColumns.from_parts(parts)
    assert columns.subjects == ("s1", "s2", "s3")
    items = sorted({pair for part in parts.values() for pair in part.items})
    assert list(columns.items) == items and list(columns.cases) == sorted({c for c, _ in items})
    expected_items = [items.index(parts[sid].items[i]) for sid in columns.subjects for i in parts[sid].item]
    assert columns.item.tolist() == expected_items
    assert columns.case.tolist() == [columns.cases.index(items[i][0]) for i in expected_items]
    expected = [int(num) * columns.scale // int(den) for sid in columns.subjects
                for num, den in zip(parts[sid].correctness_num, parts[sid].correctness_den)]
    assert columns.correctness.tolist() == expected


# --- the memo never changes a result -----------------------------------------------------------

def results_of(root: Path, folder: str = "results") -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / folder).iterdir())}


def run_both(root: Path, capsys, *extra: str) -> tuple[int, dict, str]:
    """compute_metrics with the cache and memo, and cold into another folder: same status, output and stderr."""
    capsys.readouterr()
    warm = compute_metrics.main(["--root", str(root), *extra])
    warm_err = capsys.readouterr().err
    cold = compute_metrics.main(["--root", str(root), "--no-cache", "--results-dir", "cold", *extra])
    cold_err = capsys.readouterr().err
    assert (warm, warm_err) == (cold, cold_err)
    if warm == 0:
        assert results_of(root) == results_of(root, "cold")
    return warm, results_of(root) if warm == 0 else {}, warm_err


@pytest.fixture
def trusting(monkeypatch):
    """Fingerprints are trusted at once (no 2 s racy window); every change below is made through a
    rename, which changes the inode, so it is seen whatever the clock resolution."""
    monkeypatch.setattr(folder_scan, "RACY_NS", 0)
    rebuilt: list[str] = []
    real = SubjectMemo.put

    def spy(self, found, content, fingerprints):
        before = list(self.written)
        real(self, found, content, fingerprints)
        rebuilt.extend(sid for sid in self.written if sid not in before)

    monkeypatch.setattr(SubjectMemo, "put", spy)
    return rebuilt


def test_every_kind_of_change_gives_the_cold_results(tmp_path, capsys, trusting):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert run_both(root, capsys)[0] == 0
    assert sorted(trusting) == ["alpha-model", "beta-model"]
    trusting.clear()
    assert run_both(root, capsys)[0] == 0
    assert trusting == []  # nothing changed: both subjects came from the memo
    scoring = root / "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"
    replace_file(scoring, scoring.read_text().replace('"correctness": 1', '"correctness": 0'))
    status, results, _ = run_both(root, capsys)
    assert status == 0 and trusting == ["alpha-model"]
    assert "alpha-model,2.0,RO-FOUL-001,r1,rev-a,FOUL,12,4,12,12,false,false,Pass,90,0.900000,0.000000" in \
        results["per_run.csv"].decode()
    trusting.clear()
    tree.add_run("beta-model", "RO-MEMB-001", "r1", confidence=40, raw=9, correctness=1)
    assert run_both(root, capsys)[0] == 0 and trusting == ["beta-model"]
    gold = root / "golds/v1.0/RO-SCAL-001_gold.md"
    replace_file(gold, gold.read_text().replace('"rubric_floor": 3', '"rubric_floor": 9'))
    assert run_both(root, capsys)[0] == 0  # a gold is global: every subject is rebuilt
    trusting.clear()
    assert run_both(root, capsys, "--alpha", "0.25")[0] == 0
    assert trusting == []  # alpha enters Q_final only when the slices are merged: no subject rebuilt
    tree.add_subject("gamma-model", "0.1")
    tree.add_run("gamma-model", "RO-FOUL-001", "r1", confidence=10, raw=3, correctness=0)
    assert run_both(root, capsys)[0] == 0
    shutil.rmtree(root / "responses/v1.0/gamma-model")  # its scoring now grades nothing: refused
    status, _, err = run_both(root, capsys)
    assert status == 1 and "no matching response" in err
    shutil.rmtree(root / "scoring/v1.0/gamma-model")
    assert run_both(root, capsys)[0] == 0  # a registered subject with no folder at all
    (root / "scoring/v1.0/beta-model/RO-SCAL-001__r1__eval-rev-a.json").unlink()
    assert run_both(root, capsys)[0] == 0  # an unscored response


def test_a_registry_change_and_an_odd_file_take_the_full_path_with_the_same_messages(tmp_path, capsys, trusting):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert run_both(root, capsys)[0] == 0
    registry = root / "subjects/registry.yaml"
    replace_file(registry, registry.read_text().replace('"1.1"', '"1.2"'))
    status, _, err = run_both(root, capsys)
    assert status == 1 and "registers 'beta-model' at '1.2'" in err
    replace_file(registry, registry.read_text().replace('"1.2"', '"1.1"'))
    (root / "responses/v1.0/alpha-model/link.json").symlink_to(root / "subjects/registry.yaml")
    status, _, err = run_both(root, capsys)
    assert status == 1 and "link.json: is a symbolic link" in err


def test_only_the_changed_subject_is_read(tmp_path, capsys, trusting, monkeypatch):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert compute_metrics.main(["--root", str(root)]) == 0
    age_cache(root)  # the per-file cache trusts files older than its shards
    parsed: list[str] = []
    real = parallel._read_and_extract
    monkeypatch.setattr(parallel, "_read_and_extract", lambda *a: parsed.append(a[1]) or real(*a))
    scoring = root / "scoring/v1.0/beta-model/RO-SCAL-001__r1__eval-rev-a.json"
    replace_file(scoring, scoring.read_text().replace('"correctness": 0', '"correctness": 1'))
    assert compute_metrics.main(["--root", str(root)]) == 0
    assert parsed == ["scoring/v1.0/beta-model/RO-SCAL-001__r1__eval-rev-a.json"]


def memo_file(root: Path, sid: str) -> Path:
    return SubjectMemo(root, "scoring", "")._path(sid)


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "other-subject", "other-context",
                                    "payload-of-another-subject"])
def test_a_damaged_or_foreign_memo_entry_is_ignored_and_rewritten(tmp_path, capsys, trusting, damage):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    status, reference, _ = run_both(root, capsys)
    path, other = memo_file(root, "alpha-model"), memo_file(root, "beta-model")
    data = path.read_bytes()
    head, _, payload = data.partition(b"\n")
    header = json.loads(head)
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        path.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff not a memo")
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "other-subject":
        path.write_bytes(other.read_bytes())
    elif damage == "other-context":
        header["context"] = "0" * 64
        path.write_bytes(json.dumps(header).encode() + b"\n" + payload)
    else:  # a valid header over another subject's (consistent) payload
        other_head, _, other_payload = other.read_bytes().partition(b"\n")
        header["crc32"], header["meta"] = zlib.crc32(other_payload), json.loads(other_head)["meta"]
        path.write_bytes(json.dumps(header).encode() + b"\n" + other_payload)
    trusting.clear()
    assert run_both(root, capsys) == (0, reference, "")
    assert trusting == ["alpha-model"] and path.read_bytes() == data


def test_a_code_change_voids_the_memo(tmp_path, capsys, trusting, monkeypatch):
    tree = small_tree(tmp_path / "tree")
    assert run_both(tree.root, capsys)[0] == 0
    trusting.clear()
    monkeypatch.setattr(memo_files, "_code_digest", "f" * 64)
    assert run_both(tree.root, capsys)[0] == 0
    assert sorted(trusting) == ["alpha-model", "beta-model"]


def test_memo_entries_of_unregistered_subjects_are_deleted(tmp_path, capsys, trusting):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert compute_metrics.main(["--root", str(root)]) == 0
    stray = root / MEMO_DIR / "scoring" / "0123.bin"
    stray.write_bytes(b"old")
    assert compute_metrics.main(["--root", str(root)]) == 0
    assert not stray.exists() and memo_file(root, "alpha-model").exists()
    assert compute_metrics.main(["--root", str(root), "--no-cache", "--results-dir", "cold"]) == 0


def test_no_cache_neither_reads_nor_writes_the_memo(tmp_path, capsys, trusting, monkeypatch):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert compute_metrics.main(["--root", str(root), "--no-cache"]) == 0
    assert not (root / ".cache").exists()
    assert compute_metrics.main(["--root", str(root)]) == 0
    reference = results_of(root)
    for path in (root / MEMO_DIR / "scoring").iterdir():
        path.write_bytes(b"garbage that would fail any read")
    garbage = {path: path.stat().st_mtime_ns for path in (root / MEMO_DIR / "scoring").iterdir()}
    reads: list[str] = []
    monkeypatch.setattr(memo_files.MemoFiles, "read", lambda self, sid: reads.append(sid))
    trusting.clear()
    assert compute_metrics.main(["--root", str(root), "--no-cache"]) == 0
    assert reads == [] and trusting == [] and results_of(root) == reference
    assert {path: path.stat().st_mtime_ns for path in garbage} == garbage


def test_find_output_parsing_marks_the_folder_above_a_subfolder_and_refuses_the_unexpected():
    from rgbench.folder_scan import _parse_find
    record = b"1796000000.0000000000 12 34 2049 x.json\0"
    good = b"\x010 ./top/a\0" + record + b"\x010 ./top/b\0" + record
    found = _parse_find(good, ["top/a", "top/b"])
    assert found["top/a"] == found["top/b"] and found["top/a"].startswith(b"find:")
    # a subfolder ends its parent's chunk; the parent is not trusted, the other folder is
    nested = b"\x010 ./top/a\0" + record + b"\x011 ./top/a/sub\0" + record + b"\x010 ./top/b\0" + record
    assert _parse_find(nested, ["top/a", "top/b"]) == {"top/a": None, "top/b": found["top/b"]}
    racy = b"\x010 ./top/a\0" + record[:-1] + b"\0\x03" + b"\x010 ./top/b\0" + record
    assert _parse_find(racy, ["top/a", "top/b"])["top/a"] is None
    link = b"\x010 ./top/a\0\x02l ./top/a/x.json\0\x010 ./top/b\0" + record
    assert _parse_find(link, ["top/a", "top/b"])["top/a"] is None
    assert _parse_find(good, ["top/a", "top/b", "top/c"]) is None  # a folder missing from the output
    assert _parse_find(b"junk" + good, ["top/a", "top/b"]) is None
    assert _parse_find(b"\x010 ./top/\xff\0", ["top/a"]) is None


def test_discover_folders_lists_every_version_and_subject_folder(tmp_path):
    from rgbench.folder_scan import discover_folders
    for rel in ("responses/v1.0/a", "responses/v1.0/b", "responses/v0.9/a", "scoring/v1.0/a"):
        (tmp_path / rel).mkdir(parents=True)
    (tmp_path / "responses/v1.0/file.json").write_text("{}")
    (tmp_path / "responses/v1.0/link").symlink_to(tmp_path / "responses/v1.0/a")
    assert discover_folders(tmp_path, ("responses", "scoring", "missing")) == [
        "responses/v0.9/a", "responses/v1.0/a", "responses/v1.0/b", "scoring/v1.0/a"]


def test_another_scoring_folder_has_its_own_memo(tmp_path, capsys, trusting):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    shutil.copytree(root / "scoring", root / "scoring_consolidated")
    assert run_both(root, capsys)[0] == 0
    assert run_both(root, capsys, "--scoring-dir", "scoring_consolidated")[0] == 0
    assert (root / MEMO_DIR / "scoring").is_dir() and (root / MEMO_DIR / "scoring_consolidated").is_dir()
    other = root / "scoring_consolidated/v1.0/beta-model/RO-SCAL-001__r1__eval-rev-a.json"
    replace_file(other, other.read_text().replace('"correctness": 0', '"correctness": 1'))
    trusting.clear()
    status, consolidated, _ = run_both(root, capsys, "--scoring-dir", "scoring_consolidated")
    assert status == 0 and trusting == ["beta-model"]
    trusting.clear()
    status, plain, _ = run_both(root, capsys)
    assert status == 0 and trusting == [] and plain["per_run.csv"] != consolidated["per_run.csv"]
