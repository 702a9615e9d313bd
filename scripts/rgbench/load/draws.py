"""``subjects/human_draws.json``: the runs drawn for human grades in judge-assisted mode, with exact probabilities
(``rgbench assign`` writes it; docs/judge_assisted.md, "The record"). Here the file's form; each draw is a sample
of its population (:class:`Covered`) and a human value enters the estimator with :meth:`HumanDraws.weight`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Collection
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from ..problems import Problem
from .parsing import ParseError, decode_utf8, loads_json_strict
from .safe_read import read_single_file
from .spec import Spec
from .validation import keyed_problems, toolkit_schema

DRAWS_FILE = "subjects/human_draws.json"
# The file grows with the runs and the draws (each draw records every run it holds, about 30 bytes a run, and each
# run it picks, about 115): 58 subjects x 300 runs take 1.2 MB in one draw, so it is read up to 64 MiB, not 1 MiB.
DRAWS_MAX_BYTES = 64 << 20
STRATIFIED, ACTIVE = "stratified", "active"   # the designs: --draw (proportional), --next (π ∝ the spreads)
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


class Covered(NamedTuple):
    """One subject's part of a draw's population: its runs at draw time, (case id, run id) sorted, and the digest
    of their judge grades (rgbench.stats.judge_assisted_draw.population)."""

    subject_id: str
    runs: tuple[tuple[str, str], ...]
    judge_digest: str


@dataclass(frozen=True)
class Draw:
    """One draw: its number (1, 2, ... in the file's order), its design (``stratified`` or ``active``), the seed it
    was made with (config.yaml's) and its runs, sorted by key; what its check re-derives it from: the subjects it
    was made over (() when the file leaves them out: those of its runs), its size (the runs drawn), an active
    draw's spreads per (subject, judge grade) and its population (() only before ``rgbench assign`` records it)."""

    number: int
    design: str
    seed: int
    runs: tuple[DrawnRun, ...]
    subjects: tuple[str, ...] = ()
    size: int = 0
    spreads: tuple[tuple[tuple[str, str], Fraction], ...] = ()
    population: tuple[Covered, ...] = ()


@dataclass(frozen=True)
class HumanDraws:
    """Every draw of the file, for the judge ``judge``."""

    judge: str
    draws: tuple[Draw, ...]

    def _holding(self, subject: str) -> list[tuple[dict[RunKey, Fraction], set[RunKey]]]:
        """Per draw holding ``subject``'s runs, in order: (1/π of each run of it the draw lists, the runs it holds)."""
        out = []
        for draw in self.draws:
            listed = {r.key: 1 / r.probability for r in draw.runs if r.key[0] == subject}
            held = {(subject, *run) for c in draw.population if c.subject_id == subject for run in c.runs} | set(listed)
            out += [(listed, held)] if held else []
        return out

    @cached_property
    def _weights(self) -> dict[RunKey, Fraction]:
        weights: dict[RunKey, Fraction] = {}
        for subject in sorted({key[0] for key in self.covered()}):
            earlier: set[RunKey] = set()   # the subject's runs the draws before this one listed
            parts = []   # per draw over the subject: (precision, the runs it covers, its term per run)
            for listed, held in self._holding(subject):
                terms = {**dict.fromkeys(earlier - held, Fraction(1)), **listed}   # a known value, or y/π
                parts.append((draw_precision(len(listed), len(held)), held | earlier, terms))
                earlier |= set(listed)
            for key in earlier:
                covering = [(v, terms) for v, keys, terms in parts if key in keys]
                # a draw of every run of its population (v None) knows the total exactly: it takes the whole share
                shares = ([(Fraction(1), terms) for v, terms in covering if v is None]
                          or [(v, terms) for v, terms in covering if v is not None])
                weights[key] = (sum((v * terms.get(key, Fraction(0)) for v, terms in shares), Fraction(0))
                                / sum((v for v, _ in shares), Fraction(0)))
        return weights

    def weight(self, key: RunKey) -> Fraction:
        """w(r) = Σ_b c_b(r) t_b(r) over the draws b covering r (its subject's runs at draw time: the population
        and the runs earlier draws listed), t_b(r) = 1/π_b(r) when b lists r, 1 when an earlier draw listed r outside
        b's population (its value known), else 0; c_b(r) = v_b / Σ v_b' over those draws, v_b =
        :func:`draw_precision` of the subject's runs b lists and holds (a census: the whole share). One draw: 1/π;
        Fraction(0) when no draw lists the run. E[w(r)] = 1: why, docs/judge_assisted.md, "The record"."""
        return self._weights.get(key, Fraction(0))

    def precision(self, subject: str) -> float:
        """H = Σ_b v_b over the draws holding ``subject``'s runs (:func:`draw_precision` of the runs each lists and
        holds; inf after a census, 0 with none): what a further draw's share is weighed against (`rgbench plan`)."""
        v = [draw_precision(len(listed), len(held)) for listed, held in self._holding(subject)]
        return math.inf if None in v else float(sum((x for x in v if x is not None), Fraction(0)))

    def covered(self) -> frozenset[RunKey]:
        """Every run some draw's population holds: a run outside it (added after every draw) has probability 0."""
        return frozenset({(c.subject_id, *run) for d in self.draws for c in d.population for run in c.runs}
                         | {r.key for d in self.draws for r in d.runs})

    def drawn(self) -> frozenset[RunKey]:
        """Every run some draw lists."""
        return frozenset(self._weights)


def draw_precision(listed: int, held: int) -> Fraction | None:
    """v = n / (N (N − n)) of a draw listing n of the N runs it holds of a subject: 1 / the variance of a uniform
    draw's estimate of their total, Σ y/π, per unit variance of y; None for a census (n = N: no variance). The
    draws' shares c_b ∝ v_b: inverse-variance pooling, exact for uniform draws."""
    return None if listed == held else Fraction(listed, held * (held - listed))


def _probability(text: str) -> Fraction:
    numerator, _, denominator = text.partition("/")
    return Fraction(int(numerator), int(denominator or 1)) if int(denominator or 1) else Fraction(-1)


def _parse(document: dict, spec: Spec, runs: Collection[RunKey]) -> tuple[HumanDraws, list[Problem]]:
    """The draws of a document that meets the schema, and what is wrong with them beyond it."""
    wrong = []
    if document["judge"] != spec.judge:
        wrong.append(f"$.judge: {document['judge']!r} is not config.yaml's judge {spec.judge!r} (these draws were "
                     "made over another judge's grades: make new draws with rgbench assign, or set judge back)")
    draws = []
    for i, raw in enumerate(document["draws"]):
        where = f"$.draws[{i}]"
        if raw["draw"] != i + 1:
            wrong.append(f"{where}.draw: {raw['draw']} where {i + 1} was expected (draws are numbered 1, 2, ... in "
                         f"order) {_REGENERATE}")
        picked = []
        for j, item in enumerate(raw["runs"]):
            key = (item["subject_id"], item["case_id"], item["run_id"])
            pi = _probability(item["probability"])
            if not 0 < pi <= 1:
                wrong.append(f"{where}.runs[{j}].probability: {item['probability']!r} is not a probability above 0 "
                             f"and at most 1 {_REGENERATE}")
            if key not in runs:
                wrong.append(f"{where}.runs[{j}]: no run {item['run_id']!r} of {item['subject_id']!r} on case "
                             f"{item['case_id']!r} in responses/ (a drawn run must exist: restore it) {_REGENERATE}")
            picked.append(DrawnRun(key, pi, item.get("reviewer_id")))
        keys = [run.key for run in picked]
        if keys != sorted(set(keys)):
            wrong.append(f"{where}.runs: not sorted by (subject_id, case_id, run_id) with each run once {_REGENERATE}")
        spreads = tuple(((x["subject_id"], x["judge_grade"]), _probability(x["spread"])) for x in raw.get("spreads", ()))
        population = tuple(Covered(s, tuple(sorted(run.partition("/")[::2] for run in c["runs"])), c["judge_digest"])
                           for s, c in sorted(raw.get("population", {}).items()))
        draw = Draw(raw["draw"], raw["design"], raw["seed"], tuple(picked), tuple(raw.get("subjects", ())),
                    raw.get("size", 0), spreads, population)
        wrong += [f"{where}: {why}" for why in _form(draw)]
        draws.append(draw)
    return HumanDraws(document["judge"], tuple(draws)), [Problem(DRAWS_FILE, message) for message in wrong]


def _form(draw: Draw) -> list[str]:
    """What is wrong with a draw against its own population: none recorded, a listed run outside it, or (a
    stratified draw: π = n_h / N_h, n_h >= 1, in each stratum h) Σ 1/π over a subject's runs not its population."""
    if not draw.population:   # the schema refuses an empty one: () is a file without it
        return ["records no population (the runs it was made over and a digest of their judge grades, which rgbench "
                "assign writes since 2026-12-04), so nothing tells whether today's data are those it was drawn from "
                "(while they are, remove the file and make the draws again with rgbench assign: the same sizes and "
                "seed give the same stratified draws)"]
    covered = {c.subject_id: c.runs for c in draw.population}
    outside = [r.key for r in draw.runs if r.key[1:] not in covered.get(r.key[0], ())]
    if outside:
        return [f"lists {'/'.join(outside[0])}, which is not in its population {_REGENERATE}"]
    if draw.design != STRATIFIED or not all(0 < r.probability <= 1 for r in draw.runs):   # else refused: π
        return []
    inverse = {s: sum((1 / r.probability for r in draw.runs if r.key[0] == s), Fraction(0)) for s in covered}
    return [f"its probabilities of {s}'s runs add up to Σ 1/π = {inverse[s]}, where a stratified draw over its "
            f"{len(runs)} runs gives {len(runs)} {_REGENERATE}" for s, runs in covered.items() if inverse[s] != len(runs)][:1]


def draw_list(data: bytes | None) -> tuple[object, list] | None:
    """(judge, draws) of the file's bytes as parsed, unchecked (a pull request's base or head); None when absent,
    not a JSON object or without a list of draws (:func:`read_draws` names why)."""
    try:
        document = loads_json_strict(decode_utf8(data)) if data is not None else None
    except ParseError:
        return None
    if not isinstance(document, dict) or not isinstance(document.get("draws"), list):
        return None
    return document.get("judge"), document["draws"]


def read_draws(root: Path, spec: Spec, runs: Collection[RunKey]
               ) -> tuple[HumanDraws | None, list[Problem], str | None]:
    """The draws of ``subjects/human_draws.json`` under ``root``, the problems and the sha256 of the bytes read (the
    input digest; None when none were read). (None, [], None) when the file is absent; (None, problems, ...) for bad
    JSON, a schema error, a judge other than config.yaml's, a run not in ``runs``, a probability outside (0, 1],
    draws not numbered 1..k or runs not sorted and unique (every problem at once)."""
    if not os.path.lexists(Path(root) / DRAWS_FILE):
        return None, [], None
    data, problems = read_single_file(root, DRAWS_FILE, DRAWS_MAX_BYTES)
    if data is None:
        return None, problems, None
    digest = hashlib.sha256(data).hexdigest()
    try:
        document = loads_json_strict(decode_utf8(data))
    except ParseError as exc:
        return None, [Problem(DRAWS_FILE, f"{exc} {_REGENERATE}")], digest
    if not isinstance(document, dict):
        return None, [Problem(DRAWS_FILE, f"expected a JSON object {{draws, judge}} {_REGENERATE}")], digest
    found = keyed_problems(toolkit_schema("human_draws"), document)
    if found:
        return None, [Problem(DRAWS_FILE, f"{where}: {message}") for where, message in found], digest
    draws, problems = _parse(document, spec, runs)
    return (None, problems, digest) if problems else (draws, [], digest)


def draws_document(draws: HumanDraws) -> bytes:
    """The file's canonical bytes: sorted keys, 2-space indent, ensure_ascii False, final newline; draws numbered
    1..k in order; a draw's runs sorted by (subject_id, case_id, run_id), each once; ``probability`` the exact
    probability as ``"p/q"`` in lowest terms or ``"1"``; ``population`` per subject id its judge digest and its runs
    as sorted ``"case_id/run_id"``."""
    document = {"draws": [{"design": d.design, "draw": d.number, "seed": d.seed, "stratified_by": list(STRATA),
                           "runs": [{"subject_id": r.key[0], "case_id": r.key[1], "run_id": r.key[2],
                                     "probability": str(r.probability),
                                     **({"reviewer_id": r.reviewer_id} if r.reviewer_id else {})}
                                    for r in sorted(d.runs, key=lambda r: r.key)],
                           **({"subjects": list(d.subjects)} if d.subjects else {}),
                           **({"size": d.size} if d.size else {}),
                           **({"spreads": [{"subject_id": s, "judge_grade": g, "spread": str(e)}
                                           for (s, g), e in d.spreads]} if d.spreads else {}),
                           **({"population": {c.subject_id: {"judge_digest": c.judge_digest,
                                                             "runs": [f"{case}/{run}" for case, run in c.runs]}
                                              for c in d.population}} if d.population else {})}
                          for d in sorted(draws.draws, key=lambda d: d.number)],
                "judge": draws.judge}
    return (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
