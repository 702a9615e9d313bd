"""Read the dated snapshots of ``results/historico/`` and follow a subject across them.

Reading checks each folder's integrity (see :func:`snapshot.verify_folder`);
the series and its rendering are pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..leaderboard.leaderboard_csv import LEADERBOARD_FILE
from ..load.parsing import decode_utf8, loads_json_strict
from ..load.safe_read import MAX_RESULT_BYTES, check_dir_chain, read_bytes, read_result_file, walk_files
from ..problems import Problem
from ..results.tables import SUBJECT_FILE
from ..results_csv import TableError, read_keyed_table
from .results_diff import SUBJECT_REQUIRED
from .snapshot import DATE_RE, HISTORY_DIR, NOT_A_SNAPSHOT, SNAPSHOT_FILE, verify_folder

ALLOWED_LOOSE_FILES = frozenset({"README.md"})  # besides dated folders, historico/ may hold a README
SERIES_COLUMNS = ("snapshot", "subject_version", "rank", "N", "P", "s_bar", "BS", "ECE", "Q_final", "disqualified")


@dataclass(frozen=True)
class Snapshot:
    """One dated snapshot (verified against its snapshot.json): its subject rows and (when it has a
    leaderboard) the ranks."""

    name: str
    subjects: dict[str, dict[str, str]]
    ranks: dict[str, str] = field(default_factory=dict)

    def holds(self, subject_id: str, version: str) -> bool:
        """True when this snapshot has a row of ``subject_id`` at ``version``."""
        row = self.subjects.get(subject_id)
        return row is not None and row["subject_version"] == version


def read_folders(root: Path) -> tuple[dict[str, dict[str, bytes]], list[Problem]]:
    """Every snapshot folder's files (folder name -> file name -> bytes), and what is out of place."""
    entries, problems = walk_files(root, HISTORY_DIR)
    folders: dict[str, dict[str, bytes]] = {}
    base_parts = len(HISTORY_DIR.split("/"))
    for entry in entries:
        parts = entry.parts[base_parts:]
        if len(parts) == 1:
            if parts[0] not in ALLOWED_LOOSE_FILES:
                problems.append(Problem(entry.rel, f"unexpected file: {HISTORY_DIR}/ holds only dated snapshot folders"))
            continue
        name = parts[0]
        if not DATE_RE.match(name):
            problems.append(Problem(f"{HISTORY_DIR}/{name}", NOT_A_SNAPSHOT))
            continue
        folders.setdefault(name, {})["/".join(parts[1:])] = read_bytes(root, entry.rel, MAX_RESULT_BYTES)
    return dict(sorted(folders.items())), sorted(set(problems))


def rank_cells(data: bytes) -> dict[str, str]:
    """subject_id -> rank cell of a leaderboard.csv (TableError when it is not one)."""
    return {sid: row["rank"] for sid, row in read_keyed_table(data, ("subject_id", "rank")).items()}


def parse_snapshot(name: str, files: dict[str, bytes]) -> tuple[Snapshot | None, list[Problem]]:
    """A verified snapshot, or the problems of its folder."""
    where = f"{HISTORY_DIR}/{name}"
    problems = verify_folder(where, files)
    if problems:
        return None, problems
    document = loads_json_strict(decode_utf8(files[SNAPSHOT_FILE]))
    if document.get("date") != name:
        return None, [Problem(f"{where}/{SNAPSHOT_FILE}", f"$.date: {document.get('date')!r} but the folder is named {name!r}")]
    try:
        subjects = read_keyed_table(files.get(SUBJECT_FILE, b""), SUBJECT_REQUIRED)
        ranks = rank_cells(files[LEADERBOARD_FILE]) if LEADERBOARD_FILE in files else {}
    except TableError as exc:
        return None, [Problem(f"{where}/{SUBJECT_FILE}", str(exc))]
    return Snapshot(name, subjects, ranks), []


def load_snapshots(root: Path) -> tuple[list[Snapshot], list[Problem]]:
    """Every snapshot under ``root``, oldest first, and every problem met (folders with problems are skipped)."""
    chain = check_dir_chain(root, HISTORY_DIR)
    if chain:
        return [], chain
    folders, problems = read_folders(root)
    snapshots = []
    for name, files in folders.items():
        snapshot, found = parse_snapshot(name, files)
        problems.extend(found)
        if snapshot is not None:
            snapshots.append(snapshot)
    return snapshots, sorted(set(problems))


def current_snapshot(root: Path) -> Snapshot | None:
    """The working tree's results/ as a pseudo-snapshot named ``current``; None when absent or unreadable."""
    data, problems = read_result_file(root, f"results/{SUBJECT_FILE}")
    if data is None:
        return None
    try:
        subjects = read_keyed_table(data, SUBJECT_REQUIRED)
    except TableError:
        return None
    ranks = {}
    board, _ = read_result_file(root, f"results/{LEADERBOARD_FILE}")
    if board is not None:
        try:
            ranks = rank_cells(board)
        except TableError:
            pass
    return Snapshot("current", subjects, ranks)


def subject_series(snapshots: list[Snapshot], subject_id: str) -> list[dict[str, str]]:
    """One row per snapshot holding ``subject_id`` (SERIES_COLUMNS), in snapshot order.

    Every version the slot had is shown, so a disqualified version stays
    visible after a new version was registered. ``rank`` is empty when the
    snapshot has no leaderboard or the subject was not ranked.
    """
    series = []
    for snapshot in snapshots:
        row = snapshot.subjects.get(subject_id)
        if row is None:
            continue
        series.append({
            "snapshot": snapshot.name,
            "rank": snapshot.ranks.get(subject_id, ""),
            **{column: row.get(column, "") for column in SERIES_COLUMNS if column not in ("snapshot", "rank")},
        })
    return series


def markdown_series(subject_id: str, series: list[dict[str, str]], registry_history: list[dict[str, Any]]) -> str:
    """A Markdown report of one subject across snapshots, with the registry's record of earlier versions."""
    lines = [f"## {subject_id}: metrics across snapshots", ""]
    if not series:
        lines.append("No snapshot holds this subject yet (`make snapshot` takes one).")
    else:
        lines.append("| " + " | ".join(SERIES_COLUMNS) + " |")
        lines.append("|" + "|".join("---" for _ in SERIES_COLUMNS) + "|")
        for row in series:
            lines.append("| " + " | ".join(row[column] or "-" for column in SERIES_COLUMNS) + " |")
    if registry_history:
        lines += ["", "Earlier versions (subjects/registry.yaml):", ""]
        for item in registry_history:
            last = item.get("last_snapshot", "")
            lines.append(f"- {item['subject_version']}: {item['status']}" + (f", last snapshot {last}" if last else ""))
    return "\n".join(lines) + "\n"
