"""The committed issue-15 tables against an independent computation from the raw files.

Reads scoring/, responses/, golds/ and subjects/registry.yaml directly (json, yaml, a regex for the gold's
block), takes only the classification from per_run.csv (checked by its own tests), and recomputes every
breakdown with plain loops and Fractions; the bootstrap intervals are recomputed replicate by replicate
from the documented draws, with the BCa bounds written out here from Efron's formulas (aggregate_metrics.md
§18, §30) and Wilson's interval for a pass rate at 0 or 1 (§17). Holds for any benchmark tree with
committed results.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from collections import defaultdict
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
import yaml
from treebuilder import REPO

from rgbench.numfmt import fmt_fixed

RESULTS = REPO / "results"
VERSION = "v1.0"


def rows_of(name: str) -> list[dict[str, str]]:
    path = RESULTS / name
    if not path.exists():
        pytest.skip(f"results/{name} is not committed")
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def load_raw():
    status, usage, participant = {}, {}, {}
    for path in sorted((REPO / "responses" / VERSION).glob("*/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        key = (doc["subject_id"], doc["case_id"], doc["run_id"])
        status[key] = doc.get("status", "answered")
        usage[key] = doc.get("usage")
        participant[key] = doc.get("participant")
    golds = {}
    for path in sorted((REPO / "golds" / VERSION).glob("*_gold.md")):
        block = re.search(r"```json\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
        assert block is not None
        doc = json.loads(block.group(1))
        golds[doc["case_id"]] = doc
    scorings = []
    for path in sorted((REPO / "scoring" / VERSION).glob("*/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if status[(doc["subject_id"], doc["case_id"], doc["run_id"])] != "error":
            scorings.append(doc)
    registry = {s["subject_id"]: s for s in yaml.safe_load((REPO / "subjects/registry.yaml").read_text())["subjects"]}
    classification = {(r["subject_id"], r["case_id"], r["run_id"], r["reviewer_id"]): r["classification"]
                      for r in rows_of("per_run.csv")}
    return status, usage, participant, golds, scorings, registry, classification


@pytest.fixture(scope="module")
def raw():
    return load_raw()


def draws(k: int, resamples: int, digest: str, label: str) -> list[list[int]]:
    """The documented draw: the stream of sha256(label + newline + digest) as eight big-endian 32-bit words,
    ``resamples`` rows of k case indices drawn with replacement."""
    words = np.frombuffer(hashlib.sha256(f"{label}\n{digest}".encode()).digest(), dtype=">u4").tolist()
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(words)))
    return rng.integers(0, k, size=(resamples, k)).tolist()


def reference_bca(sums: list[int], counts: list[int], rows: list[list[int]], confidence: Fraction) -> tuple[float, float]:
    """Efron's BCa bounds of Σ sums / Σ counts, one replicate and one leave-one-out value at a time."""
    k = len(sums)
    estimate = sum(sums) / sum(counts)
    replicates = [sum(sums[i] for i in row) / sum(counts[i] for i in row) for row in rows]
    tie = 1e-12 * max(1.0, abs(estimate))
    if all(abs(r - estimate) <= tie for r in replicates):
        return estimate, estimate
    below = sum(r < estimate - tie for r in replicates) + sum(abs(r - estimate) <= tie for r in replicates) / 2
    share = min(max(below / len(rows), 0.5 / len(rows)), 1 - 0.5 / len(rows))
    jack = [(sum(sums) - sums[i]) / (sum(counts) - counts[i]) for i in range(k)] if k > 1 else []
    d = [sum(jack) / len(jack) - v for v in jack]
    s2 = sum(x * x for x in d)
    a = sum(x ** 3 for x in d) / (6 * s2 ** 1.5) if s2 > 0 else 0.0
    z = NormalDist()
    z0 = z.inv_cdf(share)
    levels = [z.cdf(z0 + (z0 + zq) / (1 - a * (z0 + zq)))
              for zq in (z.inv_cdf(float((1 - confidence) / 2)), z.inv_cdf(float((1 + confidence) / 2)))]
    ordered = sorted(replicates)
    out = []
    for level in levels:   # type-7 quantile
        h = (len(ordered) - 1) * level
        lo = math.floor(h)
        out.append(ordered[lo] + (h - lo) * (ordered[min(lo + 1, len(ordered) - 1)] - ordered[lo]))
    return out[0], out[1]


def reference_interval(sums: dict[str, int], counts: dict[str, int], digest: str, label: str, resamples: int,
                       confidence: Fraction, proportion: bool = False) -> tuple[float, float]:
    """The committed interval of a ratio over the subject's cases; a pass rate at 0 or 1 is Wilson over the cases."""
    cases = sorted(counts)
    total, n = sum(sums.values()), sum(counts.values())
    if proportion and total in (0, n):
        k, z = len(cases), NormalDist().inv_cdf(float((1 + confidence) / 2))
        p = 0 if total == 0 else 1
        centre = (p + z * z / (2 * k)) / (1 + z * z / k)
        half = z * math.sqrt(z * z / (4 * k * k)) / (1 + z * z / k)
        return (0.0, centre + half) if p == 0 else (centre - half, 1.0)
    rows = draws(len(cases), resamples, digest, label)
    return reference_bca([sums[c] for c in cases], [counts[c] for c in cases], rows, confidence)


def close(cells: tuple[str, ...], values: tuple[float, ...]) -> bool:
    """Written bounds equal to the reference to 6 decimals (one unit of the last place for float noise)."""
    return all(abs(float(cell) - value) <= 1.000001e-6 for cell, value in zip(cells, values, strict=True))


def subject_digests() -> dict[str, str]:
    """Each subject's seed digest as aggregate_metrics.md §18 defines it (the declared seed and the subject's
    parsed runs by case), from the loaded tree; the manifest records the same digests."""
    from rgbench.load.loader import load_tree
    from rgbench.load.spec import load_spec
    from rgbench.results.tables import compute_results
    from rgbench.stats.seeds import subject_digests as digests_of
    spec, _ = load_spec(REPO)
    tree, _ = load_tree(REPO, spec)
    runs_of: dict[str, list] = {sid: [] for sid in tree.subjects}
    for run in compute_results(tree, spec).runs:
        runs_of[run.subject_id].append(run)
    out = digests_of(spec.stats.seed, runs_of, tree.scorings, tree.golds)
    recorded = json.loads((RESULTS / "manifest.json").read_text())["statistics"]["subject_digests"]
    assert {sid: out[sid] for sid in recorded} == recorded
    return out


def statistics() -> tuple[int, Fraction]:
    stats = json.loads((RESULTS / "manifest.json").read_text())["statistics"]
    return int(stats["bootstrap_resamples"]), Fraction(stats["confidence_level"])


def test_criterion_means_and_intervals(raw):
    *_, golds, scorings, _, _ = raw
    resamples, confidence = statistics()
    digests = subject_digests()
    committed = {(r["subject_id"], r["criterion"]): r for r in rows_of("metrics_per_criterion.csv")}
    by_subject = defaultdict(list)
    for s in scorings:
        by_subject[s["subject_id"]].append(s)
    expected = set()
    for sid, docs in by_subject.items():
        for criterion in docs[0]["criterion_scores"]:
            expected.add((sid, criterion))
            row = committed[(sid, criterion)]
            total = sum(d["criterion_scores"][criterion] for d in docs)
            assert row["mean"] == fmt_fixed(Fraction(total, len(docs))) and row["n"] == str(len(docs))
            sums: dict[str, int] = defaultdict(int)
            counts: dict[str, int] = defaultdict(int)
            for d in docs:
                sums[d["case_id"]] += d["criterion_scores"][criterion]
                counts[d["case_id"]] += 1
            low, high = reference_interval(sums, counts, digests[sid], "criteria", resamples, confidence)
            assert close((row["mean_low"], row["mean_high"]), (low, high)), (sid, criterion)
    assert set(committed) == expected


def _groups(raw, of_gold):
    *_, golds, scorings, _, classification = raw
    groups = defaultdict(list)
    for s in scorings:
        for group in of_gold(golds[s["case_id"]]):
            groups[(s["subject_id"], str(group))].append(s)
    return groups, golds, classification


def _check_groups(raw, name: str, key: str, of_gold, label, with_intervals: bool) -> None:
    groups, golds, classification = _groups(raw, of_gold)
    resamples, confidence = statistics()
    digests = subject_digests()
    committed = {(r["subject_id"], r[key]): r for r in rows_of(name)}
    assert set(committed) == set(groups)
    for (sid, group), docs in groups.items():
        row = committed[(sid, group)]
        passes = defaultdict(int)
        clipped = defaultdict(int)
        counts = defaultdict(int)
        for d in docs:
            passed = classification[(sid, d["case_id"], d["run_id"], d["reviewer_id"])] == "Pass"
            raw_score = sum(d["criterion_scores"].values())
            passes[d["case_id"]] += passed
            clipped[d["case_id"]] += min(raw_score, golds[d["case_id"]]["rubric_ceiling"])
            counts[d["case_id"]] += 1
        n = len(docs)
        assert (row["n"], row["n_cases"]) == (str(n), str(len(counts)))
        assert row["P"] == fmt_fixed(Fraction(sum(passes.values()), n))
        assert row["s_bar"] == fmt_fixed(Fraction(sum(clipped.values()), n))
        if with_intervals:
            p = reference_interval(passes, counts, digests[sid], label(group), resamples, confidence, proportion=True)
            s = reference_interval(clipped, counts, digests[sid], label(group), resamples, confidence)
            assert close((row["P_low"], row["P_high"], row["s_bar_low"], row["s_bar_high"]), p + s), (sid, group)


def test_case_type_and_advanced_with_intervals(raw):
    _check_groups(raw, "metrics_per_case_type.csv", "case_type", lambda g: [g["case_type"]],
                  lambda g: f"case_type:{g}", True)
    _check_groups(raw, "metrics_advanced.csv", "min_difficulty", lambda g: [4] if g["difficulty"] >= 4 else [],
                  lambda g: "advanced", True)


def test_tags(raw):
    _check_groups(raw, "metrics_per_tag.csv", "tag", lambda g: g.get("tags", []), lambda g: f"tag:{g}", True)


def test_cost(raw):
    status, usage, _, _, _, registry, classification = raw
    committed = {r["subject_id"]: r for r in rows_of("cost_per_subject.csv")}
    for sid, subject in registry.items():
        keys = [k for k in usage if k[0] == sid]
        row = committed[sid]
        prices = subject.get("prices")
        n_pass = sum(1 for k, c in classification.items() if k[0] == sid and c == "Pass")
        assert row["n_pass"] == str(n_pass) and row["n_responses"] == str(len(keys))
        if not prices or not keys or any(usage[k] is None for k in keys):
            assert row["total_cost"] == "" and row["cost_per_pass"] == ""
            continue
        pin, pout = Fraction(str(prices["input_per_million"])), Fraction(str(prices["output_per_million"]))
        costs = {k: (usage[k]["input_tokens"] * pin + usage[k]["output_tokens"] * pout) / 10**6 for k in keys}
        total = sum(costs.values(), Fraction(0))
        assert row["total_cost"] == fmt_fixed(total)
        assert row["cost_per_run"] == fmt_fixed(total / len(keys))
        assert row["cost_per_pass"] == (fmt_fixed(total / n_pass) if n_pass else "")
        passed = [costs[(s, c, r)] for (s, c, r, _), cl in classification.items() if s == sid and cl == "Pass"]
        if passed:   # geometric mean in floats: equal to 6 decimals unless a value sits on a rounding edge
            geo = math.exp(sum(math.log(c) for c in passed) / len(passed))
            assert abs(float(row["geomean_cost_pass"]) - geo) <= 1e-6


def test_human_baseline(raw):
    _, _, participant, _, scorings, registry, classification = raw
    runs = defaultdict(list)
    for s in scorings:
        who = participant[(s["subject_id"], s["case_id"], s["run_id"])]
        if who:
            runs[(s["subject_id"], who)].append(classification[(s["subject_id"], s["case_id"], s["run_id"],
                                                                s["reviewer_id"])] == "Pass")
    committed = rows_of("human_baseline.csv")
    for sid in {k[0] for k in runs}:
        rates = [Fraction(sum(v), len(v)) for (s, _), v in sorted(runs.items()) if s == sid]
        mean = [r for r in committed if r["subject_id"] == sid and r["scope"] == "mean_of_participants"]
        assert len(mean) == 1 and mean[0]["P"] == fmt_fixed(sum(rates, Fraction(0)) / len(rates))
        for (s, who), v in runs.items():
            if s == sid:
                row = [r for r in committed if r["subject_id"] == sid and r["group"] == who and r["scope"] == "participant"]
                assert row[0]["P"] == fmt_fixed(Fraction(sum(v), len(v)))
    assert {r["subject_id"] for r in committed} == {k[0] for k in runs}


def test_non_answers(raw):
    status, *_ = raw
    subjects = {r["subject_id"]: r for r in rows_of("metrics_per_subject.csv")}
    for sid, row in subjects.items():
        assert row["n_errors"] == str(sum(1 for k, v in status.items() if k[0] == sid and v == "error"))
