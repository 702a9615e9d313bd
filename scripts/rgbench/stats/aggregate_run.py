"""What scripts/aggregate_scoring.py computes and writes, subject by subject, with work proportional to what
changed since the last run.

Everything the script writes is a sum of per-subject parts (:class:`SubjectPart`): a subject's
consolidated scorings, its validity and its share of the agreement sums (:class:`AgreementTally`)
depend only on its own folders (``responses/``, ``scoring/`` and the several-reviewers folder), the
golds and ``system/``. So:

- :func:`incremental_parts` reads the global inputs every time; a subject whose three input folders
  have the same ``lstat`` fingerprints (rgbench.folder_scan) as when its part was stored in the memo
  (:class:`AggregateMemo`) is taken from there without opening a file; every other subject is read
  through the per-file cache, checked exactly as the full loaders do, and its part rebuilt. Whenever
  anything is wrong or unusual it gives up (returns None) and the caller loads the whole tree with the
  full loaders, which report every problem with its exact message; :func:`parts_of_tree` then builds the
  parts from that tree.
- :func:`write_outputs` makes the output folder hold exactly the consolidated files of the parts, and
  ``results/agreement.csv`` the merged tally's rows, writing only the files whose bytes differ from what
  is on disk and removing the files no longer produced. A subject's output folder whose fingerprint is
  the one recorded when it was last found right is not read at all; a folder this run writes to is
  recorded untrusted (its files are too recent for a fingerprint) and checked file by file next time.

Results are byte-identical to a full run into an empty folder, with or without the memo (tests).
"""

from __future__ import annotations

import csv
import gc
import hashlib
import io
import marshal
import os
import stat
from operator import itemgetter
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple, Sequence

from ..atomic import replace_bytes_atomic
from ..extract import EVALUATION, RESPONSE
from ..filecache import FileCache
from ..folder_scan import ABSENT, Scan, start_scan, subject_folders
from ..memo_files import MemoFiles, code_digest, content_digest, fingerprint_text, lines_digest
from ..loader import (
    Collector, build_golds, build_responses, build_scorings, list_golds, list_subject_files, load_registry,
    read_system,
)
from ..parallel import extract_files
from ..records import Gold, Response, Scoring, Tree
from ..safe_read import read_bytes
from ..spec import Spec
from .agreement_outputs import (
    AGREEMENT_COLUMNS, AgreementTally, agreement_csv_rows, consolidated_bytes, consolidated_name, tally_grades,
)
from .consolidate import consolidate_all
from .multi_scoring import MultiScorings, load_multi, multi_jobs

_SCORING_ORDER = itemgetter(0, 2, 3, 4)  # (subject_id, case_id, run_id, reviewer_id) of a Scoring, as the loader sorts
MEMO_DIR = ".cache/rgbench/aggregate"
_FORMAT = "rgbench-aggregate-part/1"


class SubjectPart(NamedTuple):
    """One registered subject's share of everything aggregate_scoring writes.

    ``files`` maps each consolidated file's name (in ``<out>/<version>/<subject_id>/``) to its bytes, or
    is None for a part taken from the memo; ``digests`` maps the same names to the sha256 of the bytes.
    """

    subject_id: str
    n_grades: int
    n_runs: int
    n_several: int
    tally: AgreementTally
    files: dict[str, bytes] | None
    digests: dict[str, bytes]


def build_part(subject_id: str, grades: Sequence[Scoring], adjudications: Mapping[tuple[str, str, str], Scoring],
               responses: Mapping[tuple[str, str, str], Response], golds: Mapping[str, Gold],
               digests: Mapping[str, str], spec: Spec) -> SubjectPart:
    """The part of one subject from its valid grades (scoring/ and the extra reviewers'), adjudications and
    responses; ``digests`` holds the sha256 of every response and grade file by path."""
    items = consolidate_all(grades, adjudications)
    files = {
        consolidated_name(item.scoring): consolidated_bytes(item, digests[responses[item.scoring.run_key].path], digests)
        for item in items
    }
    return SubjectPart(
        subject_id, len(grades), len(items), sum(1 for item in items if len(item.sources) > 1),
        tally_grades(grades, responses, golds, spec), files,
        {name: hashlib.sha256(data).digest() for name, data in files.items()},
    )


def parts_of_tree(tree: Tree, multi: MultiScorings, spec: Spec) -> dict[str, SubjectPart]:
    """The part of every registered subject of a valid tree and its valid several-reviewers folder."""
    grades: dict[str, list[Scoring]] = {sid: [] for sid in tree.subjects}
    for scoring in tuple(tree.scorings) + multi.extra:
        grades[scoring.subject_id].append(scoring)
    adjudications: dict[str, dict] = {sid: {} for sid in tree.subjects}
    for key, scoring in multi.adjudications.items():
        adjudications[key[0]][key] = scoring
    digests = {**tree.inputs, **multi.inputs}
    return {sid: build_part(sid, grades[sid], adjudications[sid], tree.responses, tree.golds, digests, spec)
            for sid in sorted(tree.subjects)}


def merged_tally(parts: Iterable[SubjectPart], spec: Spec) -> AgreementTally:
    total = AgreementTally(spec)
    for part in parts:
        total.merge(part.tally)
    return total


def agreement_bytes(parts: Iterable[SubjectPart], spec: Spec) -> bytes:
    """results/agreement.csv of these parts."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(AGREEMENT_COLUMNS)
    writer.writerows(agreement_csv_rows(merged_tally(parts, spec).rows()))
    return buffer.getvalue().encode("utf-8")


# --- the memo ---------------------------------------------------------------------------------

def context_digest(*, system_digest: str, version_dir: str, multi_dir: str, out_dir: str,
                   golds: Iterable[tuple[str, str]]) -> str:
    """Digest of everything global a part depends on: this code, ``system/``, the folders, every gold's sha256."""
    return lines_digest([_FORMAT, code_digest(), system_digest, version_dir, multi_dir, out_dir]
                        + [f"{digest}  {path}" for path, digest in sorted(golds)])


class MemoEntry(NamedTuple):
    """A stored part and the facts it was stored under (fingerprints as hex, None when untrusted)."""

    inputs: list
    content: str
    output: str | None
    part: SubjectPart


class AggregateMemo:
    """Per-subject parts kept between runs under one context, at
    ``<tree>/.cache/rgbench/aggregate/<multi dir>/<out dir>/<sha256 of the subject id>.bin``.

    Each file: a JSON header line (format, Python and marshal versions, context, subject, version, the
    fingerprints of the three input folders and of the output folder, the content digest, the CRC-32 of
    the rest), then marshal data: the counts, the tally, and the names and sha256 of the consolidated
    files. Anything that does not decode, fails its checksum or belongs to another subject or context
    is ignored and rewritten. Local, git-ignored, and never changes a result; ``enabled=False`` (or a
    read-only tree) keeps no memo.
    """

    def __init__(self, root: Path, multi_dir: str, out_dir: str, context: str, spec: Spec, enabled: bool = True):
        self.files = MemoFiles(Path(root) / MEMO_DIR / multi_dir / out_dir, _FORMAT, context, enabled)
        self.spec, self.enabled = spec, enabled
        self.written: list[str] = []

    def _path(self, subject_id: str) -> Path:
        return self.files.path(subject_id)

    def get(self, subject_id: str, subject_version: str) -> MemoEntry | None:
        """The stored entry of this subject at this version under this context, or None."""
        found = self.files.read(subject_id)
        if found is None:
            return None
        header, payload = found
        if header.get("version") != subject_version or not MemoFiles.intact(header, payload):
            return None
        try:
            (n_grades, n_runs, n_several), tally, names, digests = marshal.loads(payload)
            if len(digests) != 32 * len(names):
                return None
            part = SubjectPart(subject_id, n_grades, n_runs, n_several, AgreementTally.from_plain(self.spec, tally), None,
                               {name: digests[32 * i:32 * i + 32] for i, name in enumerate(names)})
            inputs = header["inputs"]
            if not isinstance(inputs, list) or len(inputs) != 3:
                return None
            return MemoEntry(inputs, header["content"], header.get("output"), part)
        except (ValueError, TypeError, KeyError, EOFError, IndexError):
            return None

    def put(self, part: SubjectPart, subject_version: str, inputs: Sequence[bytes | None], content: str,
            output: bytes | None) -> None:
        """Store ``part`` with the fingerprints its inputs and output folder had when they were read."""
        if not self.enabled:
            return
        names = sorted(part.digests)
        payload = marshal.dumps(((part.n_grades, part.n_runs, part.n_several), part.tally.to_plain(), tuple(names),
                                 b"".join(part.digests[name] for name in names)))
        fields = {"content": content, "inputs": fingerprint_text(inputs), "output": fingerprint_text([output])[0],
                  "version": subject_version}
        if self.files.write(part.subject_id, fields, payload) is not None:
            self.written.append(part.subject_id)

    def prune(self, subject_ids: Iterable[str]) -> None:
        """Delete the entries of subjects not in ``subject_ids``."""
        self.files.prune(subject_ids)


# --- the incremental computation --------------------------------------------------------------

class Outputs(NamedTuple):
    """What :func:`incremental_parts` hands to :func:`write_outputs`: every part, the subjects whose output
    folder is known to hold exactly their files, and how to record the new state in the memo."""

    parts: dict[str, SubjectPart]
    trusted: set[str]
    out_prints: dict[str, bytes | None]  # subject -> fingerprint of its output folder taken at the start
    memo: AggregateMemo | None
    pending: dict[str, tuple]  # subject -> (version, input fingerprints, content) of the entry to store


def incremental_parts(root: Path, spec: Spec, multi_dir: str, out_dir: str, use_cache: bool = True,
                      scan: Scan | None = None) -> Outputs | None:
    """Every subject's part and the state of the output folders, or None when the tree must take the full path
    (any problem in any input, or anything unusual: see the module docstring).

    ``scan`` is a folder scan the caller started early over (at least) the ``<top>/<version>/<subject>``
    folders of responses/, scoring/, the several-reviewers and the output folder
    (:func:`rgbench.folder_scan.discover_folders`); this function closes it. Without one (and with the
    cache on) it starts its own.
    """
    gc.disable()
    try:
        return _Run(Path(root), spec, multi_dir, out_dir, use_cache).run(scan)
    finally:
        if scan is not None:
            scan.close()
        gc.freeze()
        gc.enable()


class _Run:
    """The state of one incremental computation; each step returns False (or None) when the tree must take the
    full path instead."""

    def __init__(self, root: Path, spec: Spec, multi_dir: str, out_dir: str, use_cache: bool):
        self.root, self.spec, self.use_cache = root, spec, use_cache
        self.multi_dir, self.out_dir = multi_dir, out_dir
        version = spec.version_dir
        self.tops = (f"responses/{version}", f"scoring/{version}", f"{multi_dir}/{version}")
        self.out_base = f"{out_dir}/{version}"
        self.col = Collector(root)
        self.parts: dict[str, SubjectPart] = {}
        self.trusted: set[str] = set()
        self.out_prints: dict[str, bytes | None] = {}  # subject -> fingerprint of its output folder
        self.pending: dict[str, tuple] = {}  # subject -> (version, input fingerprints, content) to store
        self.entries: dict[str, MemoEntry | None] = {}

    def run(self, scan: Scan | None) -> Outputs | None:
        if not self.read_globals():
            return None
        if scan is None and self.use_cache:
            scan = start_scan(self.root, self.folders)  # it runs in other processes while this one reads the golds
        elif not self.use_cache:
            scan = None
        try:
            if not self.read_golds():
                return None
            fingerprints = scan.result() if scan is not None else {}
        finally:
            if scan is not None:
                scan.close()
        stale = self.take_unchanged(fingerprints)
        if not self.rebuild(stale, fingerprints):
            return None
        self.cache.prune(set(self.extracted) | set(self.golds_read))
        self.cache.save(live_folders=[f"golds/{self.spec.version_dir}",
                                      *(f"{top}/{sid}" for top, names in zip(self.tops[:2], self.present)
                                        for sid in names)])
        return Outputs(self.parts, self.trusted, self.out_prints, self.memo, self.pending)

    def read_globals(self) -> bool:
        """``system/``, the registry, the subject folders (all registered) and the list of golds."""
        col, spec, root = self.col, self.spec, self.root
        self.system_digest = read_system(col)
        self.subjects = load_registry(col, spec)
        if self.subjects is None or col.problems:
            return False
        self.present: list[set[str]] = []
        for top in self.tops:
            names = subject_folders(root, top)
            if names is None or not set(names) <= self.subjects.keys():
                return False
            self.present.append(set(names))
        out_names = subject_folders(root, self.out_base)  # None: something unusual there, so nothing is trusted
        self.out_names = None if out_names is None else set(out_names)
        self.gold_jobs = list_golds(col, spec)
        self.folders = [f"{top}/{sid}" for top, names in zip(self.tops, self.present) for sid in sorted(names)]
        self.folders += [f"{self.out_base}/{sid}" for sid in out_names or () if sid in self.subjects]
        return not col.problems

    def read_golds(self) -> bool:
        """Every gold (through the file cache), the memo's context and the memo."""
        col, spec, root = self.col, self.spec, self.root
        self.cache = FileCache(root, self.system_digest, enabled=self.use_cache, lazy=True)
        self.golds_read = extract_files(root, spec, [(entry, kind) for entry, kind, _ in self.gold_jobs], self.cache)
        self.golds, self.gold_files = build_golds(col, spec, self.gold_jobs, self.golds_read)
        if col.problems:
            return False
        self.context = context_digest(system_digest=self.system_digest, version_dir=spec.version_dir,
                                      multi_dir=self.multi_dir, out_dir=self.out_dir,
                                      golds=[(e.rel, self.golds_read[e.rel][0]) for e, _, _ in self.gold_jobs])
        self.memo = AggregateMemo(root, self.multi_dir, self.out_dir, self.context, spec, enabled=self.use_cache)
        return True

    def input_prints(self, sid: str, fingerprints: Mapping[str, bytes | None]) -> tuple[bytes | None, ...]:
        return tuple(fingerprints.get(f"{top}/{sid}") if sid in names else ABSENT
                     for top, names in zip(self.tops, self.present))

    def take_unchanged(self, fingerprints: Mapping[str, bytes | None]) -> list[str]:
        """Take from the memo the part of every subject whose input folders kept their fingerprints; trust its
        output folder when it kept its fingerprint too, or when its files are checked equal now. Return
        the other subjects."""
        stale = []
        for sid, subject in sorted(self.subjects.items()):
            prints = self.input_prints(sid, fingerprints)
            if self.out_names is None:
                out_print = None
            else:
                out_print = fingerprints.get(f"{self.out_base}/{sid}") if sid in self.out_names else ABSENT
            self.out_prints[sid] = out_print
            entry = self.entries[sid] = self.memo.get(sid, subject.subject_version)
            if entry is None or None in prints or entry.inputs != fingerprint_text(prints):
                stale.append(sid)
            elif out_print is not None and entry.output == fingerprint_text([out_print])[0]:
                self.parts[sid] = entry.part
                self.trusted.add(sid)  # neither its inputs nor its files changed since they were checked
            elif self.files_match(sid, entry.part):
                self.parts[sid] = entry.part
                self.trusted.add(sid)
                self.pending[sid] = (subject.subject_version, prints, entry.content)
            else:
                stale.append(sid)
        return stale

    def files_match(self, sid: str, part: SubjectPart) -> bool:
        """True when ``<out>/<version>/<sid>/`` holds exactly the part's files (by sha256), as regular files."""
        folder = os.path.join(self.root, self.out_base, sid)
        names = _json_names(folder)
        if names.keys() != part.digests.keys() or not all(names.values()):
            return False
        for name, digest in part.digests.items():
            try:
                data = read_bytes(folder, name)
            except OSError:
                return False
            if hashlib.sha256(data).digest() != digest:
                return False
        return True

    def rebuild(self, stale: list[str], fingerprints: Mapping[str, bytes | None]) -> bool:
        """Read, check and build the parts of the ``stale`` subjects; False on any problem."""
        col, spec, root, subjects, golds = self.col, self.spec, self.root, self.subjects, self.golds
        jobs = {sid: tuple(list_subject_files(col, spec, top.partition("/")[0], kind, subjects, sid) if sid in names else []
                           for top, kind, names in zip(self.tops[:2], (RESPONSE, EVALUATION), self.present[:2]))
                for sid in stale}
        if col.problems:
            return False
        self.extracted = extracted = extract_files(
            root, spec, [(entry, kind) for sid in stale for part in jobs[sid] for entry, kind, _ in part], self.cache)
        multi_extracted = extract_files(root, spec, [job for sid in stale if sid in self.present[2]
                                                     for job in multi_jobs(root, spec, self.multi_dir, sid)],
                                        FileCache(root, "", enabled=False))
        for sid in stale:
            version = subjects[sid].subject_version
            response_jobs, scoring_jobs = jobs[sid]
            responses, digests_by_run = build_responses(col, spec, response_jobs, extracted, subjects, golds,
                                                        self.gold_files)
            scorings = build_scorings(col, spec, scoring_jobs, extracted, subjects, golds, self.gold_files, responses,
                                      digests_by_run)
            if col.problems:
                return False
            inputs = {entry.rel: extracted[entry.rel][0] for part in jobs[sid] for entry, _, _ in part
                      if extracted[entry.rel][0]}
            tree = Tree(subjects=subjects, golds=golds, responses=responses,
                        scorings=tuple(sorted(scorings, key=_SCORING_ORDER)), inputs=inputs)
            multi, _ = load_multi(root, spec, tree, self.multi_dir, subject_id=sid, extracted=multi_extracted)
            if multi is None:
                return False
            digests = {**inputs, **multi.inputs}
            self.parts[sid] = build_part(sid, tree.scorings + multi.extra, multi.adjudications, responses, golds,
                                         digests, spec)
            content = content_digest(self.context, sid, version, digests.items())
            entry, out_print = self.entries.get(sid), self.out_prints[sid]
            if entry is not None and entry.content == content and out_print is not None \
                    and entry.output == fingerprint_text([out_print])[0]:
                self.trusted.add(sid)  # the same inputs as when its files were last checked, and the files kept
            self.pending[sid] = (version, self.input_prints(sid, fingerprints), content)
        return True


# --- writing ----------------------------------------------------------------------------------

def _json_names(folder: str) -> dict[str, bool]:
    """Names ending in ``.json`` in ``folder`` (following a link to it, as ``Path.glob`` does) -> whether it is a
    regular file that is not a symbolic link; {} when the folder is missing or unreadable."""
    names = {}
    try:
        with os.scandir(folder) as iterator:
            for child in iterator:
                if child.name.endswith(".json"):
                    names[child.name] = child.is_file() and not child.is_symlink()
    except OSError:
        return {}
    return names


def _subject_dirs(folder: str) -> list[str]:
    """Names of the folders (or links to folders) in ``folder``, as ``Path.glob("*/...")`` walks them."""
    try:
        with os.scandir(folder) as iterator:
            return [child.name for child in iterator if child.is_dir()]
    except OSError:
        return []


def _same_bytes(path: str, data: bytes) -> bool:
    """True when ``path`` is a regular file (not a link) holding exactly ``data``."""
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        return os.read(fd, len(data) + 1) == data
    except OSError:
        return False
    finally:
        os.close(fd)


class WriteReport(NamedTuple):
    written: list[str]  # relative paths, in the order written
    removed: list[str]


def write_outputs(root: Path, spec: Spec, out_dir: str, outputs: Outputs, agreement: bytes,
                  agreement_rel: str) -> WriteReport:
    """Make ``<out_dir>/<version>/`` hold exactly the parts' consolidated files and ``agreement_rel`` the
    agreement report: write (atomically, in path order) only the files whose bytes differ, then remove the
    ``*/*.json`` regular files no part produces. Consolidated files are derived and git-ignored: they are
    not fsynced; the agreement report is. Then record the output folders' state in the memo."""
    root_text = os.fspath(root)
    base = f"{out_dir}/{spec.version_dir}"
    base_path = os.path.join(root_text, base)
    writes: dict[str, tuple[bytes, bool]] = {}
    removals: list[str] = []
    touched: set[str] = set()
    if not _same_bytes(os.path.join(root_text, agreement_rel), agreement):
        writes[agreement_rel] = (agreement, True)
    for sid, part in outputs.parts.items():
        if sid in outputs.trusted:
            continue
        folder = os.path.join(base_path, sid)
        existing = _json_names(folder)
        for name, data in part.files.items():
            if not _same_bytes(os.path.join(folder, name), data):
                writes[f"{base}/{sid}/{name}"] = (data, False)
                touched.add(sid)
        for name, regular in existing.items():
            if regular and name not in part.files:
                removals.append(f"{base}/{sid}/{name}")
                touched.add(sid)
    for sid in _subject_dirs(base_path):
        if sid not in outputs.parts:
            folder = os.path.join(base_path, sid)
            removals += [f"{base}/{sid}/{name}" for name, regular in _json_names(folder).items() if regular]
    order = sorted(writes)
    made: set[str] = set()
    for rel in order:
        data, durable = writes[rel]
        path = os.path.join(root_text, rel)
        parent = os.path.dirname(path)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        replace_bytes_atomic(path, data, durable=durable)
    removals.sort()
    for rel in removals:
        os.unlink(os.path.join(root_text, rel))
    memo = outputs.memo
    if memo is not None:
        for sid, (version, prints, content) in sorted(outputs.pending.items()):
            out_print = None if sid in touched else outputs.out_prints.get(sid)
            memo.put(outputs.parts[sid], version, prints, content, out_print)
        memo.prune(outputs.parts)
    return WriteReport(order, removals)
