"""rgbench: the shared library behind the scripts of a reviewer-graded benchmark.

Data flows one way, a subpackage per step:

    load/        files -> safe reading -> strict parsing -> schema validation -> cross-file checks -> records
    compute/     records -> per-run rows -> metrics -> result tables -> result file bytes
    stats/       the statistics across runs, cases and subjects, and reviewer agreement
    leaderboard/ result tables -> leaderboard.csv, .html, .md
    governance/  pull-request gate, provenance, snapshots, history, diffs

Shared edges: ``problems`` (problems as values), ``cli`` (what scripts' main() share), ``atomic``
(atomic writes), ``progress`` (a terminal progress line), ``results_csv`` (the one reader of result CSVs).
The ``rgbench`` command is ``cli_main``; ``template`` writes a new benchmark repository (``rgbench init``);
``read_results`` opens the committed result tables as pandas DataFrames (the ``analysis`` extra).
"""

from .analysis import read_results, read_table

__version__ = "0.1.0"
__all__ = ["__version__", "read_results", "read_table"]
