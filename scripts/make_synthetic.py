#!/usr/bin/env python3
"""Write a valid synthetic benchmark tree of any size, reproducibly from a seed, for benchmarks and tests.

The tree copies the system/ folder of --root (default: this repository), registers S subjects, writes C
golds spread over the declared families, R responses per (subject, case) with
answer texts of realistic size (about 1-2 KB), and a scoring for most of them:
about 3% of responses stay unscored, about 2% of scorings flag a recoverable
fail and a few subjects carry a critical fail. Same arguments, same bytes.

--graders N (with --policy median|mean) gives every scored run N-1 further grades in scoring_multi/ by
registered human reviewers (subjects/reviewers.yaml) and sets config.yaml's board_grades: consolidated and
consolidation_policy; --judge adds a registered llm-judge reviewer grading every scored run there.
--judge-assisted makes it a judge-assisted benchmark (issue 28; examples/judgeassist): see judge_assisted().

Everything benchmark-specific comes from system/: case ids are
benchmark.yaml's example_case_id with the family group replaced by each family
code and its last digits by a counter (same width); scores span
criterion_min..criterion_max on the evaluation schema's step (decimals too), in the
score's direction, ceilings and floors the total's range, correctness the
evaluation schema's values, schema_version the schemas' const.

--scale penalty rewrites the copied system/ first to a decimal, lower-is-better scale (four
MQM-style error categories, each 0-25 penalty points in tenths, summed to a 0-100 "MQM-style
penalty"); --scale likert to six 1-5 ratings whose mean is the total.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import shutil
import sys
from collections.abc import Callable, Collection
from fractions import Fraction
from functools import partial
from pathlib import Path

import yaml

from rgbench.cli import REPO_ROOT
from rgbench.load.config import schema_difficulty_range
from rgbench.load.scale import json_score
from rgbench.load.spec import Spec, load_spec
from rgbench.problems import refuse, report

WORDS = (
    "feed permeate concentrate pressure differential flux normalized salt passage conductivity membrane element "
    "vessel stage train antiscalant bisulfite chlorine ORP pH temperature recovery fouling scaling biofilm silica "
    "carbonate sulfate iron cartridge filter SDI turbidity cleaning alkaline acid caustic citric EDTA trend data "
    "operator shift alarm transmitter calibration probe flowmeter pump valve setpoint increase decrease stable "
    "because therefore indicates suggests confirms rules out first then after before inspect verify sample"
).split()
CRITICAL_SUBJECT_EVERY = 10  # subjects 3, 13, 23, ... carry a critical fail (about 1% of their runs)


def _dump(document: dict, sort_keys: bool = True) -> bytes:
    return (json.dumps(document, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n").encode("utf-8")


def _rewrite_json(path: Path, change: Callable[[dict], object], *, sort_keys: bool = True) -> None:
    """Apply ``change`` to the JSON document at ``path`` and write it back (sorted keys unless ``sort_keys`` is
    False: the schemas keep their order)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_bytes(_dump(document, sort_keys))


def _spec(root: Path) -> Spec:
    """The spec of the tree at ``root``; its problems reported and the program stopped when it has none."""
    spec, problems = load_spec(root)
    if spec is None:
        raise SystemExit(report(problems))
    return spec


def _text(rng: random.Random) -> str:
    count = rng.randint(180, 320)
    words = rng.choices(WORDS, k=count)
    sentences = [" ".join(words[i:i + 14]).capitalize() + "." for i in range(0, count, 14)]
    return " ".join(sentences)


def case_id_maker(spec: Spec) -> tuple[Callable[[str, int], str], int] | str:
    """(family, number) -> case id, and the largest number, built from example_case_id; or why not."""
    match = spec.case_id_re.fullmatch(spec.example_case_id) if spec.example_case_id else None
    if match is None:
        return "system/benchmark.yaml: $.example_case_id: needed to build case ids (add one of the benchmark's ids)"
    start, end = match.span("family")
    head, tail = spec.example_case_id[:start], spec.example_case_id[end:]
    digits = list(re.finditer(r"[0-9]+", tail))
    if not digits:
        return "system/benchmark.yaml: $.example_case_id: needs digits after the family code to number cases"
    last = digits[-1]
    middle, width, suffix = tail[:last.start()], last.end() - last.start(), tail[last.end():]
    return (lambda family, number: f"{head}{family}{middle}{number:0{width}d}{suffix}"), 10 ** width - 1


# --- --scale: rewrite the copied system/ to another score scale (DESIGN D3) --------------------------------

# name -> (criteria, criterion_min, criterion_max, JSON schema of one criterion, benchmark.yaml keys); the
# schema of rubric_floor/rubric_ceiling follows (a decimal number on the total's range).
SCALES = {
    "penalty": (("accuracy", "fluency", "terminology", "style"), 0, 25,
                {"type": "number", "minimum": 0, "maximum": 25, "multipleOf": 0.1},
                {"score_direction": "lower_is_better", "score_total": "sum", "score_name": "MQM-style penalty",
                 "pass_threshold": 25, "conditional_threshold": 50}),
    "likert": (("relevance", "coherence", "empathy", "surprise", "engagement", "complexity"), 1, 5,
               {"type": "integer", "minimum": 1, "maximum": 5},
               {"score_direction": "higher_is_better", "score_total": "mean", "score_name": "mean rating",
                "pass_threshold": 3.5, "conditional_threshold": 2.5}),
}


def rewrite_scale(out: Path, name: str) -> None:
    """Rewrite ``out``/system/ (a copy) to the scale ``name`` of SCALES: benchmark.yaml's criteria, range and scale
    keys, the evaluation schema's criteria, the gold schema's floor and ceiling."""
    criteria, low, high, node, keys = SCALES[name]
    bench_path = out / "system" / "benchmark.yaml"
    bench = yaml.safe_load(bench_path.read_text(encoding="utf-8"))
    bench.update({"criteria": list(criteria), "criterion_min": low, "criterion_max": high, **keys})
    bench_path.write_text(yaml.safe_dump(bench, sort_keys=False, allow_unicode=True), encoding="utf-8")
    version = f"v{bench['benchmark_version']}"
    schemas = out / "system" / "schemas" / version

    def scores(document: dict) -> None:
        block = document["properties"]["criterion_scores"]
        block["description"] = f"{len(criteria)} criteria, each {low}-{high} ({keys['score_direction']})."
        block["required"] = list(criteria)
        block["properties"] = {c: {"description": c.capitalize() + ".", **node} for c in criteria}

    total_low, total_high = (len(criteria) * low, len(criteria) * high) if keys["score_total"] == "sum" else (low, high)

    def bounds(document: dict) -> None:
        for key in ("rubric_floor", "rubric_ceiling"):
            document["properties"][key].update({"type": "number", "minimum": total_low, "maximum": total_high})

    _rewrite_json(schemas / "evaluation.schema.json", scores, sort_keys=False)
    _rewrite_json(schemas / "gold.schema.json", bounds, sort_keys=False)


def _grid(spec: Spec) -> tuple[Fraction, int]:
    """(step, number of steps) of a criterion's range: the schema's step, else a hundredth of the range."""
    span = spec.criterion_max - spec.criterion_min
    step = spec.criterion_step if spec.criterion_step is not None else span / 100
    return step, int(span / step)


def build(out: Path, subjects: int, cases: int, runs: int, seed: int, root: Path = REPO_ROOT,
          scale: str | None = None) -> dict[str, int]:
    spec = _spec(root)
    rng = random.Random(seed)
    shutil.copytree(root / "system", out / "system")
    if scale is not None:
        rewrite_scale(out, scale)
        spec = _spec(out)
    maker = case_id_maker(spec)
    if isinstance(maker, str):
        raise SystemExit(maker)
    make_id, per_family = maker
    low, high = spec.criterion_min, spec.criterion_max
    difficulty = schema_difficulty_range(spec.validators["gold"].schema) or range(1, 6)
    step, span = _grid(spec)   # a criterion's score: low + k * step (k = 0..span), k counting quality
    higher = spec.higher_is_better
    lowest, highest = spec.scale.low, spec.scale.high
    # The floors and ceilings move by notches on the total's range (1 point on the seed's 0-12), on a decimal grid
    # a JSON number holds (a mean of 6 integer ratings moves by sixths: its notches by tenths).
    total_step = step if spec.score_total == "sum" else step / len(spec.criteria)
    if total_step.denominator not in (1, 2, 4, 5, 10, 20, 25, 50, 100):
        total_step = Fraction(1, 10)
    notch = total_step * max(1, round((highest - lowest) / 12 / total_step))
    notches = int((highest - lowest) / notch)
    best, worst, toward = (highest, lowest, 1) if higher else (lowest, highest, -1)
    # the evaluation schema's correctness values; quarters for a schema without an enum (any number in [0, 1])
    values = [json_score(v) for v in spec.correctness_values or [Fraction(k, 4) for k in range(5)]]
    good_correctness = (values[0], *values[1:-1], values[-1], values[-1])
    poor_correctness = (values[0], values[0], *values[1:-1], values[-1])
    version_dir = spec.version_dir
    families = sorted(spec.families)
    if cases > per_family * len(families):
        raise SystemExit(f"--cases: at most {per_family} cases per family ({per_family * len(families)} in all)")
    critical = sorted(code for code, sev in spec.catalog.items() if sev == "critical")
    recoverable = sorted(code for code, sev in spec.catalog.items() if sev == "recoverable")

    case_ids, golds = [], {}
    gold_digests: dict[str, str] = {}
    for index in range(cases):
        family = families[index % len(families)]
        case_id = make_id(family, index // len(families) + 1)
        if not spec.case_id_re.fullmatch(case_id):
            raise SystemExit(f"system/benchmark.yaml: $.example_case_id: built {case_id!r}, which case_id_pattern "
                             "refuses (give an example whose family and last digits can vary)")
        case_type = rng.choice(("Closed", "Closed", "Open", "Ambiguous"))
        # the ceiling is the best total the case credits, the floor the worst it tolerates (in the score's direction)
        ceiling = best - toward * notch * rng.choice((2, 1)) if case_type == "Ambiguous" else best
        floor = worst + toward * notch * rng.randint(0, notches // 2)
        meta = {"schema_version": spec.schema_version, "case_id": case_id, "family": family, "case_type": case_type,
                "rubric_floor": json_score(floor), "rubric_ceiling": json_score(ceiling),
                "difficulty": rng.randint(difficulty[0], difficulty[-1])}
        golds[case_id] = meta
        case_ids.append(case_id)
        path = out / "golds" / version_dir / f"{case_id}_gold.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = f"# {case_id}\n\n## Scenario\n\n{_text(rng)}\n\n```json\n{json.dumps(meta, indent=2)}\n```\n"
        path.write_text(body, encoding="utf-8")
        gold_digests[case_id] = hashlib.sha256(body.encode("utf-8")).hexdigest()

    registry = ["subjects:"]
    counts = {"responses": 0, "scorings": 0}
    for s in range(subjects):
        sid, version = f"synth-{s:03d}", f"1.{s % 7}"
        registry += [f'  - subject_id: "{sid}"', f'    subject_version: "{version}"', '    kind: "llm"']
        skill = rng.random()
        has_critical = s % CRITICAL_SUBJECT_EVERY == 3
        response_dir = out / "responses" / version_dir / sid
        scoring_dir = out / "scoring" / version_dir / sid
        response_dir.mkdir(parents=True)
        scoring_dir.mkdir(parents=True)
        for case_id in case_ids:
            for r in range(1, runs + 1):
                run_id = f"r{r}"
                confidence = max(0, min(100, int(rng.gauss(40 + 50 * skill, 20))))
                response = {"schema_version": spec.schema_version, "subject_id": sid, "subject_version": version,
                            "case_id": case_id, "run_id": run_id, "confidence": confidence,
                            "response_text": _text(rng)}
                data = _dump(response)
                (response_dir / f"{case_id}__{run_id}.json").write_bytes(data)
                counts["responses"] += 1
                if rng.random() < 0.03:
                    continue  # unscored
                quality = {name: min(span, max(0, int(rng.random() * (0.7 * span) + skill * (0.65 * span))))
                           for name in spec.criteria}   # steps of quality: a score, or a penalty counted down
                scores = {name: json_score(low + k * step if higher else high - k * step)
                          for name, k in quality.items()}
                fails = []
                if has_critical and rng.random() < 0.01:
                    fails.append({"code": rng.choice(critical), "severity": "critical"})
                elif rng.random() < 0.02:
                    fails.append({"code": rng.choice(recoverable), "severity": "recoverable"})
                reviewer = f"rev-{rng.randint(1, 6)}"
                scoring = {"schema_version": spec.schema_version, "subject_id": sid, "subject_version": version,
                           "case_id": case_id, "run_id": run_id, "reviewer_id": reviewer,
                           "criterion_scores": scores, "automatic_fails_triggered": fails,
                           "correctness": rng.choice(good_correctness if skill > 0.5 else poor_correctness),
                           "response_sha256": hashlib.sha256(data).hexdigest(),
                           "gold_sha256": gold_digests[case_id],
                           "comments": "Synthetic grade."}
                (scoring_dir / f"{case_id}__{run_id}__eval-{reviewer}.json").write_bytes(_dump(scoring))
                counts["scorings"] += 1
    (out / "subjects").mkdir()
    (out / "subjects" / "registry.yaml").write_text("\n".join(registry) + "\n", encoding="utf-8")
    return counts


def declare_kinds(out: Path, kinds: list[str]) -> None:
    """Subject kinds (``--kinds llm,system``): the registry schema of the tree's system/ copy declares
    ``kinds`` (its ``kind`` enum: the kinds it declared already, then the new ones), and subject i is of
    kinds[i % len(kinds)]."""
    spec = _spec(out)

    def declare(schema: dict) -> None:
        kind = schema["properties"]["subjects"]["items"]["properties"].setdefault("kind", {})
        kind["enum"] = [*kind.get("enum", []), *(k for k in kinds if k not in kind.get("enum", []))]
    _rewrite_json(out / "system" / "schemas" / spec.version_dir / "registry.schema.json", declare, sort_keys=False)
    registry = out / "subjects" / "registry.yaml"
    lines = registry.read_text(encoding="utf-8").splitlines()
    index = 0
    for number, line in enumerate(lines):
        if line == '    kind: "llm"':
            lines[number] = f'    kind: "{kinds[index % len(kinds)]}"'
            index += 1
    registry.write_text("\n".join(lines) + "\n", encoding="utf-8")


BLANK_EVERY = 20   # --blank-answers: every 20th response (in path order) gets an empty or whitespace answer
BLANK_TEXTS = ("", " \n\t ")


def allow_blank_answers(out: Path, version_dir: str) -> None:
    """Drop ``minLength`` and ``pattern`` from response_text in the tree's response schema (a system/ copied from an
    older tree that still refuses a blank answer); the file is left as it is when it has neither."""
    path = out / "system" / "schemas" / version_dir / "response.schema.json"
    text = json.loads(path.read_text(encoding="utf-8")).get("properties", {}).get("response_text", {})
    if "minLength" in text or "pattern" in text:
        _rewrite_json(path, lambda schema: [schema["properties"]["response_text"].pop(key, None)
                                            for key in ("minLength", "pattern")], sort_keys=False)


def blank_answers(out: Path, version_dir: str) -> list[str]:
    """--blank-answers: every BLANK_EVERY-th response (sorted paths, starting with the first) gets an empty or a
    whitespace-only response_text (alternately), and the scorings of those runs the new response_sha256. The
    relative paths of the blanked responses."""
    allow_blank_answers(out, version_dir)
    blanked = []
    responses = sorted((out / "responses" / version_dir).rglob("*.json"))
    for number, path in enumerate(responses[::BLANK_EVERY]):
        document = json.loads(path.read_text(encoding="utf-8"))
        document["response_text"] = BLANK_TEXTS[number % len(BLANK_TEXTS)]
        data = _dump(document)
        path.write_bytes(data)
        blanked.append(path.relative_to(out).as_posix())
        pin = partial(dict.update, response_sha256=hashlib.sha256(data).hexdigest())
        for grade in sorted((out / "scoring" / version_dir / path.parent.name).glob(f"{path.stem}__eval-*.json")):
            _rewrite_json(grade, pin)
    return blanked


# --- several graders per answer (--graders N --policy P) and an LLM judge (--judge) ------------------------

JUDGE_ID = "judge-synth-1"


def _set_config_key(path: Path, key: str, value: str) -> None:
    """Set ``key: value`` in the YAML file ``path``: its line replaced when the key is there, else appended."""
    lines = path.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not re.match(rf"{re.escape(key)}\s*:", line)]
    path.write_text("\n".join(kept + [f"{key}: {value}"]) + "\n", encoding="utf-8")


def _other_grade(document: dict, reviewer: str, spec: Spec, rng: random.Random, bias: int = 0,
                 moves: tuple[int, ...] = (-1, 0, 0, 1)) -> dict:
    """Another reviewer's grade of the run ``document`` grades: each criterion moved by one of ``moves`` steps (plus
    ``bias`` steps; a step is 1 on an integer scale, a tenth of the range otherwise) within the range, the
    correctness moved to a neighbouring value at times, the same fails."""
    low, high = Fraction(spec.criterion_min), Fraction(spec.criterion_max)
    step = spec.criterion_step or (high - low) / 10   # the schema's step (multipleOf), a tenth of the range without one
    scores = {}
    for name, score in document["criterion_scores"].items():
        moved = Fraction(str(score)) + step * (rng.choice(moves) + bias)   # str: the decimal written
        scores[name] = json_score(min(high, max(low, moved)))
    grade = {**document, "reviewer_id": reviewer, "criterion_scores": scores, "comments": "Synthetic further grade."}
    values = list(spec.correctness_values)
    if "correctness" in document and values:   # a benchmark without correctness (or without an enum) keeps the grade's
        at = values.index(Fraction(document["correctness"])) if Fraction(document["correctness"]) in values else 0
        grade["correctness"] = json_score(values[min(len(values) - 1, max(0, at + rng.choice((-1, 0, 0, 0, 1))))])
    return grade


def _write_reviewers(out: Path, humans: list[str], judge: bool) -> None:
    lines = ["reviewers:"]
    for rid in humans:
        lines += [f"  - id: {rid}", f'    name: "Synthetic reviewer {rid}"', "    kind: human"]
    if judge:
        lines += [f"  - id: {JUDGE_ID}", '    name: "Synthetic LLM judge"', "    kind: llm-judge"]
    (out / "subjects" / "reviewers.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def add_graders(out: Path, graders: int, policy: str | None, judge: bool, seed: int) -> dict[str, int]:
    """Rewrite the tree at ``out`` for several graders: every scored run gets ``graders - 1`` further grades in
    scoring_multi/ by other human reviewers (and, with ``judge``, one by the llm-judge ``JUDGE_ID``, lenient by one
    step); subjects/reviewers.yaml registers them all; with ``graders`` > 1, config.yaml sets
    ``board_grades: consolidated`` and ``consolidation_policy: policy``. A judge-assisted tree keeps its judge, who
    grades every run already (``judge`` adds nothing there). Counts of what was written."""
    spec = _spec(out)
    judge = judge and not spec.judge_assisted
    rng = random.Random(f"graders:{seed}")
    pool = [f"rev-{i}" for i in range(1, max(6, graders) + 1)]
    counts = {"further_grades": 0, "judge_grades": 0}
    for path in sorted((out / "scoring" / spec.version_dir).glob("*/*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        others = rng.sample([r for r in pool if r != document["reviewer_id"]], graders - 1)
        grades = [_other_grade(document, r, spec, rng) for r in others]
        if judge:
            grades.append(_other_grade(document, JUDGE_ID, spec, rng, bias=1))
        folder = out / "scoring_multi" / spec.version_dir / path.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        for grade in grades:
            name = f"{grade['case_id']}__{grade['run_id']}__eval-{grade['reviewer_id']}.json"
            (folder / name).write_bytes(_dump(grade))
            counts["judge_grades" if grade["reviewer_id"] == JUDGE_ID else "further_grades"] += 1
    _write_reviewers(out, pool, judge or spec.judge_assisted)
    if graders > 1:
        config = out / spec.config_path
        _set_config_key(config, "board_grades", "consolidated")
        _set_config_key(config, "consolidation_policy", policy or "median")
    return counts



JUDGE_MOVES = (-1,) + (0,) * 6 + (1,)   # --judge-assisted: the judge moves a criterion by one step 1 time in 4


def judge_assisted(out: Path, seed: int, share: Fraction = Fraction(1, 4)) -> dict[str, int]:
    """Rewrite the tree at ``out`` to estimation: judge-assisted (issue 28): the grade of every run in scoring/
    becomes the human's truth; the llm-judge ``JUDGE_ID`` grades every run in scoring_multi/ (each criterion moved
    by one step 1 time in 4, either way; lenient by one more step on two criteria for the first subject only); ``rgbench assign
    --draw`` draws ``share`` of the runs, stratified by subject and the judge's grade, into
    subjects/human_draws.json with their exact probabilities; the human grades stay on the drawn runs only, but
    for the first drawn run of the last subject (pending: drawn, not graded yet) and one undrawn run of the first
    (a grade outside the draw: agreement only). Unscored responses are removed (the judge grades every run).
    Counts of what was written."""
    from rgbench.cli import run_script
    spec = _spec(out)
    rng = random.Random(f"judge-assisted:{seed}")
    version = spec.version_dir
    human = {(path.parent.name, *path.name.split("__")[:2]): path for path in (out / "scoring" / version).glob("*/*.json")}
    for path in sorted((out / "responses" / version).glob("*/*.json")):
        if (path.parent.name, *path.stem.split("__")) not in human:
            path.unlink()
    subjects = sorted({key[0] for key in human})
    for key, path in sorted(human.items()):
        grade = _other_grade(json.loads(path.read_text(encoding="utf-8")), JUDGE_ID, spec, rng, moves=JUDGE_MOVES)
        if key[0] == subjects[0]:   # lenient here only: one step more on the first two criteria, within the range
            for name in list(grade["criterion_scores"])[:2]:
                moved = Fraction(str(grade["criterion_scores"][name])) + (spec.criterion_step or 1)
                grade["criterion_scores"][name] = json_score(min(Fraction(spec.criterion_max), moved))
        folder = out / "scoring_multi" / version / key[0]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{key[1]}__{key[2]}__eval-{JUDGE_ID}.json").write_bytes(_dump(grade))
    _write_reviewers(out, [f"rev-{i}" for i in range(1, 7)], judge=True)
    config = out / spec.config_path
    _set_config_key(config, "estimation", "judge-assisted")
    _set_config_key(config, "judge", JUDGE_ID)
    if run_script("assign", ["--root", str(out), "--draw", str(round(share * len(human)))]):
        raise SystemExit("rgbench assign --draw failed")
    document = json.loads((out / "subjects" / "human_draws.json").read_text(encoding="utf-8"))
    drawn: list[tuple[str, ...]] = [(r["subject_id"], r["case_id"], r["run_id"]) for r in document["draws"][0]["runs"]]
    kept = set(drawn) - {next(k for k in drawn if k[0] == subjects[-1])}   # pending
    kept.add(next(k for k in sorted(human) if k[0] == subjects[0] and k not in drawn))   # outside the draw
    for key, path in human.items():
        if key not in kept:
            path.unlink()
    return {"judge_grades": len(human), "drawn": len(drawn), "human_grades": len(kept)}

# --- fields the benchmark does not record (issue 23): --no-confidence, --no-correctness, --no-difficulty,
# --no-pass-rule. Each rewrites the generated tree's system/ copy (the schema or benchmark.yaml that declares the
# field) and removes the field from every generated file, then the scorings are pinned again: the same seed
# gives the same tree, without the field.

def _undeclare(out: Path, version_dir: str, kind: str, field: str) -> None:
    """Remove ``field`` from the ``kind`` schema's properties and required: the benchmark no longer records it."""
    def change(schema: dict) -> None:
        schema["required"] = [name for name in schema["required"] if name != field]
        schema["properties"].pop(field, None)
    _rewrite_json(out / "system" / "schemas" / version_dir / f"{kind}.schema.json", change, sort_keys=False)


def _drop_from_json_files(out: Path, folder: str, field: str) -> None:
    for path in sorted((out / folder).rglob("*.json")):
        _rewrite_json(path, lambda document: document.pop(field, None))


def _drop_from_golds(out: Path, field: str) -> None:
    """Remove ``field`` from each gold's json block (the last fenced json block of the file)."""
    for path in sorted((out / "golds").rglob("*_gold.md")):
        text = path.read_text(encoding="utf-8")
        start = text.rindex("```json\n") + len("```json\n")
        end = text.index("\n```", start)
        meta = json.loads(text[start:end])
        meta.pop(field, None)
        path.write_text(text[:start] + json.dumps(meta, indent=2) + text[end:], encoding="utf-8")


def _drop_yaml_keys(path: Path, keys: tuple[str, ...]) -> None:
    """Remove the top-level ``key: value`` lines of ``keys`` from a YAML file (comments kept)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if line.split(":", 1)[0] not in keys), encoding="utf-8")


# --no-<name>: the schema whose copy stops declaring the field (None: the pass rule's keys go from benchmark.yaml and
# config.yaml); drop_fields then removes the field from the generated files. The text is --help's.
ABSENT: dict[str, tuple[str | None, str]] = {
    "confidence": ("response", "the response schema and the responses without ``confidence``"),
    "correctness": ("evaluation", "the evaluation schema and the scorings without ``correctness``"),
    "difficulty": ("gold", "the gold schema and the golds without ``difficulty`` (config.yaml's difficulty_weights "
                           "stay: without a difficulty they are not checked against the gold schema, and not used)"),
    "pass_rule": (None, "benchmark.yaml without pass_threshold and conditional_threshold, config.yaml without alpha "
                        "(there is no P to weigh: Q_final is the normalised score)"),
}


def repin(out: Path, version_dir: str) -> None:
    """Every scoring's response_sha256 and gold_sha256 set to the files' current bytes."""
    def digest(rel: str) -> str:
        return hashlib.sha256((out / rel).read_bytes()).hexdigest()

    for path in sorted((out / "scoring").rglob("*.json")):
        def change(doc: dict) -> None:
            doc["response_sha256"] = digest(f"responses/{version_dir}/{doc['subject_id']}/{doc['case_id']}__"
                                            f"{doc['run_id']}.json")
            doc["gold_sha256"] = digest(f"golds/{version_dir}/{doc['case_id']}_gold.md")
        _rewrite_json(path, change)


def drop_fields(out: Path, absent: Collection[str]) -> None:
    """Make the generated tree ``out`` a benchmark that does not record ``absent`` (keys of :data:`ABSENT`); a
    field the copied system/ itself does not record is removed from the generated files too (build writes every
    field). Nothing to do (no file rewritten) when the benchmark records everything."""
    version = _spec(out).version_dir
    for name, (kind, _) in ABSENT.items():
        if name in absent and kind is not None:
            _undeclare(out, version, kind, name)
        elif name in absent:
            _drop_yaml_keys(out / "system" / "benchmark.yaml", ("pass_threshold", "conditional_threshold"))
            _drop_yaml_keys(out / "system" / "metrics" / version / "config.yaml", ("alpha",))
    spec = _spec(out)   # as rewritten: the fields it no longer records leave the generated files below
    kept = {field: getattr(spec, f"has_{field}") for field in ("confidence", "correctness", "difficulty", "case_type",
                                                               "rubric_floor", "rubric_ceiling")}
    if not absent and all(kept.values()):
        return
    for field, folder in (("confidence", "responses"), ("correctness", "scoring")):
        if not kept[field]:
            _drop_from_json_files(out, folder, field)
    for field in ("difficulty", "case_type", "rubric_floor", "rubric_ceiling"):
        if not kept[field]:
            _drop_from_golds(out, field)
    repin(out, version)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subjects", type=int, required=True, help="number of subjects")
    parser.add_argument("--cases", type=int, required=True, help="number of cases (golds)")
    parser.add_argument("--runs", type=int, required=True, help="runs per (subject, case)")
    parser.add_argument("--out", type=Path, required=True, help="folder to create (must not exist or be empty)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--root", type=Path, default=REPO_ROOT,
                        help="benchmark tree whose system/ the synthetic tree copies (default: this repository)")
    parser.add_argument("--kinds", type=lambda text: text.split(","), default=None, metavar="K1,K2,...",
                        help="subject kinds, given in turn (e.g. llm,system); the registry schema declares them")
    parser.add_argument("--blank-answers", action="store_true",
                        help=f"give every {BLANK_EVERY}th response an empty or whitespace-only response_text (graded "
                             "like any answer)")
    parser.add_argument("--scale", choices=sorted(SCALES),
                        help="rewrite the copied system/ to another score scale first: penalty (4 criteria of 0-25 "
                             "penalty points in tenths, summed, lower is better) or likert (6 ratings 1-5, their mean)")
    parser.add_argument("--graders", type=int, default=1, metavar="N",
                        help="grades per answer: one in scoring/, N-1 in scoring_multi/ by registered human reviewers; "
                             "above 1, config.yaml sets board_grades: consolidated (default 1)")
    parser.add_argument("--policy", choices=("median", "mean"),
                        help="config.yaml's consolidation_policy with --graders (default median)")
    parser.add_argument("--judge", action="store_true",
                        help="a registered llm-judge reviewer grades every scored run in scoring_multi/")
    parser.add_argument("--judge-assisted", action="store_true",
                        help="estimation: judge-assisted: an llm-judge grades every run (lenient on the first "
                             "subject), human grades on a stratified draw of a quarter of each subject's runs, "
                             "recorded in subjects/human_draws.json")
    for name in ABSENT:
        flag = name.replace("_", "-")
        parser.add_argument(f"--no-{flag}", action="store_true",
                            help=f"a benchmark without {name.replace('_', ' ')} (system/ copy rewritten: --no-{flag}: "
                                 f"{ABSENT[name][1]}.)")
    args = parser.parse_args(argv)
    if args.graders < 1 or (args.policy and args.graders < 2):
        return refuse("--graders must be at least 1, and --policy needs --graders 2 or more")
    if args.subjects < 1 or args.cases < 1 or args.runs < 1:
        return refuse("--subjects, --cases and --runs must be at least 1")
    if args.out.exists() and any(args.out.iterdir()):
        return refuse(f"{args.out}: exists and is not empty (choose a new folder)")
    args.out.mkdir(parents=True, exist_ok=True)
    counts = build(args.out, args.subjects, args.cases, args.runs, args.seed, args.root, args.scale)
    drop_fields(args.out, [name for name in ABSENT if getattr(args, f"no_{name}")])
    if args.kinds:
        declare_kinds(args.out, args.kinds)
    print(f"{args.out}: {args.cases} golds, {counts['responses']} responses, {counts['scorings']} scorings, "
          f"{args.subjects} subjects")
    if args.blank_answers:
        print(f"{args.out}: {len(blank_answers(args.out, _spec(args.out).version_dir))} blank answers")
    if args.judge_assisted:
        made = judge_assisted(args.out, args.seed)
        print(f"{args.out}: {made['judge_grades']} LLM-judge grades, {made['drawn']} runs drawn, "
              f"{made['human_grades']} human grades kept")
    if args.graders > 1 or args.judge:   # after the blank answers: the further grades pin the final responses
        added = add_graders(args.out, args.graders, args.policy, args.judge, args.seed)
        print(f"{args.out}: {added['further_grades']} further grades and {added['judge_grades']} LLM-judge grades "
              "in scoring_multi/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
