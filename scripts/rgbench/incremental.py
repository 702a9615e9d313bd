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

from .extract import EVALUATION, GOLD, RESPONSE
from .filecache import FileCache
from .folder_scan import start_scan, subject_folders
from .loader import (
    build_golds, build_responses, build_scorings, Collector, list_golds, load_registry, read_system,
    list_subject_files, load_tree,
)
from .numfmt import fmt_fixed
from .parallel import extract_files
from .problems import Problem
from .spec import Spec
from .subject_memo import SubjectMemo, content_digest, context_digest
from .subject_slice import SubjectSlice, build_slice, input_block
from .tables import Results, compute_results, merge_slices
from .timings import STAGES

ABSENT = b"absent"  # fingerprint of a subject folder that does not exist


def load_results(root: Path, spec: Spec, *, scoring_dir: str = "scoring", use_cache: bool = True,
                 progress: Callable[[int, int], None] | None = None) -> tuple[Results | None, list[Problem]]:
    """(results, []) for a fully valid tree, else (None, every problem), as ``load_tree`` reports them.

    ``use_cache=False`` neither reads nor writes ``.cache/`` (per-file cache and memo); results are the same.
    """
    results = _incremental(Path(root), spec, scoring_dir, use_cache, progress)
    if results is not None:
        return results, []
    tree, problems = load_tree(root, spec, use_cache=use_cache, progress=progress, scoring_dir=scoring_dir)
    if tree is None:
        return None, problems
    return compute_results(tree, spec, scoring_dir), []


def _incremental(root: Path, spec: Spec, scoring_dir: str, use_cache: bool,
                 progress: Callable[[int, int], None] | None) -> Results | None:
    """Results by the incremental path, or None when the tree needs the full path (see the module docstring)."""
    with STAGES.stage("system/, registry"):
        col = Collector(root)
        system_digest = read_system(col)
        subjects = load_registry(col, spec)
    if subjects is None or col.problems:
        return None
    tops = (f"responses/{spec.version_dir}", f"{scoring_dir}/{spec.version_dir}")
    present: dict[str, set[str]] = {}
    for top in tops:
        names = subject_folders(root, top)
        if names is None or not set(names) <= subjects.keys():
            return None
        present[top] = set(names)
    gold_jobs = list_golds(col, spec)
    if col.problems:
        return None
    folders = [f"{top}/{sid}" for top in tops for sid in sorted(present[top])]
    # The scan runs in other processes while this one reads the golds and the memo.
    scan = start_scan(root, folders) if use_cache else None
    try:
        return _with_scan(root, spec, scoring_dir, use_cache, progress, col, system_digest, subjects, tops, present,
                          gold_jobs, folders, scan)
    finally:
        if scan is not None:
            scan.close()


def _with_scan(root, spec, scoring_dir, use_cache, progress, col, system_digest, subjects, tops, present, gold_jobs,
               folders, scan) -> Results | None:
    with STAGES.stage("golds"):
        cache = FileCache(root, system_digest, enabled=use_cache, lazy=True)
        golds_read = extract_files(root, spec, [(entry, kind) for entry, kind, _ in gold_jobs], cache)
        golds, gold_files = build_golds(col, spec, gold_jobs, golds_read)
    if col.problems:
        return None
    gold_inputs = {entry.rel: golds_read[entry.rel][0] for entry, _, _ in gold_jobs}
    context = context_digest(system_digest=system_digest, alpha=fmt_fixed(spec.alpha) + f" {spec.alpha}",
                             version_dir=spec.version_dir, scoring_dir=scoring_dir, golds=gold_inputs.items())
    memo = SubjectMemo(root, scoring_dir, context, enabled=use_cache)
    with STAGES.stage("read the memo"):
        memo.preload(sorted(subjects))
    with STAGES.stage("wait for the scan"):
        fingerprints = scan.result() if scan is not None else {}
    if fingerprints is None:
        return None

    slices: dict[str, SubjectSlice] = {}
    folder_prints: dict[str, tuple] = {}
    stale: list[str] = []
    with STAGES.stage("unchanged subjects"):
        for sid, subject in sorted(subjects.items()):
            prints = tuple(fingerprints.get(f"{top}/{sid}") if sid in present[top] else ABSENT for top in tops)
            folder_prints[sid] = prints
            found = memo.by_fingerprints(sid, subject.subject_version, prints)
            if found is None:
                stale.append(sid)
            else:
                slices[sid] = found

    with STAGES.stage("read changed subjects"):
        jobs = {sid: (list_subject_files(col, spec, "responses", RESPONSE, subjects, sid) if sid in present[tops[0]] else [],
                      list_subject_files(col, spec, scoring_dir, EVALUATION, subjects, sid) if sid in present[tops[1]] else [])
                for sid in stale}
        if col.problems:
            return None
        every_job = [(entry, kind) for sid in stale for part in jobs[sid] for entry, kind, _ in part]
        report = (lambda done: progress(done, len(every_job))) if progress else None
        extracted = extract_files(root, spec, every_job, cache, report)
        cache.prune(set(extracted) | set(golds_read))
        cache.save(live_folders=[f"golds/{spec.version_dir}", *folders])
    with STAGES.stage("check and slice them"):
        if not _rebuild(stale, jobs, extracted, col, spec, subjects, golds, gold_files, context, memo,
                        folder_prints, tops, slices):
            return None
        memo.prune(subjects)
    loose = dict(col.inputs)
    loose.update(gold_inputs)
    return merge_slices(list(slices.values()), golds, spec, loose)


def _rebuild(stale, jobs, extracted, col, spec, subjects, golds, gold_files, context, memo, folder_prints, tops,
             slices) -> bool:
    """Cross-check each stale subject's records and put its slice (rebuilt, or found by content) in
    ``slices``; False at the first problem."""
    for sid in stale:
        subject = subjects[sid]
        response_jobs, scoring_jobs = jobs[sid]
        responses, digests = build_responses(col, spec, response_jobs, extracted, subjects, golds, gold_files)
        scorings = build_scorings(col, spec, scoring_jobs, extracted, subjects, golds, gold_files, responses, digests)
        if col.problems:
            return False
        files = [(entry.rel, extracted[entry.rel][0]) for part in jobs[sid] for entry, _, _ in part]
        content = content_digest(context, sid, subject.subject_version, files)
        found = memo.by_content(sid, subject.subject_version, content)
        if found is None:
            blocks = [input_block(f"{top}/{sid}/", [f for f in files if f[0].startswith(f"{top}/{sid}/")])
                      for top in tops]
            found = build_slice(subject, responses, scorings, golds, spec, blocks)
        memo.put(found, content, folder_prints[sid])
        slices[sid] = found
    return True
