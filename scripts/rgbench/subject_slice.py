"""One subject's share of a computation: everything compute_metrics writes that depends on that subject alone.

A :class:`SubjectSlice` is a pure function of the subject's validated records,
the golds and ``system/``; :func:`rgbench.tables.merge_slices` combines the
slices of every registered subject with the global parts (statistics across
subjects, the manifest). A slice round-trips through builtin values and a list of byte blobs
(:meth:`SubjectSlice.to_plain`), which is how ``rgbench.subject_memo`` keeps it
between runs. Its texts are UTF-8 bytes (or read-only views of the memo file),
ready to be joined into the output files without decoding.
"""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from typing import Mapping, NamedTuple, Sequence

from .derive import RunRow, derive_run
from .numfmt import fmt_fixed
from .metrics import FamilyMetrics, SubjectMetrics, family_metrics, subject_metrics
from .records import Gold, Response, Scoring, Subject
from .spec import Spec
from .stats.run_columns import SubjectColumns


class InputBlock(NamedTuple):
    """The input files of one folder, sorted by path, as the two texts the manifest needs.

    ``prefix`` is the folder path with a trailing ``/``: every path of the
    block starts with it, so the block sorts as a unit among other paths.
    ``listing`` holds ``<sha256>  <path>\\n`` lines (input_digest); ``json``
    the manifest's ``    "<path>": "<sha256>"`` lines joined by ``,\\n``; both UTF-8.
    """

    prefix: str
    count: int
    listing: bytes
    json: bytes


def input_block(prefix: str, inputs: Sequence[tuple[str, str]]) -> InputBlock:
    """The block of (path, sha256) pairs that all start with ``prefix``."""
    ordered = sorted(inputs)
    encode = json.encoder.encode_basestring
    return InputBlock(
        prefix,
        len(ordered),
        "".join(f"{digest}  {path}\n" for path, digest in ordered).encode("utf-8"),
        ",\n".join(f"    {encode(path)}: {encode(digest)}" for path, digest in ordered).encode("utf-8"),
    )


class SubjectSlice(NamedTuple):
    """Per-subject results, exact (see the module docstring). ``metrics.q_final`` and ``metrics.alpha``
    are those of the alpha it was built with; merging forms them again for the alpha of the run."""

    subject_id: str
    subject_version: str
    n_responses: int
    n_scorings: int
    metrics: SubjectMetrics
    families: tuple[FamilyMetrics, ...]
    per_run_rows: bytes  # this subject's rows of per_run.csv (UTF-8), without the header
    columns: SubjectColumns
    blocks: tuple[InputBlock, ...]

    @property
    def n_runs(self) -> int:
        return self.metrics.n

    def to_plain(self, blobs: list) -> tuple:
        """Builtin values only (str, int, tuple, bytes), for marshal; the large texts are appended to
        ``blobs`` and stand in the tuple as their index there."""
        m = self.metrics

        def blob(data: bytes) -> int:
            blobs.append(data)
            return len(blobs) - 1

        return (
            self.subject_id, self.subject_version, self.n_responses, self.n_scorings,
            (m.n, m.n_unscored, _frac(m.p), _frac(m.s_bar), _frac(m.bs), _frac(m.ece), _frac(m.q_final),
             _frac(m.alpha), m.disqualified, m.n_critical),
            tuple((f.family, f.n_family, _frac(f.p_family), _frac(f.s_bar_family)) for f in self.families),
            blob(self.per_run_rows),
            self.columns.to_plain(),
            tuple((b.prefix, b.count, blob(b.listing), blob(b.json)) for b in self.blocks),
        )

    @staticmethod
    def from_plain(plain: tuple, blobs: Sequence[bytes]) -> "SubjectSlice":
        """Inverse of :meth:`to_plain`; ValueError, TypeError or IndexError on anything malformed."""
        sid, version, n_responses, n_scorings, m, families, rows, columns, blocks = plain
        n, n_unscored, p, s_bar, bs, ece, q, alpha, disqualified, n_critical = m
        metrics = SubjectMetrics(sid, version, n, n_unscored, _unfrac(p), _unfrac(s_bar), _unfrac(bs), _unfrac(ece),
                                 _unfrac(q), _unfrac(alpha), disqualified, n_critical)
        return SubjectSlice(
            sid, version, n_responses, n_scorings, metrics,
            tuple(FamilyMetrics(sid, version, family, count, _unfrac(pf), _unfrac(sf))
                  for family, count, pf, sf in families),
            blobs[rows], SubjectColumns.from_plain(columns),
            tuple(InputBlock(prefix, count, blobs[listing], blobs[text]) for prefix, count, listing, text in blocks),
        )


def _frac(value: Fraction | None) -> tuple[int, int] | None:
    return None if value is None else (value.numerator, value.denominator)


def _unfrac(value: tuple[int, int] | None) -> Fraction | None:
    return None if value is None else Fraction(*value)


def per_run_rows_text(runs: Sequence[RunRow]) -> bytes:
    """Rows of per_run.csv for ``runs`` (UTF-8), in the order given, without the header."""
    # confidence_unit and correctness take few distinct values: format each once.
    correctness_text: dict[Fraction, str] = {}
    rows = []
    for r in runs:
        correctness = correctness_text.get(r.correctness)
        if correctness is None:
            correctness = correctness_text[r.correctness] = fmt_fixed(r.correctness)
        rows.append((r.subject_id, r.subject_version, r.case_id, r.run_id, r.reviewer_id, r.family,
                     r.raw_score, r.rubric_floor, r.rubric_ceiling, r.clipped_score,
                     "true" if r.has_critical_fail else "false", "true" if r.has_recoverable_fail else "false",
                     r.classification, r.reported_confidence, _UNIT_TEXT[r.reported_confidence], correctness))
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


_UNIT_TEXT = tuple(fmt_fixed(Fraction(c, 100)) for c in range(101))


def build_slice(subject: Subject, responses: Mapping[tuple[str, str, str], Response], scorings: Sequence[Scoring],
                golds: Mapping[str, Gold], spec: Spec, blocks: Sequence[InputBlock]) -> SubjectSlice:
    """The slice of one subject from its validated responses and scorings (every one of them this subject's;
    every case with a gold) and the input blocks of its folders."""
    rows = sorted((derive_run(s, responses[s.run_key], golds[s.case_id], spec) for s in scorings),
                  key=lambda row: row.sort_key)
    scored = {(row.case_id, row.run_id) for row in rows}
    n_unscored = sum(1 for (_, case_id, run_id) in responses if (case_id, run_id) not in scored)
    metrics = subject_metrics(subject.subject_id, subject.subject_version, rows, n_unscored,
                              alpha=spec.alpha, bins=spec.ece_bins, max_score=spec.max_score)
    return SubjectSlice(
        subject_id=subject.subject_id,
        subject_version=subject.subject_version,
        n_responses=len(responses),
        n_scorings=len(scorings),
        metrics=metrics,
        families=tuple(family_metrics(rows)),
        per_run_rows=per_run_rows_text(rows),
        columns=SubjectColumns.of(rows),
        blocks=tuple(blocks),
    )
