"""Run the per-file extraction over many files, on every core when it pays, through the cache."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from typing import Callable, Sequence

from .extract import Extracted, extract
from .filecache import FileCache
from .safe_read import Entry, read_bytes
from .spec import Spec

# Below this many files to parse, starting worker processes costs more than it saves.
PARALLEL_MIN_FILES = 4000
_CHUNK = 500

_worker_state: dict = {}


def _read_and_extract(root: str, rel: str, kind: str, spec: Spec) -> Extracted:
    try:
        data = read_bytes(root, rel)
    except OSError as exc:
        return "", (f"cannot be read: {exc.strerror or exc}",), None
    return extract(kind, data, spec)


def _work(chunk: list[tuple[str, str]]) -> list[Extracted]:
    root, spec = _worker_state["root"], _worker_state["spec"]
    return [_read_and_extract(root, rel, kind, spec) for rel, kind in chunk]


def _init(root: str, spec: Spec) -> None:
    _worker_state["root"], _worker_state["spec"] = root, spec


def worker_count() -> int:
    """Cores this process may use (affinity-aware), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def extract_files(root: Path, spec: Spec, jobs: Sequence[tuple[Entry, str]], cache: FileCache,
                  progress: Callable[[int], None] | None = None) -> dict[str, Extracted]:
    """Extracted result of every (entry, kind), by path; results equal what a serial, uncached run gives."""
    results, misses = cache.split(jobs)
    if progress:
        progress(len(results))
    root_text = os.fspath(root)
    workers = worker_count()
    if len(misses) >= PARALLEL_MIN_FILES and workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        chunks = [[(e.rel, k) for e, k in misses[i:i + _CHUNK]] for i in range(0, len(misses), _CHUNK)]
        context = multiprocessing.get_context("fork")
        with context.Pool(workers, initializer=_init, initargs=(root_text, spec)) as pool:
            done = 0
            for chunk_jobs, chunk_results in zip(chunks, pool.imap(_work, chunks)):
                for (rel, _), result in zip(chunk_jobs, chunk_results):
                    results[rel] = result
                done += len(chunk_jobs)
                if progress:
                    progress(len(results))
    else:
        for index, (entry, kind) in enumerate(misses):
            results[entry.rel] = _read_and_extract(root_text, entry.rel, kind, spec)
            if progress and index % 1000 == 999:
                progress(len(results))
    for entry, kind in misses:
        digest, errors, fields = results[entry.rel]
        if digest:
            cache.remember(entry, kind, digest, (errors, fields))
    return results
