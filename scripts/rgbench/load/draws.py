"""``subjects/human_draws.json``: the runs drawn for human grades in judge-assisted mode, with exact probabilities.

``rgbench assign`` writes the file and a pull request commits it with the draw (docs/judge_assisted.md, "The
draw"). Each draw is a sample of the runs of the judged subjects, made independently of earlier draws given the
data at draw time; a run may be picked again (an existing human grade is reused). A human value of run r enters
the estimator with the inverse-probability weight w(r) = Σ c_b/π_b(r) over the draws b listing r, c_b the
draw's size relative to the subject's mean draw size (:meth:`HumanDraws.weight`; 1/π for one draw), 0 when no
draw lists it: a human grade given outside a draw counts for agreement
only, never as a label of the estimator. Whether a draw is what its seed and the judge's grades give is checked
above this layer (``rgbench assign --verify``, rgbench.stats.human_draw); here the file's form and its runs.

Canonical bytes (:func:`draws_document`): sorted keys, 2-space indent, ensure_ascii False, final newline; draws
numbered 1..k in order; a draw's runs sorted by (subject_id, case_id, run_id), each once; ``probability`` the
exact probability as ``"p/q"`` in lowest terms or ``"1"``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path

from ..problems import Problem
from .parsing import ParseError, decode_utf8, loads_json_strict
from .safe_read import read_single_file
from .spec import Spec
from .validation import keyed_problems, toolkit_schema

DRAWS_FILE = "subjects/human_draws.json"
STRATIFIED, ACTIVE = "stratified", "active"   # the designs: a stratified draw (--draw), Poisson sampling (--next)
STRATA = ("subject_id", "judge_grade")        # what every draw is stratified by (the file's stratified_by)
RunKey = tuple[str, str, str]   # (subject_id, case_id, run_id), as tree.responses keys
_REGENERATE = "(the toolkit writes this file: rgbench assign; a draw is never edited by hand)"


@dataclass(frozen=True)
class DrawnRun:
    """A run one draw picked: its key, the exact probability the draw had of picking it (0 < π <= 1) and the
    human asked to grade it (None: nobody yet)."""

    key: RunKey
    probability: Fraction
    reviewer_id: str | None


@dataclass(frozen=True)
class Draw:
    """One draw: its number (1, 2, ... in the file's order), its design (``stratified`` or ``active``), the seed
    it was made with (config.yaml's at draw time) and its runs, sorted by key; what its check re-derives it from
    (rgbench.stats.judge_assisted_draw): the subjects it was made over (() when the file leaves them out: those
    of its runs), its size (the runs drawn; an active draw's expected size) and an active draw's spreads of the
    judge's error per (subject, judge grade)."""

    number: int
    design: str
    seed: int
    runs: tuple[DrawnRun, ...]
    subjects: tuple[str, ...] = ()
    size: int = 0
    spreads: tuple[tuple[tuple[str, str], Fraction], ...] = ()


@dataclass(frozen=True)
class HumanDraws:
    """Every draw of the file, for the judge ``judge``."""

    judge: str
    draws: tuple[Draw, ...]

    @cached_property
    def _weights(self) -> dict[RunKey, Fraction]:
        sizes: dict[str, dict[int, int]] = {}   # subject -> draw -> its runs the draw lists
        for draw in self.draws:
            for run in draw.runs:
                per_draw = sizes.setdefault(run.key[0], {})
                per_draw[draw.number] = per_draw.get(draw.number, 0) + 1
        weights: dict[RunKey, Fraction] = {}
        for draw in self.draws:
            for run in draw.runs:
                per_draw = sizes[run.key[0]]
                share = Fraction(len(per_draw) * per_draw[draw.number], sum(per_draw.values()))
                weights[run.key] = weights.get(run.key, Fraction(0)) + share / run.probability
        return weights

    def weight(self, key: RunKey) -> Fraction:
        """w(r) = Σ_b c_b / π_b(r) over the draws b listing ``key`` (each lists a run at most once), c_b the draw's
        size relative to the mean size of the draws of the run's subject: c_b = B · n_b / Σ n, n_b the subject's
        runs draw b lists and B the draws listing any. One draw, or draws of one size: Σ 1/π. Fraction(0) when no
        draw lists the run.

        Why c_b: Σ over a draw's runs of y / π_b estimates the subject's total on its own, whatever the draw's size,
        so plain Σ 1/π would average the draws' estimates with equal weights: a pilot of 10 grades would count as
        much as a draw of 100 (variance (1/10 + 1/100) / 4 of one grade's, against 1/110). Weighting each draw by
        its size pools them as one sample (a draw's variance is about 1/n_b of one grade's): c_b / π_b is the
        weight of a grade in the size-weighted mean of the draws' estimates, unbiased for any fixed c. An active
        (Poisson) draw's n_b is the count it drew, not its expected count, which differs by O(1/√n_b)."""
        return self._weights.get(key, Fraction(0))

    def drawn(self) -> frozenset[RunKey]:
        """Every run some draw lists."""
        return frozenset(self._weights)


def _probability(text: str) -> Fraction:
    numerator, _, denominator = text.partition("/")
    return Fraction(int(numerator), int(denominator or 1)) if int(denominator or 1) else Fraction(-1)


def _parse(document: dict, spec: Spec, runs: Collection[RunKey]) -> tuple[HumanDraws, list[Problem]]:
    """The draws of a document that meets the schema, and what is wrong with them beyond it."""
    problems: list[Problem] = []
    if document["judge"] != spec.judge:
        problems.append(Problem(DRAWS_FILE, f"$.judge: {document['judge']!r} is not config.yaml's judge "
                                            f"{spec.judge!r} (these draws were made over another judge's grades: "
                                            "make new draws with rgbench assign, or set judge back)"))
    draws = []
    for i, raw in enumerate(document["draws"]):
        where = f"$.draws[{i}]"
        if raw["draw"] != i + 1:
            problems.append(Problem(DRAWS_FILE, f"{where}.draw: {raw['draw']} where {i + 1} was expected (draws are "
                                                f"numbered 1, 2, ... in order) {_REGENERATE}"))
        picked = []
        for j, item in enumerate(raw["runs"]):
            key = (item["subject_id"], item["case_id"], item["run_id"])
            pi = _probability(item["probability"])
            if not 0 < pi <= 1:
                problems.append(Problem(DRAWS_FILE, f"{where}.runs[{j}].probability: {item['probability']!r} is not "
                                                    f"a probability above 0 and at most 1 {_REGENERATE}"))
            if key not in runs:
                problems.append(Problem(DRAWS_FILE, f"{where}.runs[{j}]: no run {item['run_id']!r} of "
                                                    f"{item['subject_id']!r} on case {item['case_id']!r} in responses/ "
                                                    f"(a drawn run must exist: restore it) {_REGENERATE}"))
            picked.append(DrawnRun(key, pi, item.get("reviewer_id")))
        keys = [run.key for run in picked]
        if keys != sorted(set(keys)):
            problems.append(Problem(DRAWS_FILE, f"{where}.runs: not sorted by (subject_id, case_id, run_id) with each "
                                                f"run once {_REGENERATE}"))
        spreads = tuple(((x["subject_id"], x["judge_grade"]), _probability(x["spread"])) for x in raw.get("spreads", ()))
        draws.append(Draw(raw["draw"], raw["design"], raw["seed"], tuple(picked), tuple(raw.get("subjects", ())),
                          raw.get("size", 0), spreads))
    return HumanDraws(document["judge"], tuple(draws)), problems


def read_draws(root: Path, spec: Spec, runs: Collection[RunKey]) -> tuple[HumanDraws | None, list[Problem]]:
    """The draws of ``subjects/human_draws.json`` under ``root``. (None, []) when the file is absent; (None,
    problems) for bad JSON, a schema error, a judge other than config.yaml's, a run not in ``runs``, a
    probability outside (0, 1], draws not numbered 1..k or runs not sorted and unique (every problem at once)."""
    if not os.path.lexists(Path(root) / DRAWS_FILE):
        return None, []
    data, problems = read_single_file(root, DRAWS_FILE)
    if data is None:
        return None, problems
    try:
        document = loads_json_strict(decode_utf8(data))
    except ParseError as exc:
        return None, [Problem(DRAWS_FILE, f"{exc} {_REGENERATE}")]
    if not isinstance(document, dict):
        return None, [Problem(DRAWS_FILE, f"expected a JSON object {{draws, judge}} {_REGENERATE}")]
    found = keyed_problems(toolkit_schema("human_draws"), document)
    if found:
        return None, [Problem(DRAWS_FILE, f"{where}: {message}") for where, message in found]
    draws, problems = _parse(document, spec, runs)
    return (None, problems) if problems else (draws, [])


def draws_document(draws: HumanDraws) -> bytes:
    """The file's canonical bytes (see the module doc)."""
    document = {"draws": [{"design": d.design, "draw": d.number, "seed": d.seed, "stratified_by": list(STRATA),
                           "runs": [{"subject_id": r.key[0], "case_id": r.key[1], "run_id": r.key[2],
                                     "probability": str(r.probability),
                                     **({"reviewer_id": r.reviewer_id} if r.reviewer_id else {})}
                                    for r in sorted(d.runs, key=lambda r: r.key)],
                           **({"subjects": list(d.subjects)} if d.subjects else {}),
                           **({"size": d.size} if d.size else {}),
                           **({"spreads": [{"subject_id": s, "judge_grade": g, "spread": str(e)}
                                           for (s, g), e in d.spreads]} if d.spreads else {})}
                          for d in sorted(draws.draws, key=lambda d: d.number)],
                "judge": draws.judge}
    return (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
