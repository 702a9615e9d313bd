"""The package: the wheel holds the library, every script and every data file; installed, it runs.

The wheel is built offline from a copy of the checkout (`pip wheel --no-build-isolation`, with the
setuptools and wheel pinned in requirements-dev.txt) and installed with `--target` into a folder that
this interpreter then imports from, away from the checkout.

`rgbench init` run from that wheel, or from a copy of the checkout, writes a requirements.txt that installs
that very toolkit: the new repository's own `make metrics && make test` install it into its .venv and
pass. Offline: the .venv is made here beforehand and sees this interpreter's site-packages (the pinned
dependencies, not rgbench) through a .pth file, and pip runs with PIP_NO_INDEX, so the requirement line
is all pip can install from.
"""

from __future__ import annotations

import email
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
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
    source = source_copy(work)
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


def source_copy(work: Path) -> Path:
    """A copy of the checkout that pip can build (a build writes build/ and an egg-info into its source)."""
    source = work / "src"
    shutil.copytree(REPO / "scripts", source / "scripts", ignore=IGNORE)
    for name in ("pyproject.toml", "README.md", "requirements.txt", "requirements-analysis.txt"):
        shutil.copy2(REPO / name, source / name)
    return source


def offline_env() -> dict[str, str]:
    """This environment without PYTHONPATH (the new repository's .venv alone decides what imports), and pip
    offline: no package index, no build isolation (a build takes the pinned setuptools already installed)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return {**env, "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0"}  # (pip reads "0" as: no isolation)


def venv_with_the_dependencies(venv: Path) -> Path:
    """``venv``, created without rgbench: it imports the toolkit's pinned dependencies (and pip) from this
    interpreter's site-packages through a .pth file. Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (Path(site) / "_toolkit_dependencies.pth").write_text("".join(f"{path}\n" for path in ours))
    probe = subprocess.run([str(python), "-c", "import numpy, pip, rgbench"], capture_output=True, text=True,
                           env=offline_env())
    assert "No module named 'rgbench'" in probe.stderr, probe.stderr  # the dependencies are there, rgbench is not
    return python


def requirement_of(repo: Path) -> str:
    return (repo / "requirements.txt").read_text().splitlines()[-1]


def make_offline(repo: Path, target: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "-C", str(repo), target, f"PYTHON={sys.executable}"],
                          capture_output=True, text=True, env=offline_env())


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


def test_wheel_holds_the_library_and_every_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    package = REPO / "scripts" / "rgbench"
    sources = {f"rgbench/{p.relative_to(package).as_posix()}" for p in package.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}
    assert sorted(sources - names) == []  # the leaderboard's assets and the init template included
    assert not [n for n in names if n.startswith("rgbench/scripts/")]  # the shims stay in the checkout
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
    assert "rgbench = rgbench.cli:main" in entry_points


def test_the_installed_package_runs_away_from_the_checkout(installed, tmp_path):
    where = run_installed(installed, "--version", cwd=tmp_path)
    assert where.returncode == 0 and where.stdout == f"rgbench {__version__}\n"
    probe = subprocess.run([sys.executable, "-c", "import rgbench.cli as c; print(c.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(installed)})
    assert Path(probe.stdout.strip()) == installed / "rgbench" / "cli.py"
    root = small_tree(tmp_path / "tree").root
    done = run_installed(installed, "metrics", cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "results/leaderboard.html").is_file()
    done = run_installed(installed, "check", cwd=root)  # its steps run in this process, from the package
    assert done.returncode == 0, done.stderr
    done = run_installed(installed, "init", str(tmp_path / "new"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert os.access(tmp_path / "new/.ci/run", os.X_OK)


def test_init_from_the_wheel_writes_a_requirement_that_installs_it_and_make_metrics_and_make_test_pass(
        installed, wheel, tmp_path):
    # A fresh machine: no option, no PY=, no PYTHONPATH. The installed wheel's record (direct_url.json, PEP 610)
    # names the wheel and its hash; the new repository's Makefile builds .venv from that line.
    new = tmp_path / "new"
    done = run_installed(installed, "init", str(new), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = f"rgbench @ {wheel.as_uri()}#sha256={hashlib.sha256(wheel.read_bytes()).hexdigest()}"
    assert requirement_of(new) == line
    assert f"requirements.txt: {line} (the toolkit running now, from the wheel {wheel})" in done.stdout
    python = venv_with_the_dependencies(new / ".venv")
    done = make_offline(new, "metrics")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Successfully installed rgbench-" in done.stdout
    where = subprocess.run([str(python), "-c", "import rgbench; print(rgbench.__file__)"], capture_output=True,
                           text=True, env=offline_env(), cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(new / ".venv"), where.stdout + where.stderr
    done = make_offline(new, "test")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^5 passed", done.stdout, flags=re.M), done.stdout


def test_init_from_a_checkout_writes_a_requirement_that_installs_that_checkout(tmp_path):
    # `python scripts/init_benchmark.py DIR` in a checkout that was never installed: the line is the checkout
    # (a project root), which pip builds and installs.
    checkout = source_copy(tmp_path / "work")
    new = tmp_path / "new"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([sys.executable, str(checkout / "scripts/init_benchmark.py"), str(new)], capture_output=True,
                          text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert requirement_of(new) == f"rgbench @ {checkout.resolve().as_uri()}"
    assert f"from the source checkout {checkout.resolve()}). A path installs on this machine only" in done.stdout
    python = venv_with_the_dependencies(new / ".venv")
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(new / "requirements.txt")],
                          capture_output=True, text=True, env=offline_env())
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run([str(new / ".venv/bin/rgbench"), "validate", "--root", str(new)], capture_output=True,
                          text=True, env=offline_env(), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_python_without_the_dependencies_gets_one_line_not_a_traceback(tmp_path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    done = subprocess.run([str(tmp_path / "bare/bin/python"), str(REPO / "scripts/validate.py"), "--root", str(REPO)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("rgbench: ") and "lacks the pinned dependencies (numpy, " in done.stderr
    assert "make metrics" in done.stderr
