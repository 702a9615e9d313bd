"""Build small benchmark trees in a temporary folder for tests.

The tree gets a copy of ``tests/fixtures/library/system/``: the library tests'
own benchmark (six criteria 0-2, ids ``RO-<FAMILY>-<NNN>``, the thresholds and
catalog their hand-computed values assume), not the repository's ``system/``.
So the library tests travel: a fork that replaces ``system/`` with another
benchmark runs them unchanged. While the repository holds the reverse-osmosis
sample, tests/test_portability.py checks the fixture still equals its system/
(a change to the sample's system/ is mirrored there).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
LIBRARY_ROOT = REPO / "tests" / "fixtures" / "library"  # a tree holding only system/: load_spec(LIBRARY_ROOT)
LIBRARY_SYSTEM = LIBRARY_ROOT / "system"
CRITERIA = ("diagnosis", "evidence", "causal_reasoning", "action_plan", "safety", "communication")


def _facts(system: Path) -> tuple:
    """The facts the sample's hand-computed expectations rest on, read from a system/ folder."""
    import yaml

    try:
        bench = yaml.safe_load((system / "benchmark.yaml").read_text(encoding="utf-8"))
        evaluation = json.loads((system / "schemas" / f"v{bench['benchmark_version']}" /
                                 "evaluation.schema.json").read_text(encoding="utf-8"))
        correctness = evaluation["properties"]["correctness"].get("enum")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ()
    keys = ("benchmark_version", "case_id_pattern", "families", "criteria", "criterion_min", "criterion_max",
            "pass_threshold", "conditional_threshold")
    return (*(json.dumps(bench.get(key), sort_keys=True) for key in keys), json.dumps(correctness))


def is_ro_sample(root: Path) -> bool:
    """True when ``root``'s system/ states the reverse-osmosis sample's facts (those of the library fixture)."""
    return _facts(root / "system") == _facts(LIBRARY_SYSTEM) != ()


def canonical(document: Any) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


SCHEMA = "system/schemas/v1.0/{}.schema.json"   # SCHEMA.format("evaluation"): a schema of the v1.0 trees


def plain(value: Any) -> Any:
    """``value`` with every exact Fraction (a Spec's scores and thresholds) as the number a file would hold."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def edit_json(path: Path, change) -> None:
    """Let ``change`` edit the JSON document at ``path`` in place, and write it back (key order kept, indent 2)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(plain(document), indent=2) + "\n", encoding="utf-8")


def edit_yaml(path: Path, change) -> None:
    """Let ``change`` edit the YAML document at ``path`` in place, and write it back (key order kept)."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(plain(data), sort_keys=False), encoding="utf-8")


def problems_of(root: Path) -> list[str]:
    """The problems load_spec finds in ``root``'s system/, as printed (none exactly when it returns a spec)."""
    from rgbench.load.spec import load_spec

    spec, problems = load_spec(root)
    assert (spec is None) == bool(problems)
    return [str(p) for p in problems]


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (its path relative to it) with its bytes: to compare a folder before and after."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def rows(source: Path | bytes) -> list[dict[str, str]]:
    """The rows of a CSV file (or of its bytes), by column name."""
    text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source.decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def synthetic(out: Path, *args: str) -> Path:
    """``out``, a tree scripts/make_synthetic.py writes with ``args`` (it must succeed)."""
    import make_synthetic

    assert make_synthetic.main([*args, "--out", str(out)]) == 0
    return out


def metrics_and_check(root: Path, capsys) -> str:
    """`make metrics` then `make check` on ``root``, in this process; both must exit 0. What metrics printed on
    stderr (its warnings)."""
    from rgbench.cli import run_script

    assert run_script("metrics", ["--root", str(root)]) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert run_script("check", ["--root", str(root)]) == 0, capsys.readouterr().err
    return err


def scores_summing_to(total: int) -> dict[str, int]:
    """Criterion scores (each 0-2) whose sum is ``total`` (0-12), filled from the first criterion."""
    scores = {}
    for name in CRITERIA:
        take = min(2, total)
        scores[name] = take
        total -= take
    return scores


class MiniTree:
    def __init__(self, root: Path):
        self.root = Path(root)
        shutil.copytree(LIBRARY_SYSTEM, self.root / "system")
        self.subjects: list[dict] = []
        self.write_registry()

    # --- writers ---------------------------------------------------------
    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", newline="\n")
        return path

    def write_registry(self) -> None:
        lines = ["subjects:"] if self.subjects else ["subjects: []"]
        for subject in self.subjects:
            lines.append(f"  - subject_id: \"{subject['subject_id']}\"")
            for key, value in subject.items():
                if key != "subject_id":
                    lines.append(f"    {key}: {json.dumps(value)}")
        self.write("subjects/registry.yaml", "\n".join(lines) + "\n")

    def add_subject(self, subject_id: str, version: str = "1.0", **extra: Any) -> None:
        self.subjects.append({"subject_id": subject_id, "subject_version": version, **extra})
        self.write_registry()

    def gold_text(self, case_id: str, **fields: Any) -> str:
        meta = {
            "schema_version": "1.0", "case_id": case_id, "family": case_id.split("-")[1],
            "case_type": "Closed", "rubric_floor": 0, "rubric_ceiling": 12, "difficulty": 2,
        }
        meta.update(fields)
        return f"# {case_id}\n\n## Scenario\n\nA test case.\n\n```json\n{json.dumps(meta, indent=2)}\n```\n"

    def add_gold(self, case_id: str, **fields: Any) -> Path:
        return self.write(f"golds/v1.0/{case_id}_gold.md", self.gold_text(case_id, **fields))

    def response_doc(self, subject_id: str, case_id: str, run_id: str = "r1", confidence: int = 50, **fields: Any) -> dict:
        version = next(s["subject_version"] for s in self.subjects if s["subject_id"] == subject_id)
        doc = {
            "schema_version": "1.0", "subject_id": subject_id, "subject_version": version,
            "case_id": case_id, "run_id": run_id, "confidence": confidence,
            "response_text": f"Answer of {subject_id} to {case_id} ({run_id}).",
        }
        doc.update(fields)
        return doc

    def add_response(self, subject_id: str, case_id: str, run_id: str = "r1", confidence: int = 50, **fields: Any) -> Path:
        doc = self.response_doc(subject_id, case_id, run_id, confidence, **fields)
        return self.write(f"responses/v1.0/{subject_id}/{case_id}__{run_id}.json", canonical(doc))

    def scoring_doc(self, subject_id: str, case_id: str, run_id: str = "r1", reviewer_id: str = "rev-a", *,
                    raw: int = 10, correctness: float = 1, fails: list | None = None, **fields: Any) -> dict:
        version = next(s["subject_version"] for s in self.subjects if s["subject_id"] == subject_id)
        doc = {
            "schema_version": "1.0", "subject_id": subject_id, "subject_version": version,
            "case_id": case_id, "run_id": run_id, "reviewer_id": reviewer_id,
            "criterion_scores": scores_summing_to(raw),
            "automatic_fails_triggered": [{"code": c, "severity": s} for c, s in (fails or [])],
            "correctness": correctness,
        }
        for pin, rel in (("response_sha256", f"responses/v1.0/{subject_id}/{case_id}__{run_id}.json"),
                         ("gold_sha256", f"golds/v1.0/{case_id}_gold.md")):
            path = self.root / rel
            doc[pin] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "0" * 64
        doc.update(fields)
        return doc

    def add_scoring(self, subject_id: str, case_id: str, run_id: str = "r1", reviewer_id: str = "rev-a", **kw: Any) -> Path:
        doc = self.scoring_doc(subject_id, case_id, run_id, reviewer_id, **kw)
        return self.write(f"scoring/v1.0/{subject_id}/{case_id}__{run_id}__eval-{reviewer_id}.json", canonical(doc))

    def add_run(self, subject_id: str, case_id: str, run_id: str = "r1", *, confidence: int = 50,
                reviewer_id: str = "rev-a", **scoring: Any) -> None:
        """A response and its scoring."""
        self.add_response(subject_id, case_id, run_id, confidence)
        self.add_scoring(subject_id, case_id, run_id, reviewer_id, **scoring)

    def sha256(self, rel: str) -> str:
        return hashlib.sha256((self.root / rel).read_bytes()).hexdigest()


def small_tree(root: Path) -> MiniTree:
    """Two subjects, three cases, a handful of runs: a valid tree with every classification."""
    tree = MiniTree(root)
    tree.add_subject("alpha-model", "2.0", display_name="Alpha")
    tree.add_subject("beta-model", "1.1")
    tree.add_gold("RO-FOUL-001", rubric_floor=4)
    tree.add_gold("RO-SCAL-001", case_type="Ambiguous", rubric_floor=3, rubric_ceiling=10)
    tree.add_gold("RO-MEMB-001", rubric_floor=6)
    tree.add_run("alpha-model", "RO-FOUL-001", "r1", confidence=90, raw=12, correctness=1)
    tree.add_run("alpha-model", "RO-SCAL-001", "r1", confidence=70, raw=12, correctness=0.5)
    tree.add_run("alpha-model", "RO-MEMB-001", "r1", confidence=30, raw=8, correctness=0, reviewer_id="rev-b")
    tree.add_response("alpha-model", "RO-MEMB-001", "r2", 60)  # unscored
    tree.add_run("beta-model", "RO-FOUL-001", "r1", confidence=100, raw=11, correctness=0,
                 fails=[("AF-CHLORINE-EXPOSURE", "critical")])
    tree.add_run("beta-model", "RO-SCAL-001", "r1", confidence=0, raw=5, correctness=0)
    return tree


def extract_gold_json(text: str):
    """The parsed JSON of a gold's data block, as the loader reads it (gold_data_block, then parse_data_block)."""
    from rgbench.load.gold_markdown import gold_data_block, parse_data_block

    return parse_data_block(gold_data_block(text))
