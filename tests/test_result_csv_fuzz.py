"""Every result CSV the leaderboard reads, mutated (issue 24): a message `results/<file>: what is wrong; run
`make metrics` to regenerate it`, exit 1, nothing written; never a traceback.

The red team broke results/reviewers.csv and results/judge_agreement.csv (KeyError, TypeError in `make
leaderboard`) and, with the manifest's digest rewritten to match, the lab tables (text, NaN, an exponent or
a 400-digit number in a numeric cell reached int(), float() and the charts; a reversed interval made a
negative error bar). Each case below mutates one file of a copy of this repository's tree and, when the
manifest lists the file, rewrites its digest there too (a forger would), so the file's own checks are what
is tested.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable

import pytest
from treebuilder import REPO

from rgbench.cli import run_script
from rgbench.leaderboard.lab_tables import LAB_FILES
from rgbench.leaderboard.results_tables import STATS_COLUMNS
from rgbench.leaderboard.reviewers_section import COLUMNS as REVIEWER_FILES
from rgbench.results.tables import FAMILY_FILE, PER_RUN_FILE, SUBJECT_FILE

# What the leaderboard reads: the result and statistics tables, the lab tables, the reviewers section's files.
FILES = sorted({PER_RUN_FILE, SUBJECT_FILE, FAMILY_FILE, *STATS_COLUMNS, *LAB_FILES, *REVIEWER_FILES})
# Those this tree's results hold (a benchmark without several graders or a judge writes fewer).
PRESENT = [name for name in FILES if (REPO / "results" / name).is_file()]
NUMBER = r"(?<=,)-?[0-9][0-9./]*(?=,|\n)"  # a numeric cell (not the first: no key is touched)


def _cells(replacement: str) -> Callable[[bytes], bytes]:
    return lambda data: re.sub(NUMBER, replacement, data.decode(), count=0).encode()


MUTATIONS: dict[str, Callable[[bytes], bytes]] = {
    "truncated": lambda data: data[: len(data) // 2 + 3],
    "wrong header": lambda data: b"x," + data,
    "non-numbers": _cells("abc"),
    "huge numbers": _cells("9" * 400),
    "exponent": _cells("1e999"),
    "empty": lambda data: b"",
    "binary": lambda data: bytes(range(256)) * 8,
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz") / "tree"
    for folder in ("system", "subjects", "scoring", "scoring_multi", "golds", "responses", "results"):
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, root / folder)
    return root


@pytest.mark.sample
def test_every_result_csv_is_fuzzed():
    """This repository's results hold every file the leaderboard reads (so none is fuzzed by its absence)."""
    assert all((REPO / "results" / name).is_file() for name in FILES)
    assert {"reviewers.csv", "judge_agreement.csv", "per_run.csv", "explorer_runs.csv", "pass_at_k.csv"} <= set(FILES)
    assert len(FILES) == 21


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
@pytest.mark.parametrize("name", PRESENT)
def test_a_mutated_result_csv_is_refused_with_a_message(tree, name, mutation, capsys):
    rel = f"results/{name}"
    original, manifest = (tree / rel).read_bytes(), (tree / "results/manifest.json").read_bytes()
    data = MUTATIONS[mutation](original)
    if data == original:
        pytest.skip(f"{name} holds no cell the mutation {mutation!r} changes")
    (tree / rel).write_bytes(data)
    listed = json.loads(manifest)
    if name in listed["outputs"]:
        listed["outputs"][name] = hashlib.sha256(data).hexdigest()
        (tree / "results/manifest.json").write_text(json.dumps(listed, indent=2, sort_keys=True) + "\n")
    before = {p.name: p.read_bytes() for p in (tree / "results").iterdir()}
    try:
        status = run_script("leaderboard", ["--root", str(tree)])
    finally:
        (tree / rel).write_bytes(original)
        (tree / "results/manifest.json").write_bytes(manifest)
    err = capsys.readouterr().err.splitlines()
    if mutation == "truncated" and status == 0:   # cut at a line end, within a text cell: a shorter valid table
        assert err == []
        return
    assert status == 1, err
    # the mutated file first, with the fix; a truncated table may instead be out of step with the others
    assert err[0].startswith(f"{rel}: ") or mutation == "truncated", err
    assert all(re.fullmatch(r"results/[a-z_]+\.csv: .+\(?run `make metrics`.*", line) for line in err[:-1]), err
    assert re.fullmatch(r"\d+ problem\(s\) found; nothing was written\.", err[-1]), err
    assert "9" * 41 not in "".join(err)   # a refused cell is quoted short
    after = {p.name: p.read_bytes() for p in (tree / "results").iterdir()}
    assert after.keys() == before.keys() and all(after[k] == before[k] for k in after if k not in (name, "manifest.json"))


@pytest.mark.sample  # the shipped sample's files and subjects
def test_the_reviewers_section_is_refused_whole_not_half_read(tree, capsys):
    """A reviewers.csv row one field short used to be read as a dict with a None value (TypeError)."""
    rel = "results/reviewers.csv"
    original = (tree / rel).read_bytes()
    (tree / rel).write_bytes(original + b"someone,human,runs_graded\n")
    try:
        assert run_script("leaderboard", ["--root", str(tree)]) == 1
    finally:
        (tree / rel).write_bytes(original)
    lines = original.decode().count("\n")
    assert capsys.readouterr().err == (f"{rel}: line {lines + 1}: 3 fields, expected 10; run `make metrics` to "
                                       "regenerate it\n1 problem(s) found; nothing was written.\n")


@pytest.mark.sample  # the shipped sample's files and subjects
def test_a_point_outside_its_interval_is_drawn_and_a_reversed_interval_refused(tree, capsys):
    """A bootstrap interval need not contain its point: the difficulty chart's whiskers stop at the point
    (a negative error bar was a matplotlib ValueError). A reversed interval is refused."""
    rel = "results/metrics_per_difficulty.csv"
    original, manifest = (tree / rel).read_bytes(), (tree / "results/manifest.json").read_bytes()
    header, *rows = original.decode().splitlines(keepends=True)
    at = next(i for i, row in enumerate(rows) if row.startswith("cormorant-4,"))  # a subject the chart draws
    cells = dict(zip(header.rstrip("\n").split(","), rows[at].rstrip("\n").split(",")))

    def build(edit: dict[str, str]) -> int:
        row = ",".join({**cells, **edit}.values()) + "\n"
        data = (header + "".join(rows[:at]) + row + "".join(rows[at + 1:])).encode()
        (tree / rel).write_bytes(data)
        listed = json.loads(manifest)
        listed["outputs"]["metrics_per_difficulty.csv"] = hashlib.sha256(data).hexdigest()
        (tree / "results/manifest.json").write_text(json.dumps(listed, indent=2, sort_keys=True) + "\n")
        try:
            return run_script("leaderboard", ["--root", str(tree)])
        finally:
            (tree / rel).write_bytes(original)
            (tree / "results/manifest.json").write_bytes(manifest)

    assert build({"P_difficulty": "0.900000", "P_difficulty_low": "0.100000", "P_difficulty_high": "0.200000"}) == 0
    capsys.readouterr()
    assert build({"P_difficulty_low": "0.900000", "P_difficulty_high": "0.100000"}) == 1
    assert capsys.readouterr().err == (f"{rel}: line {at + 2}: P_difficulty_low: 0.900000 is above P_difficulty_high "
                                       "0.100000; run `make metrics` to regenerate it\n"
                                       "1 problem(s) found; nothing was written.\n")
