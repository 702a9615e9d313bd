"""`rgbench init`'s requirement installs the toolkit that ran it: read from its installation record.

Each PEP 610 record shape (direct_url.json) gives its line; installed distributions are faked as dist-info
folders beside a package folder, so no installer runs here (tests/test_package.py installs a real wheel
and a real checkout, offline, and runs `make metrics && make test` in the new repository).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from treebuilder import REPO

from rgbench import __version__
from rgbench.cli import main
from rgbench.install_source import ToolkitSource, source_from_record, toolkit_source

SHA = "b810a0f0b8516d476213041fc662ba2a1f5ff9f612b64528363af9ab2fa34a43"
WHEEL = "file:///opt/wheels/rgbench-0.1.0-py3-none-any.whl"


@pytest.mark.parametrize("record, requirement, origin, path", [
    (None, "rgbench==0.1.0", "the package index", None),
    ({"url": WHEEL, "archive_info": {"hashes": {"sha256": SHA}, "hash": f"sha256={SHA}"}},
     f"rgbench @ {WHEEL}#sha256={SHA}", "the wheel /opt/wheels/rgbench-0.1.0-py3-none-any.whl",
     Path("/opt/wheels/rgbench-0.1.0-py3-none-any.whl")),
    ({"url": WHEEL, "archive_info": {"hash": "md5=abc"}}, f"rgbench @ {WHEEL}#md5=abc",  # the legacy key alone
     "the wheel /opt/wheels/rgbench-0.1.0-py3-none-any.whl", Path("/opt/wheels/rgbench-0.1.0-py3-none-any.whl")),
    ({"url": "https://example.org/rgbench-0.1.0.tar.gz", "archive_info": {}},
     "rgbench @ https://example.org/rgbench-0.1.0.tar.gz", "the archive https://example.org/rgbench-0.1.0.tar.gz", None),
    ({"url": "file:///home/a/my%20tools/rgbench", "dir_info": {}},
     "rgbench @ file:///home/a/my%20tools/rgbench", "the directory /home/a/my tools/rgbench", Path("/home/a/my tools/rgbench")),
    ({"url": "file:///home/a/rgbench", "dir_info": {"editable": True}},
     "-e file:///home/a/rgbench", "the editable directory /home/a/rgbench", Path("/home/a/rgbench")),
    ({"url": "https://github.com/o/rgbench.git", "subdirectory": "tool",
      "vcs_info": {"vcs": "git", "commit_id": "0a1b2c", "requested_revision": "v0.1.0"}},
     "rgbench @ git+https://github.com/o/rgbench.git@0a1b2c#subdirectory=tool",
     "git+https://github.com/o/rgbench.git at commit 0a1b2c", None),
])
def test_each_installation_record_gives_the_line_that_installs_it_again(record, requirement, origin, path):
    assert source_from_record(record, "0.1.0") == ToolkitSource(requirement, origin, path)


@pytest.mark.parametrize("record, why", [
    ({"dir_info": {}}, "names no url"),
    ([], "names no url"),
    ({"url": "file:///x\nrgbench==9", "dir_info": {}}, "a space or control character"),
    ({"url": "https://example.org/x", "vcs_info": {"vcs": "git"}}, "names no vcs or commit_id"),
    ({"url": "https://example.org/x"}, "of no known kind"),
])
def test_an_unusable_record_falls_back_to_the_version_pin_and_says_why(record, why):
    source = source_from_record(record, "0.1.0")
    assert source.requirement == "rgbench==0.1.0" and source.path is None
    assert source.origin.startswith("the package index (its installation record direct_url.json ") and why in source.origin


def fake_site(site: Path, record: str | None, version: str = "0.1.0") -> Path:
    """An installed rgbench in ``site``: the package and its dist-info (``record``: direct_url.json's text);
    the package's __init__.py."""
    info = site / f"rgbench-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: rgbench\nVersion: {version}\n")
    if record is not None:
        (info / "direct_url.json").write_text(record)
    (site / "rgbench").mkdir()
    (site / "rgbench" / "__init__.py").write_text("")
    return site / "rgbench" / "__init__.py"


def fake_checkout(root: Path, name: str = "rgbench") -> Path:
    (root / "scripts" / "rgbench").mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "{name}"\n')
    (root / "scripts" / "rgbench" / "__init__.py").write_text("")
    return root / "scripts" / "rgbench" / "__init__.py"


def test_the_record_of_the_distribution_that_holds_the_running_package_is_read(tmp_path):
    wheel = json.dumps({"url": WHEEL, "archive_info": {"hashes": {"sha256": SHA}}})
    package = fake_site(tmp_path / "site", wheel)
    source = toolkit_source(package, [str(tmp_path / "site")])
    assert source.requirement == f"rgbench @ {WHEEL}#sha256={SHA}"
    index = fake_site(tmp_path / "index-site", None, version="0.2.0")  # no record: from a package index
    assert toolkit_source(index, [str(tmp_path / "index-site")]) == ToolkitSource("rgbench==0.2.0", "the package index")
    broken = fake_site(tmp_path / "broken-site", "{not json")
    assert toolkit_source(broken, [str(tmp_path / "broken-site")]).origin == (
        "the package index (its installation record direct_url.json is not JSON)")


def test_a_checkout_that_runs_is_the_toolkit_even_beside_an_installed_rgbench(tmp_path):
    # scripts/ on sys.path (python scripts/init_benchmark.py) while an rgbench is installed elsewhere: the
    # installed one is not what runs, the checkout is.
    fake_site(tmp_path / "site", json.dumps({"url": WHEEL, "archive_info": {}}))
    package = fake_checkout(tmp_path / "my checkout")
    source = toolkit_source(package, [str(tmp_path / "site")])
    root = (tmp_path / "my checkout").resolve()
    assert source == ToolkitSource(f"rgbench @ {root.as_uri()}", f"the source checkout {root}", root)
    assert "%20" in source.requirement  # a URL: the space is escaped, the line stays one requirement


def test_an_editable_install_is_the_directory_it_points_to(tmp_path):
    package = fake_checkout(tmp_path / "checkout")
    url = (tmp_path / "checkout").resolve().as_uri()
    site = tmp_path / "site"
    (site / "rgbench-0.1.0.dist-info").mkdir(parents=True)  # an editable install: dist-info, no package beside it
    (site / "rgbench-0.1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: rgbench\nVersion: 0.1.0\n")
    (site / "rgbench-0.1.0.dist-info" / "direct_url.json").write_text(json.dumps({"url": url, "dir_info": {"editable": True}}))
    assert toolkit_source(package, [str(site)]).requirement == f"-e {url}"
    elsewhere = fake_checkout(tmp_path / "another")  # an editable install of another checkout: not this one
    assert toolkit_source(elsewhere, [str(site)]).requirement == f"rgbench @ {(tmp_path / 'another').resolve().as_uri()}"


def test_a_package_neither_installed_nor_in_a_rgbench_project_is_pinned_by_version(tmp_path):
    assert toolkit_source(fake_checkout(tmp_path / "a", name="other"), [], "0.3.0") == ToolkitSource(
        "rgbench==0.3.0", "the package index")
    loose = tmp_path / "b" / "rgbench" / "__init__.py"
    loose.parent.mkdir(parents=True)
    loose.write_text("")
    assert toolkit_source(loose, []).requirement == f"rgbench=={__version__}"


def test_init_without_options_writes_the_line_that_installs_this_toolkit(tmp_path, capsys):
    source = toolkit_source()  # the tests run from this checkout (installed editable or not at all)
    assert source.path == REPO.resolve() and source.requirement.endswith(REPO.resolve().as_uri())
    assert main(["init", str(tmp_path / "b")]) == 0
    assert (tmp_path / "b/requirements.txt").read_text().endswith(f"\n{source.requirement}\n")
    out = capsys.readouterr().out
    assert f"requirements.txt: {source.requirement} (the toolkit running now, from " in out
    assert "A path installs on this machine only: for CI and other machines, replace the line" in out
    assert main(["init", str(tmp_path / "c"), "--requirement", "rgbench==0.1.0"]) == 0
    assert (tmp_path / "c/requirements.txt").read_text().endswith("\nrgbench==0.1.0\n")
    assert "requirements.txt:" not in capsys.readouterr().out  # the line given is written as given, unannotated
