"""Run the per-file extraction over many files, on every core when it pays.

Reading and parsing are independent per file (:func:`rgbench.load.extract.extract`),
so a large tree is split into chunks handed to a fork pool; a small one is read
in this process. The result is the same either way, file by file.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from .extract import Extracted, extract, max_file_bytes
from .safe_read import FileTooLarge, TreeFile, read_bytes
from .spec import Spec

# Below this many files, starting worker processes costs more than it saves (make bench).
PARALLEL_MIN_FILES = 4000
# Files per chunk. Each chunk costs the parent a few ms of its own CPU time, whatever its size: at 177,000
# files chunks of 500 cost it 1.6 s, chunks of 2,000 1.0 s; larger ones gain little and balance the two
# workers' last chunks less well.
_CHUNK = 2000

_worker_state: dict = {}


def _read_and_extract(root: str, rel: str, kind: str, spec: Spec, max_bytes: int) -> Extracted:
    try:
        data = read_bytes(root, rel, max_bytes)
    except FileTooLarge as exc:
        return Extracted("", (str(exc),), None)
    except OSError as exc:
        return Extracted("", (f"cannot be read: {exc.strerror or exc}",), None)
    return extract(kind, data, spec)


def _extract_all(root: str, spec: Spec, jobs: Sequence[tuple[TreeFile, str]]) -> list[Extracted]:
    limits = {kind: max_file_bytes(spec, kind) for kind in {kind for _, kind in jobs}}
    return [_read_and_extract(root, entry.rel, kind, spec, limits[kind]) for entry, kind in jobs]


def _work(span: range) -> list[Extracted]:
    root, spec, jobs = _worker_state["root"], _worker_state["spec"], _worker_state["jobs"]
    return _extract_all(root, spec, jobs[span.start:span.stop])


def _init(root: str, spec: Spec, jobs: Sequence[tuple[TreeFile, str]]) -> None:
    """A worker's state: forked, so the job list is inherited, not sent (each chunk is a range of it)."""
    _worker_state["root"], _worker_state["spec"], _worker_state["jobs"] = root, spec, jobs


def usable_cores() -> int:
    """Cores this process may use (affinity-aware), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def extract_files(root: Path, spec: Spec, jobs: Sequence[tuple[TreeFile, str]],
                  progress: Callable[[int], None] | None = None) -> dict[str, Extracted]:
    """Extracted result of every (entry, kind), by path; ``progress(done)`` is called as files are done."""
    root_text = os.fspath(root)
    workers = usable_cores()
    if len(jobs) >= PARALLEL_MIN_FILES and workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        spans = [range(start, min(start + _CHUNK, len(jobs))) for start in range(0, len(jobs), _CHUNK)]
        extracted: list[Extracted] = []
        with multiprocessing.get_context("fork").Pool(workers, initializer=_init,
                                                      initargs=(root_text, spec, jobs)) as pool:
            for chunk_results in pool.imap(_work, spans):
                extracted.extend(chunk_results)
                if progress:
                    progress(len(extracted))
    else:
        extracted = []
        for start in range(0, len(jobs), _CHUNK):
            extracted.extend(_extract_all(root_text, spec, jobs[start:start + _CHUNK]))
            if progress:
                progress(len(extracted))
    return {entry.rel: result for (entry, _), result in zip(jobs, extracted)}
