"""The registry's record of earlier subject versions, checked against the snapshots and against the base.

Registering a new ``subject_version`` starts a clean record; the old version
moves to the entry's ``history`` list with its status (``retired`` or
``disqualified``) and ``last_snapshot``, the snapshot folder that holds its last
results. These rules keep that record true:

* a ``last_snapshot`` names an existing snapshot that holds the subject at that
  version, and it is the *latest* such snapshot;
* a version that some snapshot holds has a ``last_snapshot``;
* ``status`` is ``disqualified`` exactly when that snapshot shows the version
  disqualified;
* between two revisions, a subject whose version changed lists the old
  version in its history, no history item disappears (history is
  append-only), and a subject with history is never removed (its entry is
  the record of its earlier versions).
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from ..load.registry import REGISTRY_FILE, entries
from ..problems import Problem
from .history import Snapshot
from .snapshot import HISTORY_DIR


def snapshot_name(value: str) -> str:
    """``results/historico/2026-01-15/`` or ``2026-01-15`` -> ``2026-01-15``."""
    value = value.strip().rstrip("/")
    return value[len(HISTORY_DIR) + 1:] if value.startswith(HISTORY_DIR + "/") else value


def unchanged_items(old: dict[str, Any] | None, new: dict[str, Any]) -> set[tuple[str, str]]:
    """(subject_id, version) of the history items that are identical in ``old`` (e.g. the base)."""
    if old is None:
        return set()
    before = {(sid, h["subject_version"]): h for sid, (_, item) in entries(old).items() for h in item.get("history", [])}
    return {(sid, h["subject_version"]) for sid, (_, item) in entries(new).items() for h in item.get("history", [])
            if before.get((sid, h["subject_version"])) == h}


def check_against_snapshots(document: dict[str, Any], snapshots: list[Snapshot],
                            skip: Set[tuple[str, str]] = frozenset()) -> list[Problem]:
    """Every history item whose status or last_snapshot disagrees with the snapshots.

    Items in ``skip`` (unchanged since the base, hence judged when they were
    added) are left alone: snapshots are append-only and a replaced version is
    in no later snapshot, so an item that was true stays true.
    """
    problems = []
    by_name = {s.name: s for s in snapshots}
    for sid, (index, item) in sorted(entries(document).items()):
        for h_index, old in enumerate(item.get("history", [])):
            where = f"$.subjects[{index}].history[{h_index}]"
            version = old["subject_version"]
            if (sid, version) in skip:
                continue
            holding = [s for s in snapshots if s.holds(sid, version)]
            latest = holding[-1] if holding else None
            if version == item["subject_version"]:
                problems.append(Problem(REGISTRY_FILE, f"{where}.subject_version: {version!r} is the version being scored; "
                                                       "history lists earlier versions only"))
                continue
            named = old.get("last_snapshot")
            if named is None:
                if latest is not None:
                    problems.append(Problem(REGISTRY_FILE, (
                        f"{where}: {sid!r} {version!r} has results in {HISTORY_DIR}/{latest.name}; "
                        f"add last_snapshot: \"{HISTORY_DIR}/{latest.name}\"")))
                continue
            name = snapshot_name(named)
            snapshot = by_name.get(name)
            if snapshot is None:
                problems.append(Problem(REGISTRY_FILE, f"{where}.last_snapshot: {named!r} is not a snapshot in {HISTORY_DIR}/"))
            elif not snapshot.holds(sid, version):
                problems.append(Problem(REGISTRY_FILE, f"{where}.last_snapshot: {HISTORY_DIR}/{name} "
                                                       f"does not hold {sid!r} at version {version!r}"))
            elif latest is not None and latest.name != name:
                problems.append(Problem(REGISTRY_FILE, (
                    f"{where}.last_snapshot: {HISTORY_DIR}/{latest.name} is a later snapshot holding {sid!r} {version!r}; "
                    "last_snapshot names the latest")))
            else:
                disqualified = snapshot.subjects[sid].get("disqualified") == "true"
                expected = "disqualified" if disqualified else "retired"
                if old["status"] != expected:
                    state = "disqualified" if disqualified else "not disqualified"
                    problems.append(Problem(REGISTRY_FILE, (
                        f"{where}.status: {old['status']!r} but {HISTORY_DIR}/{name} shows {sid!r} {version!r} "
                        f"{state}; use {expected!r}")))
    return problems


def check_change(old: dict[str, Any] | None, new: dict[str, Any]) -> list[Problem]:
    """Between a base registry and the current one: replaced versions go to history, history stays."""
    if old is None:
        return []
    problems = []
    before, after = entries(old), entries(new)
    for sid, (index, previous) in sorted(before.items()):
        if sid not in after and previous.get("history"):
            versions = ", ".join(repr(h["subject_version"]) for h in previous["history"])
            problems.append(Problem(REGISTRY_FILE, (
                f"$.subjects: {sid!r} (at $.subjects[{index}] in the base) was removed with its history (versions "
                f"{versions}); the registry's history is append-only, a subject with history is never removed "
                "(keep the entry)")))
    for sid, (index, item) in sorted(after.items()):
        if sid not in before:
            continue
        previous = before[sid].item
        listed = {h["subject_version"] for h in item.get("history", [])}
        if previous["subject_version"] != item["subject_version"] and previous["subject_version"] not in listed:
            problems.append(Problem(REGISTRY_FILE, (
                f"$.subjects[{index}]: {sid!r} moved from version {previous['subject_version']!r} to "
                f"{item['subject_version']!r} without listing {previous['subject_version']!r} in its history "
                "(add it with its status and last_snapshot; take a snapshot first if its results are not in one)")))
        for old_item in previous.get("history", []):
            if old_item not in item.get("history", []):
                problems.append(Problem(REGISTRY_FILE, (
                    f"$.subjects[{index}].history: the item for version {old_item['subject_version']!r} was removed "
                    "or changed; the registry's history is append-only")))
    return problems
