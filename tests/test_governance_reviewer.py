"""A reviewer's whole path on a temporary git repository: template, fill, validate, regenerate,
make check, provenance, results diff. And every refusal of new_scoring.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from gitrepo import metrics, toolkit_repo
from treebuilder import LIBRARY_ROOT, REPO, canonical, scores_summing_to

from rgbench.cli import run_script
from rgbench.load.spec import load_spec

SPEC, _ = load_spec(LIBRARY_ROOT)
OUTPUT_CSVS = ("metrics_per_family.csv", "metrics_per_subject.csv", "per_run.csv")
TEMPLATE_REL = "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-c.json"
TEMPLATE_ARGS = ("--subject", "alpha-model", "--case", "RO-MEMB-001", "--run", "r2", "--reviewer", "rev-c")


def fill(path: Path, *, raw: int, correctness: float, fails: list | None = None) -> None:
    document = json.loads(path.read_text())
    document["criterion_scores"] = scores_summing_to(raw)
    document["correctness"] = correctness
    document["automatic_fails_triggered"] = fails or []
    document["comments"] = "Diagnosis right, evidence partial."
    path.write_text(canonical(document), encoding="utf-8")


def test_reviewer_path_on_a_git_repository(tmp_path):
    repo, tree = toolkit_repo(tmp_path / "bench")
    metrics(repo)
    base = repo.commit("Benchmark with results")

    # 1. The template: ids, registered version and response hash filled, criteria listed with null scores.
    done = repo.run("new_scoring.py", *TEMPLATE_ARGS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "1. Read the gold first: golds/v1.0/RO-MEMB-001_gold.md"
    # make metrics rewrites README's leaderboard block too: committing results/ alone fails make check
    assert done.stdout.splitlines()[-1] == ("4. make fmt validate, then make metrics and make check; commit the scoring "
                                            "with the regenerated results/ and README.md (its leaderboard block): "
                                            "git add scoring results README.md")
    template = json.loads((repo.root / TEMPLATE_REL).read_text())
    assert template == {
        "automatic_fails_triggered": [], "case_id": "RO-MEMB-001", "comments": "", "correctness": None,
        "criterion_scores": {name: None for name in SPEC.criteria},
        "gold_sha256": tree.sha256("golds/v1.0/RO-MEMB-001_gold.md"),
        "response_sha256": tree.sha256("responses/v1.0/alpha-model/RO-MEMB-001__r2.json"),
        "reviewer_id": "rev-c", "run_id": "r2", "schema_version": "1.0",
        "subject_id": "alpha-model", "subject_version": "2.0",
    }
    assert (repo.root / TEMPLATE_REL).read_text() == canonical(template)  # already in `make fmt` form

    # 2. Unfilled, it fails validation (so it cannot be merged), on every placeholder.
    done = repo.run("validate.py", "--changed", base)
    assert done.returncode == 1
    assert sorted(line.split(": ")[1] for line in done.stderr.splitlines()[:-1]) == sorted(
        ["$.correctness"] + [f"$.criterion_scores.{name}" for name in SPEC.criteria])
    # ... and so does make check: make metrics refuses the tree.
    done = repo.make("check")
    assert done.returncode != 0 and "make metrics refuses the inputs in this tree" in done.stderr

    # 3. Filled in, it validates (whole tree and changed files).
    fill(repo.root / TEMPLATE_REL, raw=4, correctness=0)
    assert repo.run("validate.py").returncode == 0
    done = repo.run("validate.py", "--changed", base)
    assert done.returncode == 0 and "(1 changed path(s) since" in done.stdout

    # 4. Not regenerated: make check fails naming every result file.
    done = repo.make("check")
    assert done.returncode != 0
    for name in (*OUTPUT_CSVS, "manifest.json"):
        assert (f"results/{name}: differs from what the inputs in this tree produce (run `make metrics` and commit it)"
                in done.stderr)

    # 5. Regenerated: make check passes.
    metrics(repo)
    done = repo.make("check")
    assert done.returncode == 0, done.stderr
    assert "results/ matches what the inputs in this tree produce" in done.stdout

    # 6. Committed together: provenance passes; the diff shows the move.
    repo.commit("Grade alpha-model RO-MEMB-001 r2 (rev-c)")
    done = repo.run("check_provenance.py", "--base", base)
    assert done.returncode == 0, done.stderr
    assert "1 commit(s) since" in done.stdout
    done = repo.run("results_diff.py", "--base", base)
    assert done.returncode == 0, done.stderr
    # alpha-model: N 3 -> 4; P 2/3 -> 2/4; s_bar 30/3 -> 34/4 = 8.5; Q 0.75 -> 0.25 + 0.5 * 8.5/12 = 0.604167
    assert "| alpha-model | 2.0 | 1 | 0.604167 (-0.145833) | 0.500000 (-0.166667) | 8.500000 (-1.500000) |" in done.stdout
    assert "**implausible jump**" in done.stdout and "N 3 → 4" in done.stdout


def test_a_scoring_committed_without_results_fails_check_but_not_provenance(tmp_path):
    # Provenance only asks that results never move alone; make check is the proof they are current.
    repo, tree = toolkit_repo(tmp_path / "bench")
    metrics(repo)
    base = repo.commit("Benchmark with results")
    assert repo.run("new_scoring.py", *TEMPLATE_ARGS).returncode == 0
    fill(repo.root / TEMPLATE_REL, raw=9, correctness=0.5)
    repo.commit("Scoring without results")
    assert repo.run("check_provenance.py", "--base", base).returncode == 0
    done = repo.make("check")
    assert done.returncode != 0
    named = [line for line in done.stderr.splitlines() if "differs" in line]
    for name in OUTPUT_CSVS:
        assert f"results/{name}: differs from what the inputs in this tree produce (run `make metrics` and commit it)" in named
    # the manifest's line also names the input that moved: the folder of the new scoring
    assert ("results/manifest.json: differs from what the inputs in this tree produce (run `make metrics` and commit it); "
            "inputs changed since it was written: scoring/v1.0/alpha-model/ (changed)") in named


# --- refusals of new_scoring.py: exit 1, `path: message`, nothing written ------------------------

@pytest.fixture
def bench(tmp_path):
    repo, tree = toolkit_repo(tmp_path / "bench")
    return tree


def scoring_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in (root / "scoring").rglob("*") if p.is_file())


@pytest.mark.parametrize("args, expected", [
    (("--subject", "ghost", "--case", "RO-FOUL-001", "--run", "r1", "--reviewer", "rev-c"),
     "subjects/registry.yaml: subject 'ghost' is not registered (registered: alpha-model, beta-model)"),
    (("--subject", "alpha-model", "--case", "RO-FOUL-009", "--run", "r1", "--reviewer", "rev-c"),
     "golds/v1.0/RO-FOUL-009_gold.md: no gold for case 'RO-FOUL-009': check the case id"),
    (("--subject", "alpha-model", "--case", "RO-FOUL-001", "--run", "r7", "--reviewer", "rev-c"),
     "responses/v1.0/alpha-model/RO-FOUL-001__r7.json: missing (this file is required); "
     "there is no response to grade for run 'r7'"),
    (("--subject", "alpha-model", "--case", "RO-MEMB-001", "--run", "r2", "--reviewer", "Rev_C"),
     "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-Rev_C.json: $.reviewer_id: 'Rev_C' does not match '^[a-z0-9][a-z0-9-]*$'"),
    (("--subject", "alpha-model", "--case", "RO-FOUL-001", "--run", "r1", "--reviewer", "rev-a"),
     "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json: already exists; it is never overwritten "
     "(before your pull request is merged, edit that file in it; once merged, a correction is a maintainer's "
     "pull request)"),
    (("--subject", "alpha-model", "--case", "RO-FOUL-001", "--run", "r1", "--reviewer", "rev-z"),
     "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json: already grades this run; v1.0 takes one scoring "
     "per run (another reviewer's grade is not yours to edit: grade another run, or a second grade with "
     "`make review` once `make assign` names you)"),
])
def test_new_scoring_refusals(bench, capsys, args, expected):
    before = {rel: (bench.root / rel).read_bytes() for rel in scoring_files(bench.root)}
    assert run_script("new-scoring", ["--root", str(bench.root), *args]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[0] == expected
    assert err.endswith("nothing was written.\n")
    assert {rel: (bench.root / rel).read_bytes() for rel in scoring_files(bench.root)} == before


def test_new_scoring_names_the_ids_left_empty(bench, capsys):
    # `make new-scoring SUBJECT=alpha-model CASE=RO-MEMB-001` passes "" for RUN and REVIEWER: it said
    # "scoring/v1.0/alpha-model/RO-MEMB-001____eval-.json: $.run_id: '' does not match ..."
    args = ["--subject", "alpha-model", "--case", "RO-MEMB-001", "--run", "", "--reviewer", ""]
    before = scoring_files(bench.root)
    assert run_script("new-scoring", ["--root", str(bench.root), *args]) == 1
    assert capsys.readouterr().err == (
        "--run: empty (give all four: make new-scoring SUBJECT=s CASE=c RUN=r REVIEWER=you)\n"
        "--reviewer: empty (give all four: make new-scoring SUBJECT=s CASE=c RUN=r REVIEWER=you)\n")
    assert scoring_files(bench.root) == before


def test_new_scoring_refuses_an_unregistered_reviewer(bench, capsys):
    # validate refuses the scoring of a reviewer not on record: say so before the grading, not after
    bench.write("subjects/reviewers.yaml", "reviewers:\n  - id: rev-c\n    name: \"C\"\n    kind: human\n"
                                           "  - id: rev-a\n    name: \"A\"\n    kind: human\n")
    args = ["--subject", "alpha-model", "--case", "RO-MEMB-001", "--run", "r2"]
    assert run_script("new-scoring", ["--root", str(bench.root), *args, "--reviewer", "rev-zed"]) == 1
    assert capsys.readouterr().err == (
        "subjects/reviewers.yaml: $.reviewer_id: 'rev-zed' is not registered in subjects/reviewers.yaml (registered: "
        "rev-a, rev-c); ask a maintainer to register the reviewer (a maintainer's change)\n"
        "1 problem(s) found; nothing was written.\n")
    assert not (bench.root / "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-zed.json").exists()
    assert run_script("new-scoring", ["--root", str(bench.root), *args, "--reviewer", "rev-c"]) == 0


def test_new_scoring_refuses_a_stale_response(bench, capsys):
    rel = "responses/v1.0/alpha-model/RO-MEMB-001__r2.json"
    bench.write(rel, canonical(bench.response_doc("alpha-model", "RO-MEMB-001", "r2", subject_version="1.9")))
    assert run_script("new-scoring", ["--root", str(bench.root), *TEMPLATE_ARGS]) == 1
    assert capsys.readouterr().err.startswith(
        f"{rel}: $.subject_version: '1.9' but the registry scores version '2.0'; a stale response is not graded\n")
    assert not (bench.root / TEMPLATE_REL).exists()


def test_new_scoring_never_overwrites_even_in_a_race(bench, monkeypatch):
    # The existence check passed, then someone else wrote the file: the link refuses, the file is kept.
    import rgbench.governance.write_once as write_once

    target = bench.root / TEMPLATE_REL
    real_link = write_once.os.link

    def link_after_a_rival(src, dst):
        Path(dst).write_text("rival\n")
        return real_link(src, dst)

    monkeypatch.setattr(write_once.os, "link", link_after_a_rival)
    assert run_script("new-scoring", ["--root", str(bench.root), *TEMPLATE_ARGS]) == 1
    assert target.read_text() == "rival\n"
    assert sorted(p.name for p in target.parent.iterdir() if p.name.startswith(".")) == []  # no temporary left


def test_make_new_scoring_target(tmp_path):
    repo, tree = toolkit_repo(tmp_path / "bench")
    done = repo.make("new-scoring", "SUBJECT=alpha-model", "CASE=RO-MEMB-001", "RUN=r2", "REVIEWER=rev-c")
    assert done.returncode == 0, done.stderr
    assert (repo.root / TEMPLATE_REL).exists()


# --- the same path on the shipped sample suite ------------------------------------------------

def sample_unscored_response() -> tuple[str, str, str] | None:
    """(subject, case, run) of a response of the sample suite that nobody graded yet, if any."""
    responses = sorted((REPO / "responses/v1.0").glob("*/*.json"))
    for path in responses:
        case_id, run_id = path.stem.split("__")
        if not list((REPO / "scoring/v1.0" / path.parent.name).glob(f"{case_id}__{run_id}__eval-*.json")):
            return path.parent.name, case_id, run_id
    return None


@pytest.mark.skipif(sample_unscored_response() is None, reason="the sample suite has no unscored response yet")
def test_reviewer_path_on_the_sample_suite(tmp_path):
    subject, case_id, run_id = sample_unscored_response()
    root = tmp_path / "bench"

    def sample_tree(root: Path):
        for name in ("system", "golds", "responses", "scoring", "subjects"):
            shutil.copytree(REPO / name, root / name)
        with open(root / "subjects/reviewers.yaml", "a", encoding="utf-8") as handle:  # a new reviewer registers
            handle.write('  - id: rev-test\n    name: "Test reviewer"\n    kind: human\n')
        return None

    repo, _ = toolkit_repo(root, tree_factory=sample_tree)
    metrics(repo)
    base = repo.commit("Sample suite")
    done = repo.run("new_scoring.py", "--subject", subject, "--case", case_id, "--run", run_id, "--reviewer", "rev-test")
    assert done.returncode == 0, done.stderr
    assert f"golds/v1.0/{case_id}_gold.md" in done.stdout
    rel = f"scoring/v1.0/{subject}/{case_id}__{run_id}__eval-rev-test.json"
    assert repo.run("validate.py", "--changed", base).returncode == 1
    fill(root / rel, raw=8, correctness=0.5)
    assert repo.run("validate.py", "--changed", base).returncode == 0
    metrics(repo)
    assert repo.make("check").returncode == 0
    repo.commit("Grade one sample response")
    done = repo.run("check_provenance.py", "--base", base)
    assert done.returncode == 0, done.stderr
    done = repo.run("results_diff.py", "--base", base)
    assert done.returncode == 0 and f"| {subject} |" in done.stdout
