"""The package: the wheel holds the library, every script and every data file; installed, it runs.

The wheel is built offline from a copy of the checkout (`pip wheel --no-build-isolation`, with the
setuptools and wheel pinned in requirements-dev.txt) and installed with `--target` into a folder that
this interpreter then imports from, away from the checkout.
"""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from treebuilder import REPO, small_tree

from rgbench import __version__

IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")


def requirement_lines(name: str) -> list[str]:
    return [line for line in (REPO / name).read_text().splitlines() if line and not line.startswith("#")]


def normal(requirement: str) -> str:
    """A ``name==version`` pin with its name normalized as package indexes compare names (PEP 503)."""
    name, _, version = requirement.strip().partition("==")
    return f"{re.sub(r'[-_.]+', '-', name).lower()}=={version}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    shutil.copytree(REPO / "scripts", source / "scripts", ignore=IGNORE)
    for name in ("pyproject.toml", "setup.py", "README.md", "requirements.txt", "requirements-analysis.txt"):
        shutil.copy2(REPO / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "--disable-pip-version-check", "-w", str(work / "dist"), str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = (work / "dist").glob("*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check",
                           "--target", str(target), str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def run_installed(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "rgbench", *args], capture_output=True, text=True, cwd=cwd,
                          env={**env, "PYTHONPATH": str(site)})


def test_requirements_files_are_plain_pins_that_pyproject_reads():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    dynamic = config["tool"]["setuptools"]["dynamic"]
    assert dynamic["dependencies"] == {"file": ["requirements.txt"]}
    assert dynamic["optional-dependencies"]["analysis"] == {"file": ["requirements-analysis.txt"]}
    assert config["project"]["requires-python"] == ">=3.11"
    for name in ("requirements.txt", "requirements-analysis.txt"):
        lines = requirement_lines(name)
        assert lines and all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][A-Za-z0-9.]*", line) for line in lines), name
    runtime = {line.split("==")[0].lower() for line in requirement_lines("requirements.txt")}
    # test/analysis-only (scipy is a runtime dependency: the difficulty trend test's Kendall tau-b)
    assert not runtime & {"pandas", "statsmodels", "krippendorff", "pytest"}
    dev = (REPO / "requirements-dev.txt").read_text()
    assert "-r requirements.txt" in dev and "-r requirements-analysis.txt" in dev
    assert all(re.search(rf"^{tool}==", dev, flags=re.M) for tool in ("pre-commit", "ruff", "mypy", "pytest"))


def test_wheel_holds_the_library_every_script_and_every_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    package = REPO / "scripts" / "rgbench"
    sources = {f"rgbench/{p.relative_to(package).as_posix()}" for p in package.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}
    assert sorted(sources - names) == []  # the leaderboard's assets and the init template included
    scripts = {f"rgbench/scripts/{p.name}" for p in (REPO / "scripts").glob("*.py")}
    assert sorted(scripts - names) == []
    assert {"rgbench/templates/init/.ci/run", "rgbench/templates/init/.github/workflows/review.yml"} <= names
    assert not [n for n in names if ".egg-info" in n or "__pycache__" in n]
    info = f"rgbench-{__version__}.dist-info"
    metadata = email.message_from_bytes(zipfile.ZipFile(wheel).read(f"{info}/METADATA"))
    assert metadata["Requires-Python"] == ">=3.11"
    requires = metadata.get_all("Requires-Dist")
    runtime = sorted(normal(r) for r in requires if "extra ==" not in r)
    assert runtime == sorted(map(normal, requirement_lines("requirements.txt")))
    assert [normal(r.split(";")[0]) for r in requires if 'extra == "analysis"' in r] == [
        normal(line) for line in requirement_lines("requirements-analysis.txt")]
    entry_points = zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()
    assert "rgbench = rgbench.cli_main:main" in entry_points


def test_the_installed_package_runs_away_from_the_checkout(installed, tmp_path):
    where = run_installed(installed, "--version", cwd=tmp_path)
    assert where.returncode == 0 and where.stdout == f"rgbench {__version__}\n"
    probe = subprocess.run([sys.executable, "-c", "import rgbench.cli_main as c; print(c.scripts_dir())"],
                           capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(installed)})
    assert Path(probe.stdout.strip()) == installed / "rgbench" / "scripts"
    root = small_tree(tmp_path / "tree").root
    done = run_installed(installed, "metrics", cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "results/leaderboard.html").is_file()
    done = run_installed(installed, "check", cwd=root)  # its steps run the installed scripts as subprocesses
    assert done.returncode == 0, done.stderr
    done = run_installed(installed, "init", str(tmp_path / "new"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert os.access(tmp_path / "new/.ci/run", os.X_OK)


def test_a_python_without_the_dependencies_gets_one_line_not_a_traceback(tmp_path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    done = subprocess.run([str(tmp_path / "bare/bin/python"), str(REPO / "scripts/validate.py"), "--root", str(REPO)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("rgbench: ") and "lacks the pinned dependencies (numpy, " in done.stderr
    assert "make metrics" in done.stderr
