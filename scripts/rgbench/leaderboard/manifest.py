"""``results/manifest.json``: the provenance the leaderboard's footer quotes.

The manifest is checked for internal consistency (its ``input_digest`` must be
the digest of its ``inputs`` listing, computed the way compute_metrics computes
it), and :func:`stale_inputs` tells whether a file read now still has the
digest it had when the metrics were computed. ``inputs`` holds a digest per
subject folder of responses/ and scoring/ and one per other file
(:mod:`rgbench.compute.input_groups`): :func:`recorded_now` turns the files the
leaderboard reads into those keys.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..compute.input_groups import input_group, listing_digest
from ..load.parsing import ParseError, decode_utf8, loads_json_strict
from ..load.safe_read import read_bytes, read_result_file, walk_files
from ..problems import Problem
from ..results.tables import MANIFEST_FILE

MANIFEST_PATH = f"results/{MANIFEST_FILE}"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_FIXED = re.compile(r"^[0-9]{1,18}\.[0-9]{6}$")
_RUN_METRICS = "run `make metrics`"


@dataclass(frozen=True)
class Manifest:
    """The fields the leaderboard uses. ``alpha_text`` is the committed 6-decimal string."""

    alpha: Fraction
    alpha_text: str
    benchmark_version: str
    input_digest: str
    inputs: dict[str, str]
    outputs: dict[str, str]
    confidence_level: str | None = None
    bootstrap_resamples: int | None = None
    significance_level: str | None = None
    grades: dict[str, object] | None = None   # what a board of consolidated grades rests on; None: one per run


def parse_manifest(document: object) -> tuple[Manifest | None, list[str]]:
    """A Manifest from the parsed JSON, or messages (``$.key: what is wrong``)."""
    if not isinstance(document, dict):
        return None, [f"expected a JSON object ({_RUN_METRICS} to regenerate it)"]
    messages = []
    alpha = document.get("alpha")
    if not isinstance(alpha, str) or not _FIXED.match(alpha) or Fraction(alpha) > 1:
        messages.append(f"$.alpha: expected a string with 6 decimals between 0 and 1, got {alpha!r}")
    version = document.get("benchmark_version")
    if not isinstance(version, str) or not version:
        messages.append(f"$.benchmark_version: expected a non-empty string, got {version!r}")
    digest = document.get("input_digest")
    if not isinstance(digest, str) or not _SHA256.match(digest):
        messages.append(f"$.input_digest: expected a lowercase sha256 hex digest, got {digest!r}")
    if not isinstance(document.get("counts"), dict):
        messages.append("$.counts: expected an object")
    inputs = document.get("inputs")
    if not isinstance(inputs, dict):
        messages.append("$.inputs: expected an object mapping relative paths to sha256 digests")
    else:
        malformed = [path for path, value in inputs.items() if not isinstance(value, str) or not _SHA256.match(value)]
        messages += [f"$.inputs[{path!r}]: expected a sha256 hex digest, got {inputs[path]!r}" for path in sorted(malformed)]
    outputs = document.get("outputs", {})
    if not isinstance(outputs, dict) or not all(isinstance(v, str) and _SHA256.match(v) for v in outputs.values()):
        messages.append("$.outputs: expected an object mapping result file names to sha256 digests")
    statistics = document.get("statistics", {})
    level, resamples, significance = (statistics.get(key) if isinstance(statistics, dict) else None
                                      for key in ("confidence_level", "bootstrap_resamples", "significance_level"))
    if not isinstance(statistics, dict) or any(value is not None and not (isinstance(value, str) and _FIXED.match(value))
                                               for value in (level, significance)) \
            or (resamples is not None and (isinstance(resamples, bool) or not isinstance(resamples, int))):
        messages.append("$.statistics: expected an object with a 6-decimal confidence_level and significance_level "
                        "and an integer bootstrap_resamples")
    grades = document.get("grades")
    if grades is not None and not _grades_ok(grades):
        messages.append(f"$.grades: expected an object with text {', '.join(GRADES_TEXT)} and whole numbers "
                        f"{', '.join(GRADES_COUNTS)} ({_RUN_METRICS})")
    if messages:
        return None, messages
    # No message: each field passed its check above.
    assert isinstance(alpha, str) and isinstance(version, str) and isinstance(digest, str) and isinstance(inputs, dict)
    if listing_digest(inputs) != digest:
        return None, [f"$.input_digest: does not match the digest of $.inputs (the manifest was edited by hand; {_RUN_METRICS})"]
    return Manifest(Fraction(alpha), alpha, version, digest, dict(inputs), dict(outputs),
                    level, resamples, significance, None if grades is None else dict(grades)), []


# manifest.json's ``grades`` (rgbench.stats.consolidated_board.grades_record): its text and count fields.
GRADES_TEXT = ("board_grades", "consolidation_policy", "consolidated_reviewer")
GRADES_COUNTS = ("grades", "raters", "runs", "runs_adjudicated", "runs_combined")


def _grades_ok(grades: object) -> bool:
    return (isinstance(grades, dict) and set(grades) == set(GRADES_TEXT + GRADES_COUNTS)
            and all(isinstance(grades[key], str) for key in GRADES_TEXT)
            and all(isinstance(grades[key], int) and not isinstance(grades[key], bool) and grades[key] >= 0
                    for key in GRADES_COUNTS))


def read_manifest_document(root: Path) -> tuple[bytes | None, object, list[Problem]]:
    """The bytes and the parsed JSON of ``results/manifest.json`` (read safely, strict JSON), or (None, None,
    problems)."""
    data, problems = read_result_file(root, MANIFEST_PATH)
    if data is None:
        return None, None, [Problem(p.path, f"{p.message}; {_RUN_METRICS} to regenerate it") for p in problems]
    try:
        return data, loads_json_strict(decode_utf8(data)), []
    except ParseError as exc:
        return None, None, [Problem(MANIFEST_PATH, f"{exc}; {_RUN_METRICS} to regenerate it")]


def read_manifest(root: Path) -> tuple[Manifest | None, list[Problem]]:
    """Read and check ``results/manifest.json``; (manifest, []) or (None, problems)."""
    _, document, problems = read_manifest_document(root)
    if problems:
        return None, problems
    manifest, messages = parse_manifest(document)
    return manifest, [Problem(MANIFEST_PATH, message) for message in messages]


def stale_outputs(manifest: Manifest, digests: dict[str, str]) -> list[Problem]:
    """A problem for each result file (``results/<name>`` -> sha256 now) that the manifest records otherwise.

    Files the manifest does not list (an older manifest without ``outputs``) are not checked.
    """
    problems = []
    for path, digest in sorted(digests.items()):
        recorded = manifest.outputs.get(path.removeprefix("results/"))
        if recorded is not None and recorded != digest:
            problems.append(Problem(path, f"differs from the file compute_metrics wrote ({MANIFEST_PATH} records another "
                                          f"sha256; do not edit results by hand, {_RUN_METRICS})"))
    return problems


def folder_digest_now(root: Path, folder: str) -> str:
    """The :func:`~rgbench.compute.input_groups.listing_digest` of the files under ``folder`` (a manifest key
    ending in ``/``) as they are now; a file that cannot be read counts with an empty digest (so it differs)."""
    entries, _ = walk_files(root, folder.rstrip("/"))
    digests = {}
    for entry in entries:
        try:
            digests[entry.rel] = hashlib.sha256(read_bytes(root, entry.rel)).hexdigest()
        except OSError:
            digests[entry.rel] = ""
    return listing_digest(digests)


def recorded_now(root: Path, digests: Mapping[str, str]) -> dict[str, str]:
    """Files read now (path -> sha256) as manifest keys -> digest now: a file recorded on its own keeps its
    digest; a file of a subject folder stands for the folder, whose every file is hashed again."""
    out: dict[str, str] = {}
    for path, digest in digests.items():
        key = input_group(path)
        if key == path:
            out[path] = digest
        elif key not in out:
            out[key] = folder_digest_now(root, key)
    return out


def stale_inputs(manifest: Manifest, digests: dict[str, str]) -> list[Problem]:
    """A problem for each manifest key (-> its digest now, :func:`recorded_now`) that differs from, or is
    absent in, the manifest."""
    problems = []
    for path, digest in sorted(digests.items()):
        recorded = manifest.inputs.get(path)
        if recorded is None:
            problems.append(Problem(path, f"not listed in {MANIFEST_PATH} inputs (the results predate it; {_RUN_METRICS})"))
        elif recorded != digest:
            problems.append(Problem(path, f"changed since the results were computed "
                                          f"({MANIFEST_PATH} records another sha256; {_RUN_METRICS})"))
    return problems
