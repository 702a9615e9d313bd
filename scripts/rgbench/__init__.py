"""rgbench: the shared library behind the scripts of a reviewer-graded benchmark.

Data flows one way, and so do imports: a module imports its own layer and the layers below it, never one
above (tests/test_layers.py checks every import, in functions too, and that no modules import each other in
a cycle; docs/architecture.md "Layers"). Lowest first:

    base         ``problems`` (problems as values), ``atomic`` (atomic writes), ``progress`` (a terminal
                 progress line), ``numfmt`` (the fixed format of every written number)
    load/        files -> safe reading -> strict parsing -> schema validation -> cross-file checks -> records;
                 with the score scale, config.yaml's parameters, the consolidation policies, scoring_multi/;
                 ``results_csv`` (the cell rule and the one reader of result CSVs)
    compute/     records -> per-run rows -> metrics -> the ranking
    stats/       the statistics across runs, cases and subjects, and reviewer agreement
    results/     metrics and statistics joined into the result tables -> result file bytes; the metric registry
    leaderboard/ result tables -> leaderboard.csv, .html, .md
    governance/  pull-request gate, provenance, snapshots, history, diffs
    command line ``review/`` (the local grading page, rgbench review; planned second grades, rgbench assign),
                 ``cli`` (every subcommand's options; ``commands/``: what each does), ``template``
                 (``rgbench init``), ``analysis`` (``read_results``: the committed result tables as pandas
                 DataFrames, the ``analysis`` extra), ``install_source``
"""

import sys
from importlib.util import find_spec

if sys.version_info < (3, 11):  # noqa: UP036  (the point: a clear line on an older Python)
    raise SystemExit(f"rgbench needs Python 3.11 or newer; {sys.executable} is Python {sys.version.split()[0]}")

# Top-level modules of requirements.txt's direct dependencies (found, not imported: imports stay lazy).
RUNTIME_MODULES = ("numpy", "matplotlib", "yaml", "jsonschema_rs", "markdown_it", "jinja2", "scipy")
_missing = [name for name in RUNTIME_MODULES if find_spec(name) is None]
if _missing:
    raise SystemExit(f"rgbench: {sys.executable} lacks the pinned dependencies ({', '.join(_missing)} missing): "
                     "run `make metrics` (it builds .venv from requirements.txt) and use .venv/bin/python, "
                     "or `pip install .`")

from typing import TYPE_CHECKING, Any  # noqa: E402  (after the checks above)

if TYPE_CHECKING:
    from .analysis import read_results, read_table

__version__ = "0.1.0"
__all__ = ["__version__", "read_results", "read_table"]


def __getattr__(name: str) -> Any:
    """``rgbench.read_results`` and ``rgbench.read_table``, imported on first use (scripts never need them)."""
    if name in ("read_results", "read_table"):
        from . import analysis

        return getattr(analysis, name)
    raise AttributeError(f"module 'rgbench' has no attribute {name!r}")
