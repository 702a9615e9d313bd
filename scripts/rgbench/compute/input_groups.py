"""How results/manifest.json records the inputs: one digest per subject folder of responses/ and scoring/, one
per other file.

A board of 58 subjects x 805 cases has 93,000 response and scoring files; a digest for each made the manifest
13.5 MB, twice the per-run table. The manifest's ``inputs`` therefore maps

- each subject folder ``responses/<version>/<subject_id>/`` and ``scoring/<version>/<subject_id>/`` (the
  trailing ``/`` marks a folder) to the :func:`listing_digest` of the files in it: ``sha256sum`` lines of
  the folder's files, sorted by path, hashed again (so ``find scoring/v1.0/s -type f | LC_ALL=C sort |
  xargs sha256sum | sha256sum`` prints it);
- every other input (system/, golds/, the registries) to the sha256 of the file, as before.

That is O(subjects + cases) entries, and a change still names where it is: the file, or the subject whose
responses or grades changed. The manifest's ``input_digest`` is :func:`listing_digest` of that record
(:func:`manifest_digest`). The figures' bootstrap seeds do not come from it: they hash each file
(:mod:`rgbench.stats.seeds`), so grouping moves no number.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping

PER_SUBJECT_FOLDERS = ("responses", "scoring")   # <folder>/<version>/<subject_id>/<file>


def listing_digest(digests: Mapping[str, str]) -> str:
    """sha256 over ``<sha256>  <path>\\n`` lines sorted by path (the format of ``sha256sum``)."""
    listing = "".join(f"{digest}  {path}\n" for path, digest in sorted(digests.items()))
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def input_group(path: str) -> str:
    """The manifest key that records ``path``: its subject folder (``scoring/v1.0/s/``) for a file of a
    subject's responses or grades, else the path itself."""
    parts = path.split("/")
    if len(parts) >= 4 and parts[0] in PER_SUBJECT_FOLDERS:
        return "/".join(parts[:3]) + "/"
    return path


def grouped_inputs(inputs: Mapping[str, str]) -> dict[str, str]:
    """The manifest's ``inputs`` from every input file's sha256 (by path): key -> digest, sorted by key."""
    folders: dict[str, dict[str, str]] = defaultdict(dict)
    record: dict[str, str] = {}
    for path, digest in inputs.items():
        key = input_group(path)
        if key == path:
            record[path] = digest
        else:
            folders[key][path] = digest
    record.update((key, listing_digest(files)) for key, files in folders.items())
    return dict(sorted(record.items()))


def manifest_digest(inputs: Mapping[str, str]) -> str:
    """The manifest's ``input_digest`` from every input file's sha256: the digest of :func:`grouped_inputs`."""
    return listing_digest(grouped_inputs(inputs))


def input_changes(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    """Each key of two manifests' ``inputs`` whose digest differs, as ``key (changed|added|removed)``, sorted:
    ``added`` is in ``new`` only."""
    return [f"{key} ({'added' if key not in old else 'removed' if key not in new else 'changed'})"
            for key in sorted(old.keys() | new.keys()) if old.get(key) != new.get(key)]
