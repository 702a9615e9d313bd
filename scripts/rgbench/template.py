"""The files of a new benchmark repository (``rgbench init``): the template under ``templates/init/``.

The template is a complete, valid benchmark tree with no subject yet: a documented ``system/`` (ids,
one family, six criteria 0-2, thresholds, a two-code fail catalog, the metrics config), one example
case, empty data folders, a reviewers registry with one example human reviewer, a Makefile, ``.ci/run``,
the review and tests workflows, CODEOWNERS, tests and a README.
Two placeholders are filled in: ``@RGBENCH_VERSION@`` (this toolkit's version) and
``@RGBENCH_REQUIREMENT@`` (what the new repository's requirements.txt installs: the script
``init_benchmark.py`` gives the line that installs the running toolkit,
:func:`rgbench.install_source.toolkit_source`; :func:`template_files` alone defaults to
``rgbench==<version>``). Pure: :func:`template_files` returns bytes by relative path; the script
writes them.
"""

from __future__ import annotations

from pathlib import Path

from . import __version__

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates" / "init"
EXECUTABLE = frozenset({".ci/run"})
_SKIP = frozenset({"__pycache__", ".pytest_cache", ".venv"})


def default_requirement() -> str:
    """The requirement line that pins this toolkit: ``rgbench==<version>``."""
    return f"rgbench=={__version__}"


def template_files(requirement: str | None = None) -> dict[str, bytes]:
    """Every file of a new benchmark repository, by POSIX path relative to its root, in sorted order."""
    requirement = default_requirement() if requirement is None else requirement
    if not requirement.strip() or "\n" in requirement:
        raise ValueError(f"requirement {requirement!r}: must be one line, e.g. {default_requirement()}")
    files = {}
    for path in sorted(TEMPLATE_DIR.rglob("*")):
        rel = path.relative_to(TEMPLATE_DIR)
        if path.is_dir() or _SKIP & set(rel.parts) or path.suffix == ".pyc":
            continue
        text = path.read_text(encoding="utf-8")
        text = text.replace("@RGBENCH_VERSION@", __version__).replace("@RGBENCH_REQUIREMENT@", requirement)
        files[rel.as_posix()] = text.encode("utf-8")
    return files
