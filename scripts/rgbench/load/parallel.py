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
_CHUNK = 500

_worker_state: dict = {}


def _read_and_extract(root: str, rel: str, kind: str, spec: Spec) -> Extracted:
    try:
        data = read_bytes(root, rel, max_file_bytes(spec, kind))
    except FileTooLarge as exc:
        return Extracted("", (str(exc),), None)
    except OSError as exc:
        return Extracted("", (f"cannot be read: {exc.strerror or exc}",), None)
    return extract(kind, data, spec)


def _work(chunk: list[tuple[str, str]]) -> list[Extracted]:
    root, spec = _worker_state["root"], _worker_state["spec"]
    return [_read_and_extract(root, rel, kind, spec) for rel, kind in chunk]


def _init(root: str, spec: Spec) -> None:
    _worker_state["root"], _worker_state["spec"] = root, spec


def usable_cores() -> int:
    """Cores this process may use (affinity-aware), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def extract_files(root: Path, spec: Spec, jobs: Sequence[tuple[TreeFile, str]],
                  progress: Callable[[int], None] | None = None) -> dict[str, Extracted]:
    """Extracted result of every (entry, kind), by path; ``progress(done)`` is called as files are done."""
    results: dict[str, Extracted] = {}
    root_text = os.fspath(root)
    workers = usable_cores()
    if len(jobs) >= PARALLEL_MIN_FILES and workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        chunks = [[(e.rel, k) for e, k in jobs[i:i + _CHUNK]] for i in range(0, len(jobs), _CHUNK)]
        with multiprocessing.get_context("fork").Pool(workers, initializer=_init, initargs=(root_text, spec)) as pool:
            for chunk_jobs, chunk_results in zip(chunks, pool.imap(_work, chunks)):
                for (rel, _), result in zip(chunk_jobs, chunk_results):
                    results[rel] = result
                if progress:
                    progress(len(results))
    else:
        for index, (entry, kind) in enumerate(jobs):
            results[entry.rel] = _read_and_extract(root_text, entry.rel, kind, spec)
            if progress and index % 1000 == 999:
                progress(len(results))
    return results
