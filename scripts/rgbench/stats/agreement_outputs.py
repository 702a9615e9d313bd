"""What scripts/aggregate_scoring.py writes: results/agreement.csv and the consolidated scorings."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from json.encoder import encode_basestring
from typing import Hashable, Iterable, Mapping, Sequence

from ..derive import derive_run
from ..numfmt import fmt_fixed
from ..parsing import dumps_json_canonical
from ..records import Gold, Response, Scoring, Tree
from ..spec import Spec
from .agreement import (
    Unit, add_kappa_pair, alpha_from_coincidences, coincidences_from_counts, kappa_from_sums, percent_from_counts,
)
from .consolidate import ADJUDICATED, POLICY, POLICY_TEXT, SINGLE, Consolidated

AGREEMENT_FILE = "agreement.csv"
AGREEMENT_COLUMNS = ("statistic", "target", "value", "reviewer_a", "reviewer_b", "n_units", "note")
NOMINAL_TARGETS = ("classification", "correctness", "has_critical_fail")
DEVIATION_TARGETS = ("raw_score", "correctness")


def ordinal_targets(spec: Spec) -> tuple[str, ...]:
    """raw_score, then each criterion in the rubric's order."""
    return ("raw_score",) + spec.criteria


def rating_values(scoring: Scoring, tree: Tree, spec: Spec) -> dict[str, Hashable]:
    """Every agreement target's value in one grade: raw_score, criteria, classification, correctness, critical flag."""
    return grade_values(scoring, tree.responses[scoring.run_key], tree.golds[scoring.case_id], spec)


def grade_values(scoring: Scoring, response: Response, gold: Gold, spec: Spec) -> dict[str, Hashable]:
    """:func:`rating_values` from the grade's response and gold."""
    row = derive_run(scoring, response, gold, spec)
    values: dict[str, Hashable] = {"raw_score": row.raw_score}
    values.update(dict(scoring.criterion_scores))
    values.update(classification=row.classification, correctness=row.correctness, has_critical_fail=row.has_critical_fail)
    return values


def units_by_target(scorings: Sequence[Scoring], tree: Tree, spec: Spec) -> dict[str, list[Unit]]:
    """target -> one unit per graded run (sorted by run key): reviewer_id -> value."""
    per_run: dict[tuple[str, str, str], dict[str, dict[str, Hashable]]] = {}
    for scoring in scorings:
        per_run.setdefault(scoring.run_key, {})[scoring.reviewer_id] = rating_values(scoring, tree, spec)
    targets = ordinal_targets(spec) + NOMINAL_TARGETS
    return {
        target: [{reviewer: values[target] for reviewer, values in sorted(per_run[key].items())} for key in sorted(per_run)]
        for target in targets
    }


@dataclass(frozen=True)
class AgreementRow:
    """One row of agreement.csv; value None (empty cell) when undefined, ``note`` says why."""

    statistic: str
    target: str
    value: Fraction | None
    reviewer_a: str
    reviewer_b: str
    n_units: int
    note: str


def _encode(value):
    """A sum as a marshal-able builtin: a Fraction as (numerator, denominator), any other number as it is."""
    return (value.numerator, value.denominator) if type(value) is Fraction else value


def _decode(value):
    return Fraction(*value) if type(value) is tuple else value


def _nominal(value: Hashable) -> Hashable:
    """A nominal rating as it is counted: a Fraction (correctness) as (numerator, denominator), which is
    injective, cheap to hash and marshal-able; nominal statistics only compare values for equality."""
    return (value.numerator, value.denominator) if type(value) is Fraction else value


class AgreementTally:
    """The sums every row of agreement.csv is computed from, over a set of graded runs (rgbench.stats.agreement).

    Tallies of disjoint sets of runs add up (:meth:`merge`), and :meth:`rows` of the merged tally equals
    :func:`agreement_rows` over all the runs' units exactly, so a tally can be kept per subject.
    ``reviewers`` are all who graded one of the runs (every pair of them gets a kappa row, each a
    deviation row); every other sum is over the runs with at least two grades (the pairable units).
    Values that are Fractions are counted as (numerator, denominator) (:func:`_nominal`).
    """

    def __init__(self, spec: Spec):
        self.ordinal = ordinal_targets(spec)
        self.targets = self.ordinal + NOMINAL_TARGETS
        self.reviewers: set[str] = set()
        self.n_pairable = 0  # pairable runs
        self.pair_total = 0  # Σ C(m, 2) over them
        self.coincidence: dict[str, Counter] = {t: Counter() for t in self.targets}  # coincidence_counts
        self.agreeing: dict[str, int] = {t: 0 for t in self.targets}  # Σ equal pairs
        self.kappa: dict[str, dict[tuple[str, str], list]] = {t: {} for t in self.ordinal}  # (a < b) -> kappa sums
        # (reviewer, m, own value, another reviewer's value) -> count, over runs of m grades: a run adds
        # (x_r − x_o)/(m − 1) for each other reviewer o to r's deviation sum, and 1/(m − 1) to r's count
        self.deviation: dict[str, Counter] = {t: Counter() for t in DEVIATION_TARGETS}

    def add_run(self, ratings: Mapping[str, Mapping[str, Hashable]]) -> None:
        """Add one run graded by at least two reviewers: reviewer_id -> target -> value (:func:`grade_values`)."""
        reviewers = sorted(ratings)
        m = len(reviewers)
        if m < 2:
            raise ValueError("a pairable run has at least two grades")
        self.reviewers.update(reviewers)
        self.n_pairable += 1
        self.pair_total += m * (m - 1) // 2
        coincidence, agreeing, kappa = self.coincidence, self.agreeing, self.kappa
        if m == 2:  # the common case, inline
            a, b = reviewers
            x, y = ratings[a], ratings[b]
            for t in self.targets:
                c, k = x[t], y[t]
                if t not in kappa:
                    c, k = _nominal(c), _nominal(k)
                counts = coincidence[t]
                counts[(2, c, k)] += 1
                counts[(2, k, c)] += 1
                if c == k:
                    agreeing[t] += 1
                if t in kappa:
                    sums = kappa[t].get((a, b))
                    if sums is None:
                        sums = kappa[t][(a, b)] = [0, 0, 0, 0, 0, 0]
                    add_kappa_pair(sums, c, k)
                if t in self.deviation:
                    pairs = self.deviation[t]
                    pairs[(a, 2, c, k)] += 1
                    pairs[(b, 2, k, c)] += 1
            return
        for t in self.targets:
            values = [ratings[r][t] for r in reviewers]
            if t not in kappa:
                values = [_nominal(v) for v in values]
            counts = coincidence[t]
            pairs = self.deviation.get(t)
            for i, c in enumerate(values):
                for j in range(i + 1, m):
                    k = values[j]
                    counts[(m, c, k)] += 1
                    counts[(m, k, c)] += 1
                    if c == k:
                        agreeing[t] += 1
                    if t in kappa:
                        sums = kappa[t].get((reviewers[i], reviewers[j]))
                        if sums is None:
                            sums = kappa[t][(reviewers[i], reviewers[j])] = [0, 0, 0, 0, 0, 0]
                        add_kappa_pair(sums, c, k)
                    if pairs is not None:
                        pairs[(reviewers[i], m, _nominal(c), _nominal(k))] += 1
                        pairs[(reviewers[j], m, _nominal(k), _nominal(c))] += 1

    def deviations(self, target: str) -> dict[str, tuple[Fraction, int]]:
        """reviewer -> (mean of x_r − mean of the others, n) over the n runs the reviewer shares with another
        (:func:`rgbench.stats.agreement.mean_deviation`)."""
        sums: dict[str, list] = {}
        for (r, m, c, k), n in self.deviation[target].items():
            found = sums.setdefault(r, [Fraction(0), Fraction(0)])
            found[0] += Fraction(n, m - 1) * (_decode(c) - _decode(k))
            found[1] += Fraction(n, m - 1)
        return {r: (total / count, int(count)) for r, (total, count) in sums.items()}

    def merge(self, other: "AgreementTally") -> None:
        """Add ``other``'s sums (a tally of other runs) to this one."""
        self.reviewers |= other.reviewers
        self.n_pairable += other.n_pairable
        self.pair_total += other.pair_total
        for t in self.targets:
            self.coincidence[t].update(other.coincidence[t])
            self.agreeing[t] += other.agreeing[t]
        for t, pairs in other.kappa.items():
            mine = self.kappa[t]
            for pair, sums in pairs.items():
                mine[pair] = [a + b for a, b in zip(mine[pair], sums)] if pair in mine else list(sums)
        for t, pairs in other.deviation.items():
            self.deviation[t].update(pairs)

    def to_plain(self) -> tuple:
        """Builtin values only (for marshal); :meth:`from_plain` inverts it."""
        return (
            tuple(sorted(self.reviewers)), self.n_pairable, self.pair_total,
            tuple((t, tuple((m, _encode(c), _encode(k), n) for (m, c, k), n in self.coincidence[t].items()),
                   self.agreeing[t]) for t in self.targets),
            tuple((t, tuple((a, b, tuple(_encode(v) for v in sums)) for (a, b), sums in self.kappa[t].items()))
                  for t in self.ordinal),
            tuple((t, tuple((r, m, c, k, n) for (r, m, c, k), n in self.deviation[t].items()))
                  for t in DEVIATION_TARGETS),
        )

    @classmethod
    def from_plain(cls, spec: Spec, plain: tuple) -> "AgreementTally":
        """Inverse of :meth:`to_plain`; ValueError, TypeError or KeyError on anything malformed."""
        tally = cls(spec)
        reviewers, tally.n_pairable, tally.pair_total, per_target, kappa, deviation = plain
        tally.reviewers = set(reviewers)
        if [t for t, _, _ in per_target] != list(tally.targets) or [t for t, _ in kappa] != list(tally.ordinal) \
                or [t for t, _ in deviation] != list(DEVIATION_TARGETS):
            raise ValueError("targets")
        for t, counts, agreeing in per_target:
            tally.coincidence[t] = Counter({(m, _decode(c), _decode(k)) if t in tally.kappa else (m, c, k): n
                                            for m, c, k, n in counts})
            tally.agreeing[t] = agreeing
        for t, pairs in kappa:
            tally.kappa[t] = {(a, b): [_decode(v) for v in sums] for a, b, sums in pairs}
        for t, pairs in deviation:
            tally.deviation[t] = Counter({(r, m, c, k): n for r, m, c, k, n in pairs})
        return tally

    def rows(self) -> list[AgreementRow]:
        """Every agreement statistic, in a fixed order (see results/README.md)."""
        n = self.n_pairable
        rows = []
        for statistic, metric, targets in (("krippendorff_alpha_ordinal", "ordinal", self.ordinal),
                                           ("krippendorff_alpha_nominal", "nominal", NOMINAL_TARGETS)):
            for t in targets:
                value = alpha_from_coincidences(coincidences_from_counts(self.coincidence[t]), metric)
                note = "" if value is not None else ("no run has two ratings" if n == 0 else "no variation: all ratings equal")
                rows.append(AgreementRow(statistic, t, value, "", "", n, note))
        for t in self.targets:
            value = percent_from_counts(self.agreeing[t], self.pair_total)
            rows.append(AgreementRow("percent_agreement", t, value, "", "", n,
                                     "" if value is not None else "no run has two ratings"))
        reviewers = sorted(self.reviewers)
        for i, a in enumerate(reviewers):
            for b in reviewers[i + 1:]:
                for t in self.ordinal:
                    sums = self.kappa[t].get((a, b), [0, 0, 0, 0, 0, 0])
                    value = kappa_from_sums(sums)
                    note = "" if value is not None else (
                        "no run graded by both" if not sums[0] else "no variation: both gave one and the same value")
                    rows.append(AgreementRow("cohen_kappa_quadratic", t, value, a, b, sums[0], note))
        deviations = {t: self.deviations(t) for t in DEVIATION_TARGETS}
        for reviewer in reviewers:
            for t in DEVIATION_TARGETS:
                value, count = deviations[t].get(reviewer, (None, 0))
                note = ("no run shared with another reviewer" if value is None else
                        "lenient" if value > 0 else "severe" if value < 0 else "neutral")
                rows.append(AgreementRow("mean_deviation", t, value, reviewer, "", count, note))
        return rows


def tally_grades(scorings: Iterable[Scoring], responses: Mapping[tuple[str, str, str], Response],
                 golds: Mapping[str, Gold], spec: Spec) -> AgreementTally:
    """The tally of these grades (several per run allowed; adjudications are not ratings). Only the runs with
    at least two grades need their values derived."""
    by_run: dict[tuple[str, str, str], list[Scoring]] = {}
    tally = AgreementTally(spec)
    for scoring in scorings:
        by_run.setdefault(scoring.run_key, []).append(scoring)
        tally.reviewers.add(scoring.reviewer_id)
    for key, grades in by_run.items():
        if len(grades) >= 2:
            response = responses[key]
            tally.add_run({s.reviewer_id: grade_values(s, response, golds[s.case_id], spec) for s in grades})
    return tally


def agreement_rows(units: dict[str, list[Unit]], spec: Spec) -> list[AgreementRow]:
    """Every agreement statistic over ``units`` (:func:`units_by_target`), in a fixed order (see results/README.md)."""
    tally = AgreementTally(spec)
    targets = tally.targets
    for index, unit in enumerate(units["raw_score"]):
        tally.reviewers.update(unit)
        if len(unit) >= 2:
            tally.add_run({r: {t: units[t][index][r] for t in targets} for r in unit})
    return tally.rows()


def agreement_table(scorings: Sequence[Scoring], tree: Tree, spec: Spec) -> list[AgreementRow]:
    """Every agreement statistic over every grade (scoring/ and the extra reviewers; adjudications are not ratings)."""
    return tally_grades(scorings, tree.responses, tree.golds, spec).rows()


def agreement_csv_rows(rows: Sequence[AgreementRow]):
    for r in rows:
        yield (r.statistic, r.target, fmt_fixed(r.value), r.reviewer_a, r.reviewer_b, str(r.n_units), r.note)


# --- consolidated scorings ------------------------------------------------------------

_HOW = {
    SINGLE: "the only grade of this run, carried over unchanged",
    ADJUDICATED: "the adjudicator's grade, which wins over the other grades",
}
_BY_POLICY = f"the grades combined by policy {POLICY} ({POLICY_TEXT})"
_quote = encode_basestring  # what json.dumps(ensure_ascii=False) writes for a str, key or value


def _json_correctness(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def consolidated_comments(item: Consolidated, digests: Mapping[str, str]) -> str:
    """The ``comments`` of a consolidated scoring: how it was made and every source with its sha256."""
    sources = "; ".join(f"{path} (sha256 {digests[path]})" for path in item.sources)
    return f"Consolidated by scripts/aggregate_scoring.py: {_HOW.get(item.method, _BY_POLICY)}. Sources: {sources}."


def consolidated_document(item: Consolidated, tree: Tree, digests: dict[str, str]) -> dict:
    """The evaluation-schema document of one consolidated scoring; ``comments`` names its sources and their sha256."""
    s = item.scoring
    response = tree.responses[s.run_key]
    return _document(item, digests[response.path], digests)


def _document(item: Consolidated, response_digest: str, digests: Mapping[str, str]) -> dict:
    s = item.scoring
    return {
        "automatic_fails_triggered": [{"code": code, "severity": severity} for code, severity in s.fails],
        "case_id": s.case_id,
        "comments": consolidated_comments(item, digests),
        "correctness": _json_correctness(s.correctness),
        "criterion_scores": dict(s.criterion_scores),
        "response_sha256": response_digest,
        "reviewer_id": s.reviewer_id,
        "run_id": s.run_id,
        "schema_version": "1.0",
        "subject_id": s.subject_id,
        "subject_version": s.subject_version,
    }


def consolidated_bytes(item: Consolidated, response_digest: str, digests: Mapping[str, str]) -> bytes:
    """``dumps_json_canonical`` of the consolidated document, UTF-8, byte for byte.

    ``response_digest`` is the sha256 of the run's response, ``digests`` the sha256 of every source by
    path. The document has one fixed shape, so it is rendered from a template (json.dumps' indenting
    encoder is pure Python and 5x slower); a field of any unexpected type, or repeated criterion names,
    take dumps_json_canonical itself (tests compare both on many documents).
    """
    s = item.scoring
    try:
        return _render(s, consolidated_comments(item, digests), response_digest).encode("utf-8")
    except (TypeError, ValueError, KeyError):
        return dumps_json_canonical(_document(item, response_digest, digests)).encode("utf-8")


_ONLY_INT, _ONLY_STR = frozenset({int}), frozenset({str})
_criteria_blocks: dict[tuple[str, ...], tuple[str, tuple[int, ...]]] = {}


def _criteria_block(names: tuple[str, ...]) -> tuple[str, tuple[int, ...]]:
    """(%-template of the indented ``criterion_scores`` object, the order in which its values are taken) for
    criteria named ``names`` in that order; ValueError when a name repeats (the document would keep one)."""
    found = _criteria_blocks.get(names)
    if found is None:
        if len(set(names)) != len(names) or not _ONLY_STR.issuperset(map(type, names)):
            raise ValueError("criterion names")
        order = tuple(sorted(range(len(names)), key=names.__getitem__))
        lines = ",\n".join("    " + _quote(names[i]).replace("%", "%%") + ": %d" for i in order)
        found = _criteria_blocks[names] = ("{\n" + lines + "\n  }" if names else "{}", order)
    return found


def _render(s: Scoring, comments: str, response_digest: str) -> str:
    """The canonical JSON text of a consolidated scoring; TypeError, ValueError or KeyError when a field is
    not of the type the template renders exactly as json.dumps does (str, int, Fraction)."""
    if s.fails:
        fails = "[\n" + ",\n".join(f'    {{\n      "code": {_quote(code)},\n      "severity": {_quote(severity)}\n    }}'
                                    for code, severity in s.fails) + "\n  ]"
    else:
        fails = "[]"
    names, values = zip(*s.criterion_scores) if s.criterion_scores else ((), ())
    if not _ONLY_INT.issuperset(map(type, values)):
        raise TypeError("criterion scores")
    template, order = _criteria_block(names)
    criteria = template % tuple(values[i] for i in order)
    correctness = s.correctness
    if type(correctness) is not Fraction:
        raise TypeError("correctness")
    number = str(correctness.numerator) if correctness.denominator == 1 else float.__repr__(float(correctness))
    return (
        f'{{\n  "automatic_fails_triggered": {fails},\n  "case_id": {_quote(s.case_id)},\n'
        f'  "comments": {_quote(comments)},\n  "correctness": {number},\n  "criterion_scores": {criteria},\n'
        f'  "response_sha256": {_quote(response_digest)},\n  "reviewer_id": {_quote(s.reviewer_id)},\n'
        f'  "run_id": {_quote(s.run_id)},\n  "schema_version": "1.0",\n  "subject_id": {_quote(s.subject_id)},\n'
        f'  "subject_version": {_quote(s.subject_version)}\n}}\n'
    )


def consolidated_name(scoring: Scoring) -> str:
    """File name of a consolidated scoring inside its subject's folder."""
    return f"{scoring.case_id}__{scoring.run_id}__eval-{scoring.reviewer_id}.json"


def consolidated_files(items: Sequence[Consolidated], tree: Tree, spec: Spec, out_dir: str,
                       digests: dict[str, str]) -> dict[str, bytes]:
    """Relative path -> canonical JSON bytes of every consolidated scoring, under ``<out_dir>/<version>/``."""
    files = {}
    for item in items:
        s = item.scoring
        rel = f"{out_dir}/{spec.version_dir}/{s.subject_id}/{consolidated_name(s)}"
        files[rel] = consolidated_bytes(item, digests[tree.responses[s.run_key].path], digests)
    return files
