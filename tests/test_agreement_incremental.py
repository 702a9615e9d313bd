"""scripts/aggregate_scoring.py's fast paths can never change a result: the template rendering of the
consolidated scorings equals dumps_json_canonical, the agreement sums give the per-unit statistics, and after
any change (to the inputs or to the outputs) the tree holds exactly what a fresh run into an empty folder
writes, having rewritten only the files whose bytes differ."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import random
import shutil
from fractions import Fraction as F
from pathlib import Path

import pytest

import aggregate_scoring
import rgbench.folder_scan as folder_scan
import rgbench.stats.aggregate_run as aggregate_run
from rgbench.parsing import dumps_json_canonical
from rgbench.records import Scoring
from rgbench.spec import load_spec
from rgbench.stats.agreement import (
    cohen_weighted_kappa, krippendorff_alpha, mean_deviation, pair_ratings, pairable, percent_agreement,
)
from rgbench.stats.agreement_outputs import (
    DEVIATION_TARGETS, NOMINAL_TARGETS, AgreementRow, AgreementTally, _document, agreement_rows,
    consolidated_bytes, ordinal_targets,
)
from rgbench.stats.consolidate import ADJUDICATED, BY_POLICY, SINGLE, Consolidated
from rgbench.stats.multi_scoring import MULTI_DIR as LIBRARY_MULTI_DIR
from test_agreement_cli import MULTI, OUT, add_multi, multi_tree
from treebuilder import canonical

REPO = Path(__file__).resolve().parent.parent
INPUTS = ("system", "golds", "responses", "scoring", "scoring_multi", "subjects")


# --- the template rendering -------------------------------------------------------------------

ODD_TEXT = ["", "plain", "quote \" and \\ backslash", "tab\tnewline\ncr\r", "\x00\x01\x1f control", "é ü ß",
            "\u2028\u2029 separators", "emoji \U0001F600", "percent %d %s %%", "{braces} [brackets]", "/slash/"]


def random_scoring(rng: random.Random, names: tuple[str, ...]) -> Scoring:
    def text() -> str:
        return rng.choice(ODD_TEXT) + rng.choice(["", "x", "-01", "\u00e9"])
    fails = tuple(sorted((text(), rng.choice(["critical", "recoverable", text()])) for _ in range(rng.choice([0, 0, 1, 3]))))
    return Scoring(text(), text(), text(), text(), text(), tuple((name, rng.randint(-3, 40)) for name in names),
                   fails, rng.choice([F(0), F(1, 2), F(1), F(1, 3), F(7, 4), F(-2), F(10**30)]), text())


def test_consolidated_bytes_equal_dumps_json_canonical_on_many_documents():
    rng = random.Random(20260415)
    name_sets = [("diagnosis", "evidence", "causal_reasoning", "action_plan", "safety", "communication"),
                 ("b", "a", "B", "é", "a%b", "\"q\""), ("only",), ()]
    for index in range(3000):
        scoring = random_scoring(rng, rng.choice(name_sets))
        sources = tuple(f"scoring/v1.0/{rng.choice(ODD_TEXT)}/{i}.json" for i in range(rng.randint(1, 3)))
        item = Consolidated(scoring, rng.choice([SINGLE, BY_POLICY, ADJUDICATED]), sources)
        digests = {path: hashlib.sha256(path.encode()).hexdigest() for path in sources}
        response = rng.choice(["0" * 64, "\u00e9", ""])
        expected = dumps_json_canonical(_document(item, response, digests)).encode("utf-8")
        assert consolidated_bytes(item, response, digests) == expected, index


@pytest.mark.parametrize("change", [
    dict(criterion_scores=(("a", True), ("b", 2))),          # a bool is an int, but JSON writes true
    dict(criterion_scores=(("a", 1.5), ("b", 2))),           # a float score
    dict(criterion_scores=(("a", 1), ("a", 2))),             # a repeated name: the document keeps the last
    dict(criterion_scores=((2, 1), (1, 2))),                 # names that are not text (JSON writes "1", "2")
    dict(subject_id=7), dict(case_id=None), dict(fails=((None, "critical"),)),
])
def test_unusual_fields_take_dumps_json_canonical(change):
    scoring = Scoring("s", "1.0", "c", "r1", "rev", (("a", 1), ("b", 2)), (), F(1), "p")._replace(**change)
    item = Consolidated(scoring, SINGLE, ("p",))
    digests = {"p": "0" * 64}
    assert consolidated_bytes(item, "1" * 64, digests) == \
        dumps_json_canonical(_document(item, "1" * 64, digests)).encode("utf-8")


# --- the agreement sums -----------------------------------------------------------------------

def reference_rows(units: dict[str, list[dict]], spec) -> list[AgreementRow]:
    """agreement.csv's rows straight from the per-unit statistics (the definition the sums must equal)."""
    def alpha_row(statistic, target, metric):
        value = krippendorff_alpha(units[target], metric)
        n = len(pairable(units[target]))
        note = "" if value is not None else ("no run has two ratings" if n == 0 else "no variation: all ratings equal")
        return AgreementRow(statistic, target, value, "", "", n, note)
    rows = [alpha_row("krippendorff_alpha_ordinal", t, "ordinal") for t in ordinal_targets(spec)]
    rows += [alpha_row("krippendorff_alpha_nominal", t, "nominal") for t in NOMINAL_TARGETS]
    for target in ordinal_targets(spec) + NOMINAL_TARGETS:
        value = percent_agreement(units[target])
        rows.append(AgreementRow("percent_agreement", target, value, "", "", len(pairable(units[target])),
                                 "" if value is not None else "no run has two ratings"))
    reviewers = sorted({reviewer for unit in units["raw_score"] for reviewer in unit})
    for i, a in enumerate(reviewers):
        for b in reviewers[i + 1:]:
            for target in ordinal_targets(spec):
                pairs = pair_ratings(units[target], a, b)
                value = cohen_weighted_kappa(pairs)
                note = "" if value is not None else (
                    "no run graded by both" if not pairs else "no variation: both gave one and the same value")
                rows.append(AgreementRow("cohen_kappa_quadratic", target, value, a, b, len(pairs), note))
    for reviewer in reviewers:
        for target in DEVIATION_TARGETS:
            value, n = mean_deviation(units[target], reviewer)
            note = ("no run shared with another reviewer" if value is None else
                    "lenient" if value > 0 else "severe" if value < 0 else "neutral")
            rows.append(AgreementRow("mean_deviation", target, value, reviewer, "", n, note))
    return rows


def random_runs(rng: random.Random, spec, count: int, spread: int) -> list[dict[str, dict]]:
    """Runs as reviewer -> target -> value, with one to four reviewers each."""
    runs = []
    for _ in range(count):
        base = rng.randint(0, 2)
        ratings = {}
        for reviewer in rng.sample(["r1", "r2", "r3", "r4", "r5"], rng.choice([1, 2, 2, 2, 3, 4])):
            scores = {name: min(2, max(0, base + rng.randint(-spread, spread))) for name in spec.criteria}
            ratings[reviewer] = {
                "raw_score": sum(scores.values()), **scores,
                "classification": rng.choice(["Pass", "Conditional", "Fail"][:1 + spread]),
                "correctness": rng.choice([F(0), F(1, 2), F(1)][:1 + spread]),
                "has_critical_fail": rng.random() < 0.2 * spread,
            }
        runs.append(ratings)
    return runs


@pytest.mark.parametrize("seed", range(6))
def test_merged_sums_give_the_per_unit_statistics_exactly(seed):
    spec, _ = load_spec(REPO)
    rng = random.Random(seed)
    runs = random_runs(rng, spec, rng.choice([0, 1, 5, 60]), spread=seed % 3)
    targets = ordinal_targets(spec) + NOMINAL_TARGETS
    units = {t: [{r: values[t] for r, values in sorted(run.items())} for run in runs] for t in targets}
    expected = reference_rows(units, spec)
    assert agreement_rows(units, spec) == expected
    # in groups (subjects), each through marshal as the memo keeps it, then merged
    groups: list[AgreementTally] = []
    for start in range(0, len(runs), 7):
        tally = AgreementTally(spec)
        for run in runs[start:start + 7]:
            tally.reviewers.update(run)
            if len(run) >= 2:
                tally.add_run(run)
        groups.append(AgreementTally.from_plain(spec, marshal.loads(marshal.dumps(tally.to_plain()))))
    total = AgreementTally(spec)
    for tally in reversed(groups):
        total.merge(tally)
    assert total.rows() == expected


# --- the script: only what differs is written, and the result is always a fresh run's ---------

def snapshot(root: Path) -> dict[str, str]:
    """sha256 of every consolidated file and of results/agreement.csv."""
    found = {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted((root / "scoring_consolidated").rglob("*")) if p.is_file()}
    found["results/agreement.csv"] = hashlib.sha256((root / "results/agreement.csv").read_bytes()).hexdigest()
    return found


def fresh(root: Path, work: Path) -> dict[str, str]:
    """What a run of the same inputs into an empty tree, without cache, writes."""
    if work.exists():
        shutil.rmtree(work)
    for name in INPUTS:
        if (root / name).is_dir():
            shutil.copytree(root / name, work / name, symlinks=True)
    assert aggregate_scoring.main(["--root", str(work), "--no-cache"]) == 0
    assert not (work / ".cache").exists()
    return snapshot(work)


@pytest.fixture
def written(monkeypatch) -> list[str]:
    """Relative paths (from the tree root) of every file the script writes, in order."""
    paths: list[str] = []
    real = aggregate_run.replace_bytes_atomic

    def spy(path, data, durable=True):
        paths.append(path)
        real(path, data, durable=durable)

    monkeypatch.setattr(aggregate_run, "replace_bytes_atomic", spy)
    return paths


def rel_paths(root: Path, paths: list[str]) -> list[str]:
    return [os.path.relpath(path, root) for path in paths]


def replace_file(path: Path, text: str) -> None:
    """Write through a new file and a rename: a new inode, so the change is seen however fast it comes."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def facts(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted((root / "scoring_consolidated").rglob("*.json"))}


def test_a_rerun_writes_nothing_and_one_changed_scoring_rewrites_exactly_its_file(tmp_path, written):
    tree = multi_tree(tmp_path)
    root = tree.root
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    assert len(written) == 6  # five consolidated scorings and agreement.csv
    before, stats = snapshot(root), facts(root)
    written.clear()
    for _ in range(2):
        assert aggregate_scoring.main(["--root", str(root)]) == 0
        assert written == [] and facts(root) == stats and snapshot(root) == before
    # beta SCAL has one grade: its consolidated file changes, agreement.csv does not
    tree.add_scoring("beta-model", "RO-SCAL-001", "r1", "rev-a", raw=6, correctness=0)
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    assert rel_paths(root, written) == [f"{OUT}/beta-model/RO-SCAL-001__r1__eval-rev-a.json"]
    after = facts(root)
    assert {path for path in stats if after[path] != stats[path]} == {f"{OUT}/beta-model/RO-SCAL-001__r1__eval-rev-a.json"}
    assert snapshot(root) == fresh(root, tmp_path / "fresh")
    # a further grade of that run: its single-grade file goes, a consensus comes, the agreement changes
    written.clear()
    add_multi(tree, "beta-model", "RO-SCAL-001", "rev-b", raw=9, correctness=1)
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    assert rel_paths(root, written) == ["results/agreement.csv", f"{OUT}/beta-model/RO-SCAL-001__r1__eval-consensus.json"]
    assert not (root / OUT / "beta-model/RO-SCAL-001__r1__eval-rev-a.json").exists()
    assert snapshot(root) == fresh(root, tmp_path / "fresh")


@pytest.fixture(params=[False, True], ids=["racy", "trusted"])
def fingerprints(request, monkeypatch) -> bool:
    """Run each test twice: with the real 2 s racy window (every folder written by the test is untrusted, so
    every file is checked) and with fingerprints trusted at once (folders are skipped on their fingerprint)."""
    if request.param:
        monkeypatch.setattr(folder_scan, "RACY_NS", 0)
    return request.param


def test_every_change_to_inputs_or_outputs_ends_in_the_fresh_results(tmp_path, fingerprints):
    tree = multi_tree(tmp_path)
    root = tree.root
    out = root / OUT

    def check(note: str) -> None:
        assert aggregate_scoring.main(["--root", str(root)]) == 0, note
        assert snapshot(root) == fresh(root, tmp_path / "fresh"), note

    check("first run")
    check("nothing changed")
    scoring = root / "scoring/v1.0/alpha-model/RO-SCAL-001__r1__eval-rev-a.json"
    replace_file(scoring, scoring.read_text().replace('"correctness": 0.5', '"correctness": 1'))
    check("a scoring changed")
    (root / MULTI / "alpha-model/RO-FOUL-001__r1__adjudication-judge.json").unlink()
    check("an adjudication removed")
    add_multi(tree, "beta-model", "RO-FOUL-001", "rev-c", raw=4, correctness=0.5)
    check("a third reviewer")
    edited = out / "alpha-model/RO-MEMB-001__r1__eval-consensus.json"
    replace_file(edited, edited.read_text().replace("Consolidated", "Edited by hand"))
    check("a consolidated file edited by hand")
    (out / "beta-model/RO-SCAL-001__r1__eval-rev-a.json").unlink()
    check("a consolidated file deleted")
    (out / "beta-model/stray.json").write_text("{}\n")
    (out / "ghost-model").mkdir()
    (out / "ghost-model/RO-FOUL-001__r1__eval-x.json").write_text("{}\n")
    check("files and a folder no run produces")
    shutil.rmtree(root / "scoring_consolidated")
    check("the output folder deleted")
    tree.add_subject("gamma-model", "0.1")
    tree.add_run("gamma-model", "RO-FOUL-001", "r1", confidence=10, raw=3, correctness=0)
    check("a new subject")
    gold = root / "golds/v1.0/RO-FOUL-001_gold.md"
    replace_file(gold, gold.read_text().replace('"rubric_floor": 4', '"rubric_floor": 11'))
    check("a gold changed (every subject)")
    tree.subjects = [s for s in tree.subjects if s["subject_id"] != "gamma-model"]
    tree.write_registry()
    for top in ("responses", "scoring"):
        shutil.rmtree(root / top / "v1.0/gamma-model")
    check("a subject removed")
    assert not (out / "gamma-model").exists() or not list((out / "gamma-model").glob("*.json"))


def test_trusted_fingerprints_skip_unchanged_subjects_without_opening_a_file(tmp_path, monkeypatch):
    monkeypatch.setattr(folder_scan, "RACY_NS", 0)
    tree = multi_tree(tmp_path)
    root = tree.root
    assert aggregate_scoring.main(["--root", str(root)]) == 0   # writes every file
    assert aggregate_scoring.main(["--root", str(root)]) == 0   # checks them and records their fingerprints
    opened: list[str] = []
    real_same, real_read = aggregate_run._same_bytes, aggregate_run.read_bytes
    monkeypatch.setattr(aggregate_run, "_same_bytes", lambda path, data: opened.append(path) or real_same(path, data))
    monkeypatch.setattr(aggregate_run, "read_bytes", lambda folder, name: opened.append(name) or real_read(folder, name))
    rebuilt: list[str] = []
    real_build = aggregate_run.build_part
    monkeypatch.setattr(aggregate_run, "build_part", lambda sid, *a: rebuilt.append(sid) or real_build(sid, *a))
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    assert rebuilt == [] and rel_paths(root, opened) == ["results/agreement.csv"]
    scoring = root / "scoring/v1.0/beta-model/RO-SCAL-001__r1__eval-rev-a.json"
    replace_file(scoring, scoring.read_text().replace('"correctness": 0', '"correctness": 1'))
    opened.clear()
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    assert rebuilt == ["beta-model"]
    assert {os.path.dirname(os.path.relpath(path, root)) for path in opened} == {"results", f"{OUT}/beta-model"}
    assert snapshot(root) == fresh(root, tmp_path / "fresh")


def test_problems_after_a_valid_run_are_reported_as_without_memo_and_nothing_is_written(tmp_path, capsys):
    tree = multi_tree(tmp_path)
    root = tree.root
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    before = snapshot(root)
    capsys.readouterr()
    tree.write(f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-d.json", "{")
    add_multi(tree, "alpha-model", "RO-FOUL-001", "rev-a", raw=3)
    assert aggregate_scoring.main(["--root", str(root)]) == 1
    with_memo = capsys.readouterr().err
    assert aggregate_scoring.main(["--root", str(root), "--no-cache"]) == 1
    assert capsys.readouterr().err == with_memo
    assert f"{MULTI}/beta-model/RO-SCAL-001__r1__eval-rev-d.json: invalid JSON" in with_memo
    assert "reviewer 'rev-a' grades (alpha-model, RO-FOUL-001, r1) more than once" in with_memo
    assert "nothing was written" in with_memo
    assert snapshot(root) == before
    tree.write("responses/v1.0/alpha-model/RO-FOUL-001__r1.json", "{")
    assert aggregate_scoring.main(["--root", str(root)]) == 1
    assert "responses/v1.0/alpha-model/RO-FOUL-001__r1.json: invalid JSON" in capsys.readouterr().err
    assert snapshot(root) == before


def test_sample_suite_with_and_without_memo(tmp_path):
    root = tmp_path / "sample"
    for name in INPUTS:
        shutil.copytree(REPO / name, root / name)
    for _ in range(2):
        assert aggregate_scoring.main(["--root", str(root)]) == 0
        assert (root / "results/agreement.csv").read_bytes() == (REPO / "results/agreement.csv").read_bytes()
    assert snapshot(root) == fresh(root, tmp_path / "fresh")
    docs = list((root / "scoring_consolidated").rglob("*.json"))
    assert len(docs) == 322
    for path in docs:
        assert path.read_text() == canonical(json.loads(path.read_text()))


def test_the_script_names_the_library_default_folder():
    assert aggregate_scoring.MULTI_DIR == LIBRARY_MULTI_DIR


def test_the_full_path_writes_the_same(tmp_path, monkeypatch, written):
    """When the incremental path gives up (on anything unusual), the full loaders' parts give the same files."""
    tree = multi_tree(tmp_path)
    root = tree.root
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    expected = snapshot(root)
    monkeypatch.setattr(aggregate_run, "incremental_parts", lambda *a, scan=None, **k: scan and scan.close())
    written.clear()
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    assert written == [] and snapshot(root) == expected
    shutil.rmtree(root / "scoring_consolidated")
    assert aggregate_scoring.main(["--root", str(root)]) == 0
    assert snapshot(root) == expected
