"""Spec = code: every function aggregate_metrics.md names is called when the sample suite is computed.

The rule for a function name is stated at the top of the doc: every backticked name in a ``## N.``
heading before the em dash, and every backticked ``name()`` (or ``Class.method()``, ``Class()``) in the
text. Each name must be defined in exactly one module of ``rgbench.compute.derive``,
``rgbench.compute.metrics``, ``rgbench.load.scale``, ``rgbench.results.breakdowns`` and ``rgbench.stats.*``
(resolved when the test runs, so a function that moves between those modules is still found). The test
copies the sample suite, runs ``compute_metrics.py``, ``aggregate_scoring.py`` (the agreement and
consolidation of §25-§26 read ``scoring_multi/``) and ``build_leaderboard.py`` (rank ranges, §21) in-process
under a profile hook, and fails for every named function that was not entered; the functions only
judge-assisted mode calls (§35) are entered by ``make metrics`` on the example in that mode (examples/judgeassist).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import shutil
import sys
import threading
from types import CodeType, ModuleType

import pytest
from treebuilder import REPO

DOC = REPO / "system/metrics/v1.0/aggregate_metrics.md"
HEADING = re.compile(r"^## (\d+)\. (.*)$")
HEADING_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)`")
TEXT_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)\(\)`")
# The doc ships with the sample's system/ and the test needs its scoring_multi/ (agreement, consolidation).
pytestmark = pytest.mark.sample
TREE = ("system", "golds", "responses", "scoring", "scoring_multi", "subjects", "results")


def named_functions(text: str) -> dict[str, str]:
    """Function name -> the section (number) that first names it, by the doc's rule."""
    names: dict[str, str] = {}
    section = "0"
    for line in text.splitlines():
        heading = HEADING.match(line)
        if heading:
            section = heading.group(1)
            for name in HEADING_NAME.findall(heading.group(2).split(" — ")[0]):
                names.setdefault(name, section)
            continue
        for name in TEXT_NAME.findall(line):
            names.setdefault(name, section)
    return names


def spec_modules() -> list[ModuleType]:
    import rgbench.stats
    modules = [importlib.import_module("rgbench.compute.derive"), importlib.import_module("rgbench.compute.metrics"),
               importlib.import_module("rgbench.load.scale"), importlib.import_module("rgbench.load.consolidate"),
               importlib.import_module("rgbench.results.breakdowns")]
    modules += [importlib.import_module(f"rgbench.stats.{info.name}")
                for info in sorted(pkgutil.iter_modules(rgbench.stats.__path__), key=lambda i: i.name)]
    return modules


def resolve(name: str, modules: list[ModuleType]) -> CodeType:
    """The code object run when the named function is called: a function's own, a method's, a class's __init__.

    AssertionError when no module, or more than one, defines the name's first part.
    """
    head, *rest = name.split(".")
    owners = [m for m in modules if getattr(getattr(m, head, None), "__module__", None) == m.__name__]
    assert len(owners) == 1, f"`{name}` is defined in {len(owners)} modules ({[m.__name__ for m in owners]}), not 1"
    target = getattr(owners[0], head)
    for part in rest:
        target = inspect.getattr_static(target, part, None)
        assert target is not None, f"`{name}`: {owners[0].__name__} has no {part}"
    if isinstance(target, (staticmethod, classmethod, property)):
        target = target.__func__ if not isinstance(target, property) else target.fget
    if inspect.isclass(target):
        target = target.__init__
    target = inspect.unwrap(target)
    assert inspect.isfunction(target), f"`{name}` is not a Python function or class"
    return target.__code__


def test_the_doc_names_functions_by_its_rule():
    names = named_functions(DOC.read_text(encoding="utf-8"))
    # every formula section (2, 4-10, 17-27) names at least one function
    assert {"2", "4", "5", "6", "7", "8", "9", "10"} | {str(n) for n in range(17, 28)} <= set(names.values())
    assert {"pass_rate", "q_final", "q_numerator", "wilson_interval", "subject_intervals", "bca_interval",
            "sign_flip_test", "rank_confidence_sets", "CaseSummary.case_means", "consolidate_run"} <= set(names)
    # the rule's own examples and the other backticked words are not names
    assert not {"Class", "Class.method", "alpha", "ece_bins", "input_digest", "config.yaml"} & set(names)


def test_the_resolver_is_strict():
    modules = spec_modules()
    assert resolve("pass_rate", modules).co_name == "pass_rate"
    assert resolve("RunColumns", modules).co_name == "__init__"
    assert resolve("CaseSummary.case_means", modules).co_name == "case_means"
    for missing in ("no_such_function", "CaseSummary.no_such_method", "Fraction"):   # Fraction is only imported
        with pytest.raises(AssertionError):
            resolve(missing, modules)


@pytest.fixture(scope="module")
def sample_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("sample")
    for name in TREE:
        if (REPO / name).exists():
            shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns(".cache"))
    return root


@pytest.fixture(scope="module")
def assisted_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("judgeassist") / "judgeassist"
    shutil.copytree(REPO / "examples" / "judgeassist", root, ignore=shutil.ignore_patterns("results"))
    return root


def test_every_named_function_is_called_on_the_sample_suite(sample_tree, assisted_tree, capsys):
    from rgbench.cli import run_script

    names = named_functions(DOC.read_text(encoding="utf-8"))
    modules = spec_modules()
    wanted = {name: resolve(name, modules) for name in names}
    entered: set[CodeType] = set()

    def profile(frame, event, arg):
        if event == "call":
            entered.add(frame.f_code)

    root = str(sample_tree)
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        codes = [run_script("compute", ["--root", root]),
                 run_script("agreement", ["--root", root]),
                 run_script("leaderboard", ["--root", root])]
        # the functions only judge-assisted mode calls (§35), on the example benchmark in that mode
        codes.append(run_script("metrics", ["--root", str(assisted_tree)]))
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    assert codes == [0, 0, 0, 0], capsys.readouterr().err
    never = [f"§{names[name]} `{name}`" for name, code in wanted.items() if code not in entered]
    assert never == [], "named in aggregate_metrics.md but never called: " + ", ".join(never)
