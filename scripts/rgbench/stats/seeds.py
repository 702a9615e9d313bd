"""Where every random draw comes from: one stream per subject (per board, per set of shared cases), seeded by its inputs.

A subject's **input digest** (:func:`subject_digest`) is sha256 over the ``sha256sum``-style lines of the
files that can change its figures: its own responses and scorings (``responses/<version>/<subject_id>/``,
``scoring/<version>/<subject_id>/``, and ``scoring_multi/<version>/<subject_id>/`` when the board rests on
the consolidated grades, which are then among the inputs), every gold (``golds/``) and every file of
``system/`` (formulas, config, schemas), plus a line naming the subject. Another subject's files and the
registry are not in it, so a change to one subject's scoring leaves every other subject's draws, hence its
rows, byte-identical.

A stream is ``numpy.random.Generator(PCG64(SeedSequence(words)))`` with ``words`` the eight 32-bit
big-endian words of sha256(``label`` + ``\\n`` + the digests joined by ``\\n``) (:func:`generator`). The
labels name the quantity (``subject``, ``family:<code>``, ``difficulty:<d>``, ``ranks``, ``pairs``, ...);
the rank sets' stream takes every ranked subject's digest; the pairs' streams take :func:`shared_digest`
(golds and system/) and the list of the pair's shared cases (:func:`rgbench.stats.pairwise.pair_stream`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

import numpy as np

SHARED_PREFIXES = ("golds/", "system/")


def subject_digest(subject_id: str, inputs: Mapping[str, str]) -> str:
    """Hex sha256 over ``<sha256>  <path>\\n`` lines (sorted by path) of the subject's own inputs, the golds
    and system/, after a first line ``subject <subject_id>\\n``. ``inputs``: path -> sha256 of every input."""
    return subject_digests([subject_id], inputs)[subject_id]


def subject_digests(subject_ids: Iterable[str], inputs: Mapping[str, str]) -> dict[str, str]:
    """:func:`subject_digest` of every subject, reading ``inputs`` once (each subject's own files by path)."""
    shared: list[str] = []
    own: dict[str, list[str]] = {}
    for path in inputs:
        if path.startswith(SHARED_PREFIXES):
            shared.append(path)
        else:
            parts = path.split("/")
            if len(parts) >= 4 and parts[0] in ("responses", "scoring", "scoring_multi"):
                own.setdefault(parts[2], []).append(path)
    out = {}
    for sid in subject_ids:
        paths = sorted(shared + own.get(sid, []))
        text = f"subject {sid}\n" + "".join(f"{inputs[path]}  {path}\n" for path in paths)
        out[sid] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return out


def shared_digest(inputs: Mapping[str, str]) -> str:
    """Hex sha256 over the ``<sha256>  <path>\\n`` lines (sorted by path) of the golds and system/ alone: the
    inputs every subject shares, which seed the draws that belong to no one subject (the pairs')."""
    paths = sorted(path for path in inputs if path.startswith(SHARED_PREFIXES))
    return hashlib.sha256("".join(f"{inputs[path]}  {path}\n" for path in paths).encode("utf-8")).hexdigest()


def generator(label: str, digests: Iterable[str]) -> np.random.Generator:
    """The stream of ``label`` over the given input digests (order-free: they are sorted first)."""
    text = label + "\n" + "\n".join(sorted(digests))
    words = np.frombuffer(hashlib.sha256(text.encode("utf-8")).digest(), dtype=">u4").astype(np.uint32)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words.tolist())))
