"""Temporary git repositories holding a benchmark, with reproducible commits.

Author, committer and dates are fixed (each commit one day after the previous
one), global and system git configuration are ignored, so the same steps give
the same commit ids on every machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from treebuilder import REPO, MiniTree, small_tree

SCRIPTS = REPO / "scripts"
# The toolkit copied into a test repository, as a maintainer's checkout has it.
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


class GitRepo:
    """A git repository at ``root`` with helpers to commit and run the toolkit's scripts in it."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.day = 0
        self.git("init", "-q", "-b", "main")

    def env(self) -> dict[str, str]:
        date = f"2026-01-{self.day + 1:02d}T12:00:00+00:00"
        return dict(
            os.environ,
            GIT_AUTHOR_NAME="Test Author", GIT_AUTHOR_EMAIL="author@example.org", GIT_AUTHOR_DATE=date,
            GIT_COMMITTER_NAME="Test Committer", GIT_COMMITTER_EMAIL="committer@example.org", GIT_COMMITTER_DATE=date,
            GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C", PYTHONDONTWRITEBYTECODE="1",
        )

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, text=True, env=self.env())
        if done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
        return done.stdout

    def commit(self, message: str) -> str:
        """Stage everything and commit; returns the new commit id."""
        self.day += 1
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def run(self, script: str, *args: str) -> subprocess.CompletedProcess:
        """Run one of this repository's own scripts (its copy of the toolkit) as a subprocess."""
        return subprocess.run([sys.executable, str(self.root / "scripts" / script), "--root", str(self.root), *args],
                              capture_output=True, text=True, env=self.env())

    def make(self, target: str, *variables: str) -> subprocess.CompletedProcess:
        """Run a Makefile target with the main repository's .venv (no install, no network)."""
        venv = REPO / ".venv"
        return subprocess.run(["make", "--no-print-directory", "-C", str(self.root), "-o", f"{venv}/.installed",
                               f"VENV={venv}", target, *variables], capture_output=True, text=True, env=self.env())


def regenerate(root: Path) -> None:
    """Every result-producing step (rgbench.cli.RESULT_STEPS) that the tree's toolkit has, in-process, and
    README.md's leaderboard block when the tree has a README (what `make metrics` writes)."""
    from rgbench.cli import COMMANDS, RESULT_STEPS, run_script

    for step in RESULT_STEPS:
        if (Path(root) / "scripts" / COMMANDS[step].script).exists():
            assert run_script(step, ["--root", str(root)]) == 0, step
    if (Path(root) / "README.md").exists():
        assert run_script("leaderboard", ["--root", str(root), "--readme"]) == 0


def metrics(repo: GitRepo) -> None:
    """Regenerate results/ as a reviewer does: `make metrics` (every result-producing step)."""
    done = repo.make("metrics")
    assert done.returncode == 0, done.stderr


def toolkit_repo(root: Path, tree_factory=small_tree) -> tuple[GitRepo, MiniTree]:
    """A repository with the toolkit (scripts/, Makefile), a small benchmark tree and its results, committed."""
    repo = GitRepo(root)
    tree = tree_factory(root)
    shutil.copytree(SCRIPTS, root / "scripts", ignore=_IGNORE)
    for name in ("Makefile", "requirements.txt", ".gitignore", "README.md"):
        shutil.copy2(REPO / name, root / name)
    return repo, tree
