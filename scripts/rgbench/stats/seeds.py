"""Where every random draw comes from: one stream per subject (per pair, per board), seeded by its own inputs.

A subject's **input digest** (:func:`subject_digest`) is sha256 over the ``sha256sum``-style lines of the
files that can change its figures: its own responses and scorings (``responses/<version>/<subject_id>/``,
``scoring/<version>/<subject_id>/``), every gold (``golds/``) and every file of ``system/`` (formulas,
config, schemas), plus a line naming the subject. Another subject's files, the registry and the
several-reviewer folder are not in it, so a change to one subject's scoring leaves every other subject's
draws, hence its rows, byte-identical.

A stream is ``numpy.random.Generator(PCG64(SeedSequence(words)))`` with ``words`` the eight 32-bit
big-endian words of sha256(``label`` + ``\\n`` + the digests joined by ``\\n``) (:func:`generator`). The
labels name the quantity (``subject``, ``family:<code>``, ``difficulty:<d>``, ``pair``, ``ranks``, ...); a
pair's stream takes both subjects' digests (sorted), the rank sets' stream every ranked subject's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

import numpy as np

SHARED_PREFIXES = ("golds/", "system/")


def _owned_by(path: str, subject_id: str) -> bool:
    """True for responses/<version>/<subject_id>/... and scoring/<version>/<subject_id>/..."""
    parts = path.split("/")
    return len(parts) >= 4 and parts[0] in ("responses", "scoring") and parts[2] == subject_id


def subject_digest(subject_id: str, inputs: Mapping[str, str]) -> str:
    """Hex sha256 over ``<sha256>  <path>\\n`` lines (sorted by path) of the subject's own inputs, the golds
    and system/, after a first line ``subject <subject_id>\\n``. ``inputs``: path -> sha256 of every input."""
    lines = [f"subject {subject_id}\n"]
    lines += [f"{digest}  {path}\n" for path, digest in sorted(inputs.items())
              if path.startswith(SHARED_PREFIXES) or _owned_by(path, subject_id)]
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


def generator(label: str, digests: Iterable[str]) -> np.random.Generator:
    """The stream of ``label`` over the given input digests (order-free: they are sorted first)."""
    text = label + "\n" + "\n".join(sorted(digests))
    words = np.frombuffer(hashlib.sha256(text.encode("utf-8")).digest(), dtype=">u4").astype(np.uint32)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words.tolist())))
