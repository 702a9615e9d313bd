"""The package's layers import in one direction (scripts/rgbench/__init__.py, docs/architecture.md "Layers").

Every module under scripts/rgbench is parsed with :mod:`ast`; every import of an rgbench module in it counts,
at module level, inside a function or under ``if TYPE_CHECKING:`` alike. A module may import its own layer and
the layers below it, never one above; and no modules import each other in a cycle. A module that no entry of
:data:`LAYERS` covers fails too: a new module or subpackage takes its place in the order on purpose.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

PACKAGE = Path(__file__).resolve().parent.parent / "scripts" / "rgbench"

# Lowest first. An entry names a module or a subpackage (covering every module under it; ``rgbench`` is the
# package's own __init__ only); the longest entry that covers a module gives its layer.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("rgbench.problems", "rgbench.atomic", "rgbench.progress", "rgbench.numfmt")),
    ("load", ("rgbench.load", "rgbench.results_csv", "rgbench.result_columns")),
    ("compute", ("rgbench.compute",)),
    ("stats", ("rgbench.stats",)),
    ("results", ("rgbench.results",)),
    ("leaderboard", ("rgbench.leaderboard",)),
    ("governance", ("rgbench.governance",)),
    ("command line", ("rgbench.review", "rgbench.commands", "rgbench.cli", "rgbench.__main__", "rgbench.template",
                      "rgbench.install_source", "rgbench.analysis", "rgbench")),
)


class Import(NamedTuple):
    """One import of an rgbench module: where it is (file, line), what it names and the module it reaches."""

    path: str
    line: int
    text: str
    target: str


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``scripts/rgbench/load/spec.py`` -> ``rgbench.load.spec``; a package's ``__init__.py`` -> the package."""
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of the longest entry covering ``module``; None when no entry covers it."""
    best: tuple[int, int] | None = None
    for index, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            covers = module == entry or (entry != "rgbench" and module.startswith(entry + "."))
            if covers and (best is None or len(entry) > best[0]):
                best = (len(entry), index)
    return None if best is None else best[1]


def imports_of(source: str, module: str, path: str, is_package: bool = False) -> Iterator[Import]:
    """Every import of an rgbench module in ``source`` (the text of ``module``), in line order, relative ones
    resolved; for ``from package import name`` the target is ``package.name`` when ``name`` is a module of the package."""
    nodes = [n for n in ast.walk(ast.parse(source, filename=path)) if isinstance(n, ast.Import | ast.ImportFrom)]
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "rgbench":
                    yield Import(path, node.lineno, f"import {alias.name}", alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target.split(".")[0] != "rgbench":
                continue
            text = f"from {'.' * node.level}{node.module or ''} import {', '.join(a.name for a in node.names)}"
            submodules = [f"{target}.{a.name}" for a in node.names if _is_module(f"{target}.{a.name}")]
            for reached in submodules or [target]:
                yield Import(path, node.lineno, text, reached)


def _is_module(name: str) -> bool:
    relative = Path(*name.split(".")[1:])
    return (PACKAGE / relative).with_suffix(".py").is_file() or (PACKAGE / relative / "__init__.py").is_file()


def layer_violations(source: str, module: str, path: str, is_package: bool = False) -> list[str]:
    """One line per import in ``source`` that reaches a layer above ``module``'s, or a module no layer covers:
    ``path:line: `import` (module's layer imports a higher layer)``."""
    own = layer_of(module)
    if own is None:
        return [f"{path}: {module} is in no layer (add it to LAYERS in tests/test_layers.py, and to the order in "
                "scripts/rgbench/__init__.py and docs/architecture.md)"]
    found = []
    for imp in imports_of(source, module, path, is_package):
        target = layer_of(imp.target)
        if target is None or target > own:
            where = "no layer" if target is None else f"the {LAYERS[target][0]} layer"
            found.append(f"{imp.path}:{imp.line}: `{imp.text}` reaches {imp.target}, in {where}, from the "
                         f"{LAYERS[own][0]} layer {module} (import only the same layer or a lower one)")
    return found


def package_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "templates" not in p.relative_to(PACKAGE).parts)


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in package_modules():
        module = module_name(path)
        graph[module] = {imp.target for imp in imports_of(path.read_text(encoding="utf-8"), module, str(path),
                                                          path.name == "__init__.py")} - {module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_module_imports_a_higher_layer():
    problems = []
    for path in package_modules():
        problems += layer_violations(path.read_text(encoding="utf-8"), module_name(path),
                                     str(path.relative_to(PACKAGE.parent.parent)), path.name == "__init__.py")
    assert not problems, "imports against the layer order:\n" + "\n".join(problems)


def test_no_import_cycle():
    found = cycles(import_graph())
    assert not found, "modules that import each other in a cycle (move what both need to one module they " \
                      "both import):\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_checker_names_an_upward_import():
    source = "import os\n\ndef f():\n    from ..stats.bootstrap import bca_interval\n    return os\n"
    assert layer_violations(source, "rgbench.compute.metrics", "scripts/rgbench/compute/metrics.py") == [
        "scripts/rgbench/compute/metrics.py:4: `from ..stats.bootstrap import bca_interval` reaches "
        "rgbench.stats.bootstrap, in the stats layer, from the compute layer rgbench.compute.metrics "
        "(import only the same layer or a lower one)"]


def test_the_checker_reads_type_checking_and_absolute_imports():
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from rgbench.leaderboard.board import X\n"
              "import rgbench.governance.gitio\n")
    found = layer_violations(source, "rgbench.load.spec", "spec.py")
    assert [line.split("`")[1] for line in found] == ["from rgbench.leaderboard.board import X",
                                                      "import rgbench.governance.gitio"]


def test_the_checker_allows_the_same_and_lower_layers():
    source = "from . import metrics\nfrom ..load.spec import Spec\nfrom ..problems import Problem\n"
    assert layer_violations(source, "rgbench.compute.derive", "derive.py") == []


def test_a_module_in_no_layer_is_named():
    assert layer_violations("", "rgbench_other.thing", "thing.py") == [
        "thing.py: rgbench_other.thing is in no layer (add it to LAYERS in tests/test_layers.py, and to the order "
        "in scripts/rgbench/__init__.py and docs/architecture.md)"]


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_written_order_is_the_tested_order():
    """The package docstring and docs/architecture.md's "## Layers" name the layers of LAYERS, in its order."""
    docstring = ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))) or ""
    written = [m.group(1) for m in re.finditer(r"^    (command line|[a-z]+)/? ", docstring, re.MULTILINE)]
    assert written == [name for name, _ in LAYERS]
    doc = (PACKAGE.parent.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    numbered = [m.group(1) for m in re.finditer(r"^\d+\. \*\*([a-z ]+)/?\*\*", section, re.MULTILINE)]
    assert numbered == [name for name, _ in LAYERS]
