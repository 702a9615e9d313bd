"""The result tables as pandas DataFrames, for analysis in a notebook: :func:`read_results`.

    >>> import rgbench
    >>> tables = rgbench.read_results("path/to/benchmark")     # every results/*.csv, by file stem
    >>> board = tables["leaderboard"]                            # or read_table("results/leaderboard.csv")
    >>> board.loc[board.leaderboard_status == "Ranked", ["subject_id", "Q_final", "Q_final_low", "Q_final_high"]]

Each column gets the type the column registry (:mod:`rgbench.result_columns`) gives it: booleans (``true``/``false``) as
pandas' nullable ``boolean``, integers as nullable ``Int64``, the 6-decimal fractions as ``float64``
(the decimal read to the nearest float), text as ``string``; a score column (per_run.csv's raw, clipped,
floor and ceiling scores, a reviewer's criterion ``level``) as ``Int64`` when every score is an integer,
else ``float64`` (a decimal or a fraction such as 23/6 read to the nearest float), and a ``level`` that
names a bin of a decimal scale (``0-2.5``) as ``string``; an empty cell (an undefined value, e.g.
P of a subject with no scored run, the rank of a disqualified subject) is missing (``pd.NA``, or
``NaN`` for floats). A cell that does not have its column's format is refused (:class:`TableError`
naming the file, line and column). Columns the registry does not know (a later toolkit's) are kept as text.

pandas is an optional dependency (``pip install "rgbench[analysis]"``, pinned in
requirements-analysis.txt): the toolkit never imports it, only this function does, when called.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .load.parsing import ParseError, decode_utf8
from .load.safe_read import read_single_file
from .load.scale import score_text
from .result_columns import CellError, kind_of, parse_cell
from .results_csv import TableError, csv_records

if TYPE_CHECKING:
    import pandas as pd

RESULTS_DIR = "results"

# the pandas dtype of each kind of the column registry (a score's depends on its values: _score_dtype)
DTYPES = {"bool": "boolean", "count": "Int64", "fixed": "float64", "number": "float64", "text": "string",
          "int": "Int64", "float": "float64"}


def parse_value(column: str, cell: str) -> Any:
    """The value of one cell of ``column`` as its registered kind says (:func:`rgbench.result_columns.parse_cell`),
    a fraction as the nearest float and an empty cell as None; CellError when malformed."""
    value = parse_cell(column, cell)
    if value == "" or value is None:
        return None
    if kind_of(column) in ("fixed", "number"):
        return float(value)
    return value


def _score_dtype(values: list[Any]) -> tuple[str, list[Any]]:
    """The dtype of a score column and its values: Int64 for integers only, float64 once a score is a decimal or a
    fraction, string once a cell is not a score (a level's bin)."""
    present = [v for v in values if v is not None]
    if any(isinstance(v, str) for v in present):
        return "text", [None if v is None else v if isinstance(v, str) else score_text(v) for v in values]
    if all(isinstance(v, int) for v in present):
        return "int", values
    return "float", [None if v is None else float(v) for v in values]


def parse_table(rel: str, text: str) -> pd.DataFrame:
    """A result CSV's text as a typed DataFrame (module docstring); TableError names ``rel`` and the cell."""
    import pandas as pd

    records = csv_records(text)
    header = next(records, None)
    if header is None or header.problem:
        raise TableError(f"{rel}: {header.problem if header else 'empty file (expected a header row)'}")
    names = header.cells
    if len(set(names)) != len(names):
        raise TableError(f"{rel}: line 1: a column is named twice")
    kinds = [kind_of(name) for name in names]
    columns: list[list[Any]] = [[] for _ in names]
    for record in records:
        if record.problem:
            raise TableError(f"{rel}: {record.problem}")
        for values, name, cell in zip(columns, names, record.cells):
            try:
                values.append(parse_value(name, cell))
            except CellError as exc:
                raise TableError(f"{rel}: line {record.line}: {name}: {exc}") from None
    for index, kind in enumerate(kinds):
        if kind in ("score", "exact", "level"):
            kinds[index], columns[index] = _score_dtype(columns[index])
    data = {name: pd.array([pd.NA if v is None else v for v in values] if DTYPES[kind] != "float64"
                           else [float("nan") if v is None else v for v in values], dtype=DTYPES[kind])
            for name, kind, values in zip(names, kinds, columns)}
    return pd.DataFrame(data, columns=names)


def _read_bytes(root: Path, rel: str) -> bytes:
    data, problems = read_single_file(root, rel)
    if data is None:   # e.g. "missing (this file is required)", with how to get it
        raise TableError("; ".join(f"{p} (check the path: result files are results/<name>.csv and "
                                   f"results/historico/<date>/<name>.csv; `make metrics` writes them)" for p in problems))
    return data


def _parse_bytes(rel: str, data: bytes) -> pd.DataFrame:
    try:
        text = decode_utf8(data)
    except ParseError as exc:
        raise TableError(f"{rel}: {exc}") from None
    return parse_table(rel, text)


def read_table(root: str | Path, rel: str) -> pd.DataFrame:
    """One result CSV of the tree ``root`` (``rel``, e.g. ``results/per_run.csv``) as a typed DataFrame."""
    return _parse_bytes(rel, _read_bytes(Path(root), rel))


def read_results(root: str | Path = ".") -> dict[str, pd.DataFrame]:
    """Every ``results/*.csv`` of the benchmark tree ``root`` as a typed DataFrame, by file stem
    (``per_run``, ``metrics_per_subject``, ``leaderboard``, ...), in name order; snapshots under
    results/historico/ are not included (``read_table(root, "results/historico/DATE/NAME.csv")`` reads one).
    TableError when a table cannot be read or a cell has not its column's format, and, as the leaderboard
    does, when the files are not one set: a file results/manifest.json lists whose sha256 differs from the
    one recorded (edited by hand, or left by an interrupted run beside the files of another), or a listed
    file that is missing; the message names each such file."""
    try:
        import pandas  # noqa: F401  (a clear message before any reading)
    except ModuleNotFoundError:
        raise ModuleNotFoundError("rgbench.read_results needs pandas: pip install \"rgbench[analysis]\"") from None
    root = Path(root)
    folder = root / RESULTS_DIR
    if not folder.is_dir():
        raise TableError(f"{RESULTS_DIR}/: no such folder under {root} (run `make metrics` first)")
    names = sorted(path.name for path in folder.glob("*.csv") if path.is_file())
    data = {name: _read_bytes(root, f"{RESULTS_DIR}/{name}") for name in names}
    _check_one_set(root, data)
    return {Path(name).stem: _parse_bytes(f"{RESULTS_DIR}/{name}", data[name]) for name in names}


def _check_one_set(root: Path, data: dict[str, bytes]) -> None:
    """TableError naming every file of ``data`` (name -> bytes) or listed in the manifest that is not the one
    the manifest records; nothing to check without a manifest (results written before it existed)."""
    from .leaderboard.manifest import MANIFEST_PATH, read_manifest, stale_outputs

    if not os.path.lexists(root / MANIFEST_PATH):
        return
    manifest, problems = read_manifest(root)
    if manifest is not None:
        digests = {f"{RESULTS_DIR}/{name}": hashlib.sha256(data[name]).hexdigest() if name in data else ""
                   for name in sorted(manifest.outputs.keys() | data.keys()) if "/" not in name}
        problems = stale_outputs(manifest, digests)
    if problems:
        raise TableError("\n".join(str(problem) for problem in problems))
