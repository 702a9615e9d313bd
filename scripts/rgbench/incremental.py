"""compute_metrics' results with work proportional to what changed since the last run.

The tree is read subject by subject. The global inputs (``system/``, the
registry, the golds) are read every time; a subject whose two folders have the
same ``lstat`` fingerprints as when its slice was stored (rgbench.folder_scan,
rgbench.subject_memo) is taken from the memo without opening a file; every
other subject is walked, read through the per-file cache, cross-checked
exactly as :func:`rgbench.loader.load_tree` does, and its slice is rebuilt
(or found in the memo by content). The slices are then merged
(:func:`rgbench.tables.merge_slices`): the statistics across subjects and the
manifest are computed afresh every time.

Whenever anything is wrong or unusual (a problem in any file, a link, a
special file, an unregistered folder...), this path gives up and the caller
loads the whole tree with :func:`rgbench.loader.load_tree`, which reports every
problem with its exact message. Both paths produce byte-identical results on
every valid tree (tests).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from .extract import EVALUATION, RESPONSE
from .filecache import FileCache
from .folder_scan import ABSENT, Scan, start_scan, subject_folders
from .loader import (
    build_golds, build_responses, build_scorings, Collector, list_golds, load_registry, read_system,
    list_subject_files, load_tree,
)
from .parallel import extract_files
from .problems import Problem
from .spec import Spec
from .subject_memo import SubjectMemo, content_digest, context_digest
from .subject_slice import SubjectSlice, build_slice, input_block
from .tables import Results, compute_results, merge_slices
from .timings import STAGES



def load_results(root: Path, spec: Spec, *, scoring_dir: str = "scoring", use_cache: bool = True,
                 progress: Callable[[int, int], None] | None = None,
                 scan: Scan | None = None) -> tuple[Results | None, list[Problem]]:
    """(results, []) for a fully valid tree, else (None, every problem), as ``load_tree`` reports them.

    ``use_cache=False`` neither reads nor writes ``.cache/`` (per-file cache and memo); results are the same.
    ``scan`` is a folder scan the caller started early (:func:`rgbench.folder_scan.start_scan` over
    :func:`rgbench.folder_scan.discover_folders`); this function closes it.
    """
    try:
        results = _incremental(Path(root), spec, scoring_dir, use_cache, progress, scan)
    finally:
        if scan is not None:
            scan.close()
    if results is not None:
        return results, []
    tree, problems = load_tree(root, spec, use_cache=use_cache, progress=progress, scoring_dir=scoring_dir)
    if tree is None:
        return None, problems
    return compute_results(tree, spec, scoring_dir), []


def _incremental(root: Path, spec: Spec, scoring_dir: str, use_cache: bool,
                 progress: Callable[[int, int], None] | None, scan: Scan | None) -> Results | None:
    """Results by the incremental path, or None when the tree needs the full path (see the module docstring)."""
    run = _Run(root, spec, scoring_dir, use_cache)
    if not run.read_globals():
        return None
    if scan is None and use_cache:
        scan = start_scan(root, run.folders)  # it runs in other processes while this one reads the golds and memo
    try:
        if not run.read_golds():
            return None
        with STAGES.stage("read the memo"):
            run.memo.preload(sorted(run.subjects))
        with STAGES.stage("wait for the scan"):
            fingerprints = scan.result() if scan is not None and use_cache else {}
    finally:
        if scan is not None:
            scan.close()
    with STAGES.stage("unchanged subjects"):
        stale = run.take_unchanged(fingerprints)
    if not run.rebuild(stale, progress):
        return None
    return merge_slices(list(run.slices.values()), run.golds, spec, run.loose_inputs())


class _Run:
    """The state of one incremental computation, step by step; every step returns False (or None) when
    the tree must go to the full path instead."""

    def __init__(self, root: Path, spec: Spec, scoring_dir: str, use_cache: bool):
        self.root, self.spec, self.scoring_dir, self.use_cache = root, spec, scoring_dir, use_cache
        self.col = Collector(root)
        self.tops = (f"responses/{spec.version_dir}", f"{scoring_dir}/{spec.version_dir}")
        self.present: dict[str, set[str]] = {}  # top -> subject folders in it
        self.folders: list[str] = []
        self.slices: dict[str, SubjectSlice] = {}
        self.prints: dict[str, tuple] = {}  # subject -> fingerprints of its (responses, scorings) folders

    def read_globals(self) -> bool:
        """``system/``, the registry, the subject folders (all registered) and the list of golds."""
        with STAGES.stage("system/, registry"):
            self.system_digest = read_system(self.col)
            self.subjects = load_registry(self.col, self.spec)
        if self.subjects is None or self.col.problems:
            return False
        for top in self.tops:
            names = subject_folders(self.root, top)
            if names is None or not set(names) <= self.subjects.keys():
                return False
            self.present[top] = set(names)
        self.gold_jobs = list_golds(self.col, self.spec)
        self.folders = [f"{top}/{sid}" for top in self.tops for sid in sorted(self.present[top])]
        return not self.col.problems

    def read_golds(self) -> bool:
        """Every gold (through the file cache), the memo's context and the memo."""
        with STAGES.stage("golds"):
            self.cache = FileCache(self.root, self.system_digest, enabled=self.use_cache, lazy=True)
            self.golds_read = extract_files(self.root, self.spec, [(e, kind) for e, kind, _ in self.gold_jobs],
                                            self.cache)
            self.golds, self.gold_files = build_golds(self.col, self.spec, self.gold_jobs, self.golds_read)
        if self.col.problems:
            return False
        self.gold_inputs = {entry.rel: self.golds_read[entry.rel][0] for entry, _, _ in self.gold_jobs}
        self.context = context_digest(system_digest=self.system_digest, version_dir=self.spec.version_dir,
                                      scoring_dir=self.scoring_dir, golds=self.gold_inputs.items())
        self.memo = SubjectMemo(self.root, self.scoring_dir, self.context, enabled=self.use_cache)
        return True

    def take_unchanged(self, fingerprints: dict[str, bytes | None]) -> list[str]:
        """Put the memo's slice of every subject whose folders kept their fingerprints in ``slices``;
        return the other subjects."""
        stale = []
        for sid, subject in sorted(self.subjects.items()):
            prints = tuple(fingerprints.get(f"{top}/{sid}") if sid in self.present[top] else ABSENT
                           for top in self.tops)
            self.prints[sid] = prints
            found = self.memo.by_fingerprints(sid, subject.subject_version, prints)
            if found is None:
                stale.append(sid)
            else:
                self.slices[sid] = found
        return stale

    def rebuild(self, stale: list[str], progress: Callable[[int, int], None] | None) -> bool:
        """Read, cross-check and slice the ``stale`` subjects (a slice of the same content comes from the memo)."""
        col, spec, subjects = self.col, self.spec, self.subjects
        with STAGES.stage("read changed subjects"):
            jobs = {sid: tuple(list_subject_files(col, spec, top.partition("/")[0], kind, subjects, sid)
                               if sid in self.present[top] else []
                               for top, kind in zip(self.tops, (RESPONSE, EVALUATION)))
                    for sid in stale}
            if col.problems:
                return False
            every_job = [(entry, kind) for sid in stale for part in jobs[sid] for entry, kind, _ in part]
            report = (lambda done: progress(done, len(every_job))) if progress else None
            extracted = extract_files(self.root, spec, every_job, self.cache, report)
            self.cache.prune(set(extracted) | set(self.golds_read))
            self.cache.save(live_folders=[f"golds/{spec.version_dir}", *self.folders])
        with STAGES.stage("check and slice them"):
            for sid in stale:
                subject = subjects[sid]
                response_jobs, scoring_jobs = jobs[sid]
                responses, digests = build_responses(col, spec, response_jobs, extracted, subjects, self.golds,
                                                     self.gold_files)
                scorings = build_scorings(col, spec, scoring_jobs, extracted, subjects, self.golds, self.gold_files,
                                          responses, digests)
                if col.problems:
                    return False
                files = [(entry.rel, extracted[entry.rel][0]) for part in jobs[sid] for entry, _, _ in part]
                content = content_digest(self.context, sid, subject.subject_version, files)
                found = self.memo.by_content(sid, subject.subject_version, content)
                if found is None:
                    blocks = [input_block(f"{top}/{sid}/", [f for f in files if f[0].startswith(f"{top}/{sid}/")])
                              for top in self.tops]
                    found = build_slice(subject, responses, scorings, self.golds, spec, blocks)
                self.memo.put(found, content, self.prints[sid])
                self.slices[sid] = found
            self.memo.prune(subjects)
        return True

    def loose_inputs(self) -> dict[str, str]:
        """Digests of the inputs outside subject folders: ``system/``, the registry, the golds."""
        return {**self.col.inputs, **self.gold_inputs}
