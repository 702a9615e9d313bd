"""Tests that travel: a fork that replaces system/ and the data with another benchmark keeps the suite green.

* The library tests build their trees on ``tests/fixtures/library/system/``
  (treebuilder.LIBRARY_SYSTEM), not on the repository's system/; while the
  repository holds the RO sample, that fixture must equal its system/ (a
  ``sample`` test), so the library tests keep testing what ships.
* Tests whose expectations are hand-computed from the RO sample carry the
  ``sample`` marker (tests/conftest.py skips them when system/ holds another
  benchmark); the rest is the portable part.
* The fork test copies the repository, replaces system/, golds/, responses/,
  scoring/, subjects/ and results/ with examples/medadvice, regenerates the
  results and the README block as an adopter would (``make metrics``), and runs
  the portable part there. It runs the suite a second time, so it is opt-in:
  ``make test-fork`` (RGBENCH_FORK_TEST=1); CI runs it after ``make test``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from treebuilder import LIBRARY_SYSTEM, REPO, is_ro_sample

DATA = ("system", "golds", "responses", "scoring", "scoring_multi", "subjects")
EXAMPLE = REPO / "examples" / "medadvice"


@pytest.mark.sample
def test_the_library_fixture_is_the_shipped_sample_system():
    # Every file of the fixture has the bytes of the shipped system/'s file (the two long documents,
    # generic_rubric.md and aggregate_metrics.md, are not copied: no library test reads them from a tree).
    fixture = sorted(p.relative_to(LIBRARY_SYSTEM) for p in LIBRARY_SYSTEM.rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(REPO / "system") for p in (REPO / "system").rglob("*") if p.is_file())
    assert set(fixture) == set(shipped) - {p for p in shipped if p.suffix == ".md"}
    stale = [str(rel) for rel in fixture if (LIBRARY_SYSTEM / rel).read_bytes() != (REPO / "system" / rel).read_bytes()]
    assert stale == [], "copy system/ to tests/fixtures/library/system/ for: " + ", ".join(stale)


def test_the_sample_is_recognised_by_its_facts_not_its_path(tmp_path):
    shutil.copytree(LIBRARY_SYSTEM, tmp_path / "system")
    assert is_ro_sample(tmp_path)
    assert not is_ro_sample(EXAMPLE)
    assert not is_ro_sample(tmp_path / "nowhere")


def tracked_files(root: Path) -> list[str]:
    """The repository's files as a clone would have them (git ls-files, plus untracked files not ignored)."""
    done = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("not a git checkout: the fork test copies what a clone holds")
    return [name for name in done.stdout.decode("utf-8").split("\0") if name and (root / name).is_file()]


def make_fork(dest: Path) -> Path:
    for name in tracked_files(REPO):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    for name in DATA:
        shutil.rmtree(dest / name, ignore_errors=True)
        if (EXAMPLE / name).exists():
            shutil.copytree(EXAMPLE / name, dest / name)
    # A fork is a git repository (the tests of .gitignore and CODEOWNERS ask git about it).
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "add", "-A"], check=True)
    for path in (dest / "results").iterdir():  # results are regenerated; results/README.md documents them
        if path.name != "README.md":
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    if sys.prefix != sys.base_prefix:  # the fork's `make` targets use .venv, as after `make` in a clone
        (dest / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return dest


@pytest.mark.skipif(os.environ.get("RGBENCH_FORK_TEST") != "1",
                    reason="runs the suite a second time: `make test-fork` (RGBENCH_FORK_TEST=1)")
def test_a_fork_with_another_benchmark_runs_the_portable_suite_green(tmp_path):
    fork = make_fork(tmp_path / "fork")
    env = {key: value for key, value in os.environ.items() if key != "RGBENCH_FORK_TEST"}
    for script, extra in (("compute_metrics.py", []), ("aggregate_scoring.py", []),
                          ("build_leaderboard.py", ["--readme"])):
        done = subprocess.run([sys.executable, str(fork / "scripts" / script), "--root", str(fork), *extra],
                              capture_output=True, text=True, env=env, check=False)
        assert done.returncode == 0, done.stderr
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "-m", "not sample"],
                          cwd=fork, capture_output=True, text=True, env=env, check=False)
    tail = done.stdout[-4000:]
    assert done.returncode == 0, tail
    assert " passed" in tail and " failed" not in tail and " error" not in tail, tail
