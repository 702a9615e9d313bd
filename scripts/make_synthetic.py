#!/usr/bin/env python3
"""Write a valid synthetic benchmark tree of any size, reproducibly from a seed, for benchmarks and tests.

The tree copies the system/ folder of --root (default: this repository), registers S subjects, writes C
golds spread over the declared families, R responses per (subject, case) with
answer texts of realistic size (about 1-2 KB), and a scoring for most of them:
about 3% of responses stay unscored, about 2% of scorings flag a recoverable
fail and a few subjects carry a critical fail. Same arguments, same bytes.

Everything benchmark-specific comes from system/: case ids are
benchmark.yaml's example_case_id with the family group replaced by each family
code and its last digits by a counter (same width); scores span
criterion_min..criterion_max, ceilings and floors the score range, correctness
the evaluation schema's values, schema_version the schemas' const.
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
from pathlib import Path

from rgbench.cli import REPO_ROOT
from rgbench.load.spec import Spec, load_spec
from rgbench.problems import report
from rgbench.stats.config import schema_difficulty_range

WORDS = (
    "feed permeate concentrate pressure differential flux normalized salt passage conductivity membrane element "
    "vessel stage train antiscalant bisulfite chlorine ORP pH temperature recovery fouling scaling biofilm silica "
    "carbonate sulfate iron cartridge filter SDI turbidity cleaning alkaline acid caustic citric EDTA trend data "
    "operator shift alarm transmitter calibration probe flowmeter pump valve setpoint increase decrease stable "
    "because therefore indicates suggests confirms rules out first then after before inspect verify sample"
).split()
CRITICAL_SUBJECT_EVERY = 10  # subjects 3, 13, 23, ... carry a critical fail (about 1% of their runs)


def _dump(document: dict) -> bytes:
    return (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


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


def _json_number(value: Fraction) -> int | float:
    return value.numerator if value.denominator == 1 else float(value)


def build(out: Path, subjects: int, cases: int, runs: int, seed: int, root: Path = REPO_ROOT) -> dict[str, int]:
    spec, problems = load_spec(root)
    if spec is None:
        raise SystemExit(report(problems))
    maker = case_id_maker(spec)
    if isinstance(maker, str):
        raise SystemExit(maker)
    make_id, per_family = maker
    rng = random.Random(seed)
    shutil.copytree(root / "system", out / "system")
    low, high = spec.criterion_min, spec.criterion_max
    difficulty = schema_difficulty_range(spec.validators["gold"].schema) or range(1, 6)
    span = high - low
    lowest, highest = len(spec.criteria) * low, spec.max_score
    # the evaluation schema's correctness values; quarters for a schema without an enum (any number in [0, 1])
    values = [_json_number(v) for v in spec.correctness_values or [Fraction(k, 4) for k in range(5)]]
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
        ceiling = rng.choice((highest - 2, highest - 1)) if case_type == "Ambiguous" else highest
        meta = {"schema_version": spec.schema_version, "case_id": case_id, "family": family, "case_type": case_type,
                "rubric_floor": rng.randint(lowest, lowest + (highest - lowest) // 2), "rubric_ceiling": ceiling,
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
                scores = {name: low + min(span, max(0, int(rng.random() * (0.7 * span) + skill * (0.65 * span))))
                          for name in spec.criteria}
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


# --- fields the benchmark does not record (issue 23): --no-confidence, --no-correctness, --no-difficulty,
# --no-pass-rule. Each rewrites the generated tree's system/ copy (the schema or benchmark.yaml that declares the
# field) and removes the field from every generated file, then the scorings are pinned again: the same seed
# gives the same tree, without the field.

def _rewrite_json(path: Path, change: Callable[[dict], None], *, sort_keys: bool = True) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    text = json.dumps(document, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")


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


def drop_confidence(out: Path, version_dir: str) -> None:
    """--no-confidence: the response schema and the responses without ``confidence``."""
    _undeclare(out, version_dir, "response", "confidence")
    _drop_from_json_files(out, "responses", "confidence")


def drop_correctness(out: Path, version_dir: str) -> None:
    """--no-correctness: the evaluation schema and the scorings without ``correctness``."""
    _undeclare(out, version_dir, "evaluation", "correctness")
    _drop_from_json_files(out, "scoring", "correctness")


def drop_difficulty(out: Path, version_dir: str) -> None:
    """--no-difficulty: the gold schema and the golds without ``difficulty`` (config.yaml's difficulty_weights
    stay: without a difficulty they are not checked against the gold schema, and not used)."""
    _undeclare(out, version_dir, "gold", "difficulty")
    _drop_from_golds(out, "difficulty")


def drop_pass_rule(out: Path, version_dir: str) -> None:
    """--no-pass-rule: benchmark.yaml without pass_threshold and conditional_threshold, config.yaml without alpha
    (there is no P to weigh: Q_final is the normalised score)."""
    _drop_yaml_keys(out / "system" / "benchmark.yaml", ("pass_threshold", "conditional_threshold"))
    _drop_yaml_keys(out / "system" / "metrics" / version_dir / "config.yaml", ("alpha",))


ABSENT = {"confidence": drop_confidence, "correctness": drop_correctness, "difficulty": drop_difficulty,
          "pass_rule": drop_pass_rule}


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
    spec, problems = load_spec(out)
    if spec is None:
        raise SystemExit(report(problems))
    version = spec.version_dir
    for name in ABSENT:
        if name in absent:
            ABSENT[name](out, version)
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
    for name in ABSENT:
        flag = name.replace("_", "-")
        parser.add_argument(f"--no-{flag}", action="store_true",
                            help=f"a benchmark without {name.replace('_', ' ')} (system/ copy rewritten: {ABSENT[name].__doc__})")
    args = parser.parse_args(argv)
    if args.subjects < 1 or args.cases < 1 or args.runs < 1:
        print("--subjects, --cases and --runs must be at least 1", file=sys.stderr)
        return 1
    if args.out.exists() and any(args.out.iterdir()):
        print(f"{args.out}: exists and is not empty (choose a new folder)", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    counts = build(args.out, args.subjects, args.cases, args.runs, args.seed, args.root)
    drop_fields(args.out, [name for name in ABSENT if getattr(args, f"no_{name}")])
    print(f"{args.out}: {args.cases} golds, {counts['responses']} responses, {counts['scorings']} scorings, "
          f"{args.subjects} subjects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
