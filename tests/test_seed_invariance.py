"""Seeds from the data that is resampled (issue 25, aggregate_metrics.md §18): edits that change no data change
no byte of any results CSV; the declared seed re-draws; one subject's data move only its own rows.

Every test builds the same small board twice in a tmp dir (3 subjects x 8 cases x 2-3 runs, two reviewers on
some runs, tags, every difficulty), runs `make metrics` (scripts/metrics.py) on both and compares the CSVs of
results/. Before issue 25 every stream hashed file bytes and all of system/, so each of these edits re-drew.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest
from treebuilder import MiniTree, canonical, rows

from rgbench.cli import run_script

SUBJECTS = ("alpha-model", "beta-model", "gamma-model")
CASES = tuple(f"RO-{family}-00{i}" for family in ("FOUL", "SCAL") for i in range(1, 5))
TAGS = (["fouling"], ["scaling", "cold"], [], ["cold"])
PROSE = ("system/metrics/v1.0/aggregate_metrics.md", "system/rubric/v1.0/generic_rubric.md")


def board(root: Path, *, labels=lambda sid, case, i: f"r{i + 1}", reverse=False, moved=None, seed=None,
          indent=None) -> Path:
    """The board: the same values whatever ``labels`` (run ids), ``reverse`` (files written in reverse order),
    ``indent`` (the scorings' JSON indentation) say; ``moved`` (subject, case) changes that run's grade;
    ``seed`` declares config.yaml's seed."""
    tree = MiniTree(root)
    for rel in PROSE:   # documentation in system/ (its own text: the test must hold on any benchmark's tree)
        tree.write(rel, "# Notes\n\nHow this benchmark reads its figures, in prose.\n")
    config = root / "system/metrics/v1.0/config.yaml"   # the library fixture's: 2000 resamples, seed 0 (the default)
    text = config.read_text(encoding="utf-8").replace("\nbootstrap_resamples: 2000\n", "\nbootstrap_resamples: 300\n")
    if seed is not None:
        text = re.sub(r"(?m)^seed: .*\n", "", text) + f"seed: {seed}\n"
    config.write_text(text, encoding="utf-8")
    for sid in SUBJECTS:
        tree.add_subject(sid, "1.0")
    for i, case in enumerate(CASES):
        tree.add_gold(case, difficulty=1 + i % 5, tags=TAGS[i % 4], rubric_floor=2)
    rng = random.Random(25)
    runs = []
    for s, sid in enumerate(SUBJECTS):
        for case in CASES:
            for i in range(2 + (s + len(case)) % 2):
                raw = min(12, max(0, rng.randint(5, 12) - s))
                runs.append((sid, case, i, rng.randint(0, 100), raw, rng.choice((0, 0.5, 1)), rng.random() < 0.4))
    for sid, case, i, confidence, raw, correctness, second in (reversed(runs) if reverse else runs):
        run_id = labels(sid, case, i)
        if moved == (sid, case) and i == 0:
            raw = 0 if raw > 6 else 12
        tree.add_response(sid, case, run_id, confidence)
        paths = [tree.add_scoring(sid, case, run_id, "rev-a", raw=raw, correctness=correctness)]
        if second:   # a further grade (scoring_multi/): the agreement and reviewer reports
            doc = tree.scoring_doc(sid, case, run_id, "rev-b", raw=max(0, raw - 2), correctness=correctness)
            paths.append(tree.write(f"scoring_multi/v1.0/{sid}/{case}__{run_id}__eval-rev-b.json", canonical(doc)))
        for path in paths if indent is not None else ():   # the same JSON value: other indentation and key order
            doc = json.loads(path.read_text(encoding="utf-8"))
            path.write_text(json.dumps(dict(reversed(doc.items())), indent=indent) + "\n", encoding="utf-8")
    assert run_script("metrics", ["--root", str(root)]) == 0
    return root


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """The board as built by default (every test compares with its CSVs)."""
    return board(tmp_path_factory.mktemp("base") / "tree")


@pytest.fixture(scope="module")
def before(base) -> dict[str, bytes]:
    return csvs(base)


def csvs(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "results").glob("*.csv"))}


def test_prose_in_any_documentation_file_changes_no_byte_of_any_results_csv(tmp_path, base, before):
    root = tmp_path / "tree"
    shutil.copytree(base, root)   # the same data; append prose to every documentation file and compute again
    for rel in (*PROSE, "README.md", "docs/notes.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        with (root / rel).open("a", encoding="utf-8") as f:
            f.write("\nOne more sentence of prose.\n")
    for rel in ("system/rubric/v1.0/automatic_fails.yaml", "system/benchmark.yaml",
                "system/metrics/v1.0/config.yaml"):
        with (root / rel).open("a", encoding="utf-8") as f:
            f.write("# a comment: prose in a YAML file\n")
    assert run_script("metrics", ["--root", str(root)]) == 0
    assert before and csvs(root) == before


def test_reformatted_scorings_and_file_order_change_no_byte_of_any_results_csv(tmp_path, before):
    assert csvs(board(tmp_path / "indented", indent=4)) == before
    assert csvs(board(tmp_path / "reversed", reverse=True)) == before


def test_relabelled_and_reordered_runs_change_no_figure(tmp_path, before):
    # alpha-model's runs renamed and their order within each case reversed (r1 <-> r3, ...), the same values
    relabel = lambda sid, case, i: f"x{9 - i}" if sid == "alpha-model" else f"r{i + 1}"  # noqa: E731
    after = csvs(board(tmp_path / "two", labels=relabel))
    assert after.keys() == before.keys()
    for name in before:
        table = rows(before[name])
        if table and "run_id" in table[0]:   # a file that lists runs by id: the same rows but for the id
            strip = [sorted(json.dumps({k: v for k, v in r.items() if k != "run_id" and not k.endswith("_path")},
                                       sort_keys=True)
                            for r in rows(data)) for data in (before[name], after[name])]
            assert strip[0] == strip[1], name
        else:
            assert after[name] == before[name], name


def test_the_declared_seed_redraws_the_intervals(tmp_path, before):
    after = csvs(board(tmp_path / "seven", seed=7))
    for name in ("metrics_per_subject.csv", "pairwise.csv", "metrics_per_family.csv", "agreement.csv"):
        assert after[name] != before[name], name
    # only the draws move: the exact figures stay
    for b, a in zip(rows(before["metrics_per_subject.csv"]), rows(after["metrics_per_subject.csv"]), strict=True):
        assert (a["Q_final"], a["P"], a["s_bar"]) == (b["Q_final"], b["P"], b["s_bar"])
        assert (a["Q_final_low"], a["Q_final_high"]) != (b["Q_final_low"], b["Q_final_high"])


def test_one_subjects_grade_moves_only_its_own_rows(tmp_path, before):
    after = csvs(board(tmp_path / "two", moved=("beta-model", "RO-SCAL-002")))
    moved_any = False
    for name in before:
        old, new = rows(before[name]), rows(after[name])
        key = "subject_id" if old and "subject_id" in old[0] else None
        if name == "pairwise.csv":
            joint = {"p_holm", "p_bh", "significantly_better"}   # adjusted over every pair: joint by nature
            for o, n in zip(old, new, strict=True):
                if "beta-model" not in (o["subject_a"], o["subject_b"]):
                    assert {k: v for k, v in o.items() if k not in joint} == \
                           {k: v for k, v in n.items() if k not in joint}, o
                else:
                    moved_any |= o != n
        elif key is not None and name not in ("rank_sets.csv", "leaderboard.csv"):   # ranks: joint by nature
            others = [[r for r in table if r[key] != "beta-model" and r[key] != "ALL"] for table in (old, new)]
            assert others[0] == others[1], name
            moved_any |= [r for r in old if r[key] == "beta-model"] != [r for r in new if r[key] == "beta-model"]
    assert moved_any
