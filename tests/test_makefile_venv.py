"""The Makefiles' .venv rule (this repository's and the one `rgbench init` writes): Python 3.11+ is checked
before anything is installed, with a one-line message, and a .venv of another Python version, or one that
no longer runs, is rebuilt. Run on copies with stand-in interpreters and `make -n`: nothing is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from treebuilder import REPO

from rgbench.template import TEMPLATE_DIR

MAKEFILES = {"toolkit": REPO / "Makefile", "init template": TEMPLATE_DIR / "Makefile"}


def fake_python(path: Path, version: str) -> Path:
    """A stand-in interpreter that reports ``version`` (X.Y) and fails the 3.11 check when older."""
    old = tuple(map(int, version.split("."))) < (3, 11)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\ncase "$*" in *version_info\\ \\<*) exit {int(old)};; esac\necho {version}\n')
    path.chmod(0o755)
    return path


def repo_copy(tmp_path: Path, makefile: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy2(makefile, root / "Makefile")
    for name in ("requirements.txt", "requirements-dev.txt", "requirements-analysis.txt"):
        (root / name).write_text("# pins\n")
    return root


def installed_copy(tmp_path: Path, makefile: Path) -> Path:
    """:func:`repo_copy` with a .venv of this interpreter whose install stamps are current."""
    root = repo_copy(tmp_path, makefile)
    (root / ".venv/bin").mkdir(parents=True)
    (root / ".venv/bin/python").symlink_to(sys.executable)
    for stamp in (".installed", ".installed-dev"):
        (root / ".venv" / stamp).touch()
    return root


def make(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "-C", str(root), *args], capture_output=True, text=True,
                          env={**os.environ, "MAKEFLAGS": ""})


@pytest.mark.parametrize("which", sorted(MAKEFILES))
def test_an_old_python_is_refused_in_one_line_before_anything_is_installed(which, tmp_path):
    root = repo_copy(tmp_path, MAKEFILES[which])
    python = fake_python(tmp_path / "bin/python3.10", "3.10")
    done = make(root, "metrics", f"PYTHON={python}")
    assert done.returncode != 0
    first = done.stderr.splitlines()[0]
    assert first == (f"rgbench needs Python 3.11 or newer: PYTHON={python} is 3.10 "
                     "(install 3.11+, or run make PYTHON=python3.11)")
    assert not (root / ".venv").exists() and "pip" not in done.stdout


@pytest.mark.parametrize("which", sorted(MAKEFILES))
def test_a_venv_of_another_python_or_a_broken_one_is_rebuilt(which, tmp_path):
    root = repo_copy(tmp_path, MAKEFILES[which])
    fake_python(root / ".venv/bin/python", "3.10")  # made by 3.10, e.g. a first try before installing 3.11
    for stamp in (".installed", ".installed-dev"):
        (root / ".venv" / stamp).touch()  # stamps newer than the requirements: only the version tells
    plan = make(root, "-n", "metrics", f"PYTHON={sys.executable}").stdout
    assert ".venv runs Python 3.10" in plan and "rebuilding it" in plan and "rm -rf .venv" in plan
    assert "pip install" in plan
    (root / ".venv/bin/python").unlink()  # its interpreter is gone
    plan = make(root, "-n", "metrics", f"PYTHON={sys.executable}").stdout
    assert ".venv runs Python nothing (broken)" in plan and "pip install" in plan


@pytest.mark.parametrize("which", sorted(MAKEFILES))
def test_a_venv_of_the_same_python_with_current_stamps_is_kept(which, tmp_path):
    root = installed_copy(tmp_path, MAKEFILES[which])
    plan = make(root, "-n", "metrics", f"PYTHON={sys.executable}").stdout
    assert "pip install" not in plan and "rebuilding" not in plan
    assert "metrics" in plan or "compute_metrics" in plan


def test_the_template_with_an_installed_python_names_what_it_cannot_import(tmp_path):
    # PY=/path/to/python installs nothing; an interpreter without rgbench (make metrics) or without pytest (make
    # test) is named, with the install line, instead of Python's bare "No module named ...".
    root = repo_copy(tmp_path, MAKEFILES["init template"])
    bare = tmp_path / "bin/bare"
    bare.parent.mkdir()
    bare.write_text("#!/bin/sh\nexit 1\n")  # imports nothing
    no_pytest = tmp_path / "bin/no-pytest"
    no_pytest.write_text('#!/bin/sh\ncase "$*" in *"import pytest"*) exit 1;; esac\nexit 0\n')
    for path in (bare, no_pytest):
        path.chmod(0o755)
    done = make(root, "metrics", f"PY={bare}")
    assert done.returncode != 0 and done.stderr.splitlines()[0] == (
        f"PY={bare} cannot import rgbench (install it there: {bare} -m pip install -r requirements.txt; "
        "or leave PY unset to use .venv)")
    done = make(root, "test", f"PY={no_pytest}")
    assert done.returncode != 0 and done.stderr.splitlines()[0] == (
        f"PY={no_pytest} cannot import pytest, which make test runs (install it there: {no_pytest} -m pip install "
        "-r requirements-dev.txt; or leave PY unset to use .venv)")
    assert not (root / ".venv").exists()


@pytest.mark.parametrize("which", sorted(MAKEFILES))
def test_make_draw_and_assign_pass_reassign_instead_of_a_draw(which, tmp_path):
    # `make draw REASSIGN=rev-3` (judge-assisted: the runs waiting for rev-3 go to the others) makes no draw
    root = installed_copy(tmp_path, MAKEFILES[which])
    plan = make(root, "-n", "draw", "REASSIGN=rev-3", f"PYTHON={sys.executable}").stdout
    assert 'assign --root . --reassign "rev-3"' in plan and "--draw" not in plan and "--next" not in plan
    plan = make(root, "-n", "draw", "NEXT=5", f"PYTHON={sys.executable}").stdout
    assert 'assign --root . --next "5"' in plan and "--reassign" not in plan
    # `make assign REASSIGN=rev-3` (human mode: the second grades waiting for rev-3) draws no second grades
    plan = make(root, "-n", "assign", "REASSIGN=rev-3", f"PYTHON={sys.executable}").stdout
    assert 'assign --root . --reassign "rev-3"' in plan and "--share" not in plan
    plan = make(root, "-n", "assign", f"PYTHON={sys.executable}").stdout
    assert 'assign --root . --share "0.2"' in plan and "--reassign" not in plan
