"""Dated, append-only snapshots of the results: ``results/historico/<YYYY-MM-DD>/``.

A snapshot folder holds a byte copy of every generated file of ``results/``
(the metric CSVs, ``manifest.json``, the leaderboard files when present) and a
``snapshot.json`` recording what they follow from:

==================  ==========================================================
key                 meaning
==================  ==========================================================
``alpha``           alpha used for Q_final (from the manifest, 6 decimals)
``benchmark_version``  from ``system/benchmark.yaml``
``date``            the snapshot's date, also its folder name
``files``           sha256 of every other file of the folder, by name
``generator``       ``scripts/snapshot.py``
``git_commit``      the commit whose inputs and results were copied
``input_digest``    the manifest's digest of its inputs record (a digest per subject folder, per other file)
``subjects``        subject_id -> the registered subject_version
==================  ==========================================================

Pure functions here build and compare folder contents; the script does the
reading, the git calls and the write-once publication.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from typing import Any

from ..load.parsing import ParseError, decode_utf8, dumps_json_canonical, loads_json_strict
from ..problems import Problem

HISTORY_DIR = "results/historico"
SNAPSHOT_FILE = "snapshot.json"
MANIFEST_FILE = "manifest.json"
GENERATOR = "scripts/snapshot.py"
DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
NOT_A_SNAPSHOT = "not a snapshot folder (snapshots are named YYYY-MM-DD by `make snapshot`)"
REQUIRED_KEYS = ("alpha", "benchmark_version", "date", "files", "generator", "git_commit", "input_digest", "subjects")
# Keys whose difference does not make two snapshots different: the same results
# recorded again from a later commit (e.g. the one that committed the snapshot).
NOT_CONTENT = ("git_commit",)


def parse_date(text: str, today: dt.date) -> tuple[str | None, str | None]:
    """(date, None) for a valid ``YYYY-MM-DD`` not after ``today``; (None, message) otherwise."""
    if not DATE_RE.match(text or ""):
        return None, f"{text!r} is not a date written YYYY-MM-DD"
    try:
        date = dt.date.fromisoformat(text)
    except ValueError:
        return None, f"{text!r} is not a calendar date"
    if date > today:
        return None, f"{text} is in the future (today is {today.isoformat()} UTC); a snapshot records results that exist"
    return text, None


def snapshot_document(*, date: str, commit: str, manifest: dict[str, Any], subjects: dict[str, str],
                      files: dict[str, bytes]) -> dict[str, Any]:
    """The ``snapshot.json`` of a snapshot of ``files`` (name -> bytes) taken at ``commit``."""
    return {
        "alpha": manifest["alpha"],
        "benchmark_version": manifest["benchmark_version"],
        "date": date,
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
        "generator": GENERATOR,
        "git_commit": commit,
        "input_digest": manifest["input_digest"],
        "subjects": dict(sorted(subjects.items())),
    }


def folder_contents(document: dict[str, Any], files: dict[str, bytes]) -> dict[str, bytes]:
    """Every file of the snapshot folder: the copied results plus the canonical ``snapshot.json``."""
    contents = dict(files)
    contents[SNAPSHOT_FILE] = dumps_json_canonical(document).encode("utf-8")
    return contents


def _content_view(name: str, data: bytes) -> Any:
    """What counts as content: bytes, except snapshot.json compared without the NOT_CONTENT keys."""
    if name != SNAPSHOT_FILE:
        return data
    try:
        document = loads_json_strict(decode_utf8(data))
    except ParseError:
        return data
    if not isinstance(document, dict):
        return data
    return {key: value for key, value in document.items() if key not in NOT_CONTENT}


def differing_files(existing: dict[str, bytes], new: dict[str, bytes]) -> list[str]:
    """Names whose content differs between two snapshot folders (missing on one side included).

    Two snapshots that differ only in ``git_commit`` hold the same results: an
    identical rerun after committing the snapshot is a no-op, not a conflict.
    """
    names = sorted(set(existing) | set(new))
    return [name for name in names
            if name not in existing or name not in new
            or _content_view(name, existing[name]) != _content_view(name, new[name])]


def verify_folder(folder: str, files: dict[str, bytes]) -> list[Problem]:
    """The problems of a snapshot ``folder`` (its path in the tree) that is not self-consistent.

    snapshot.json must parse, carry every required key, and list exactly the
    other files of the folder with their sha256.
    """
    where = f"{folder}/{SNAPSHOT_FILE}"
    if SNAPSHOT_FILE not in files:
        return [Problem(where, "missing (a snapshot folder is written by `make snapshot`)")]
    try:
        document = loads_json_strict(decode_utf8(files[SNAPSHOT_FILE]))
    except ParseError as exc:
        return [Problem(where, str(exc))]
    if not isinstance(document, dict):
        return [Problem(where, "expected a JSON object")]
    problems = [Problem(where, f"$.{key}: missing") for key in REQUIRED_KEYS if key not in document]
    listed = document.get("files")
    if not isinstance(listed, dict):
        return problems or [Problem(where, "$.files: expected an object of name -> sha256")]
    others = {name: data for name, data in files.items() if name != SNAPSHOT_FILE}
    for name in sorted(set(listed) | set(others)):
        if name not in others:
            problems.append(Problem(f"{folder}/{name}", f"listed in {SNAPSHOT_FILE} but missing from the folder"))
        elif name not in listed:
            problems.append(Problem(f"{folder}/{name}", f"not listed in {SNAPSHOT_FILE} (a snapshot holds only what it records)"))
        elif listed[name] != hashlib.sha256(others[name]).hexdigest():
            problems.append(Problem(f"{folder}/{name}", f"sha256 differs from the one recorded in {SNAPSHOT_FILE}"))
    return problems
