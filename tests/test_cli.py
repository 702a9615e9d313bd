"""The scripts end to end on temporary trees: outputs, determinism, atomicity, check and fmt."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from treebuilder import REPO, canonical, small_tree

import rgbench.load.safe_read as safe_read
from rgbench.cli import run_script
from rgbench.commands import check as check_results

SCRIPTS = REPO / "scripts"
OUTPUTS = ("manifest.json", "metrics_per_family.csv", "metrics_per_subject.csv", "per_run.csv",
           "alpha_sensitivity.csv", "calibration_bins.csv", "metrics_per_difficulty.csv", "pairwise.csv", "pass_at_k.csv",
           # issue 15's tables
           "metrics_per_criterion.csv", "metrics_per_tag.csv", "metrics_per_case_type.csv", "metrics_advanced.csv",
           "cost_per_subject.csv", "human_baseline.csv", "run_metadata.csv", "cases.csv", "explorer_runs.csv",
           "rank_sets.csv", "rank_stability.csv", "difficulty_trend.csv")


def outputs(root: Path) -> dict[str, bytes]:
    return {name: (root / "results" / name).read_bytes() for name in OUTPUTS}


def core_columns(data: bytes, count: int) -> str:
    """The first ``count`` columns of every line (the files have no quoted commas)."""
    return "".join(",".join(line.split(",")[:count]) + "\n" for line in data.decode().splitlines())


def run_file(script: str, *args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPTS / script), *args], capture_output=True, text=True,
                          env=env, cwd=cwd)


def test_small_tree_end_to_end(tmp_path):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    out = outputs(root)
    # alpha-model: runs at confidence 90/70/30, correctness 1/0.5/0, clipped 12/10/8 (12 clipped to ceiling 10
    # on the Ambiguous case), classes Pass/Pass/Conditional; its r2 on RO-MEMB-001 is unscored.
    #   P = 2/3; s_bar = 30/3 = 10; BS = (0.01 + 0.04 + 0.09)/3 = 0.046667; ECE = (0.1 + 0.2 + 0.3)/3 = 0.2;
    #   Q = 0.5*2/3 + 0.5*10/12 = 0.333333 + 0.416667 = 0.75.
    # beta-model: a critical fail at confidence 100 (correct 0) and raw 5 at confidence 0 (correct 0).
    #   P = 0; s_bar = (11 + 5)/2 = 8; BS = (1 + 0)/2 = 0.5; ECE = (|1-0| + |0-0|)/2 = 0.5; Q = 0 + 0.5*8/12 = 0.333333.
    # The core columns come first, unchanged; the statistics columns after them are tested in test_stats_cli.py.
    assert core_columns(out["metrics_per_subject.csv"], 12) == (
        "subject_id,subject_version,N,n_unscored,P,s_bar,BS,ECE,Q_final,alpha,disqualified,n_critical\n"
        "alpha-model,2.0,3,1,0.666667,10.000000,0.046667,0.200000,0.750000,0.500000,false,0\n"
        "beta-model,1.1,2,0,0.000000,8.000000,0.500000,0.500000,0.333333,0.500000,true,1\n"
    )
    assert out["per_run.csv"].decode().splitlines()[:4] == [
        "subject_id,subject_version,case_id,run_id,reviewer_id,family,raw_score,rubric_floor,rubric_ceiling,"
        "clipped_score,has_critical_fail,has_recoverable_fail,classification,reported_confidence,confidence_unit,correctness",
        "alpha-model,2.0,RO-FOUL-001,r1,rev-a,FOUL,12,4,12,12,false,false,Pass,90,0.900000,1.000000",
        "alpha-model,2.0,RO-MEMB-001,r1,rev-b,MEMB,8,6,12,8,false,false,Conditional,30,0.300000,0.000000",
        "alpha-model,2.0,RO-SCAL-001,r1,rev-a,SCAL,12,3,10,10,false,false,Pass,70,0.700000,0.500000",
    ]
    assert core_columns(out["metrics_per_family.csv"], 6) == (
        "subject_id,subject_version,family,n_family,P_family,s_bar_family\n"
        "alpha-model,2.0,FOUL,1,1.000000,12.000000\n"
        "alpha-model,2.0,MEMB,1,0.000000,8.000000\n"
        "alpha-model,2.0,SCAL,1,1.000000,10.000000\n"
        "beta-model,1.1,FOUL,1,0.000000,11.000000\n"
        "beta-model,1.1,SCAL,1,0.000000,5.000000\n"
    )
    for data in out.values():
        assert b"\r" not in data and data.endswith(b"\n")
    manifest = json.loads(out["manifest.json"])
    assert manifest["alpha"] == "0.500000" and manifest["benchmark_version"] == "1.0"
    assert manifest["counts"] == {"golds": 3, "responses": 6, "scorings": 5, "scored_runs": 5, "subjects": 2,
                                  "unscored_responses": 1}
    assert "subjects/registry.yaml" in manifest["inputs"] and "system/benchmark.yaml" in manifest["inputs"]
    assert all(not os.path.isabs(path) for path in manifest["inputs"])
    assert str(tmp_path) not in out["manifest.json"].decode()


def test_subject_without_scored_runs_keeps_its_row(tmp_path):
    tree = small_tree(tmp_path / "tree")
    tree.add_subject("gamma-model", "0.1")
    tree.add_response("gamma-model", "RO-FOUL-001", "r1", 40)
    tree.add_response("gamma-model", "RO-FOUL-001", "r2", 40)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    rows = (tree.root / "results/metrics_per_subject.csv").read_text().splitlines()
    # statistics empty, n_cases 0, all 3 cases of the benchmark missing, corrected Brier empty
    assert rows[-1] == ("gamma-model,0.1,0,2,,,,,,0.500000,false,0" + ",," * 7 + ",,0"
                        + ",3,RO-FOUL-001 RO-MEMB-001 RO-SCAL-001" + "," * 3 + ",0")  # ... n_errors 0
    families = (tree.root / "results/metrics_per_family.csv").read_text()
    assert "gamma-model" not in families  # no row for n_family = 0


def test_alpha_override_is_exact_and_recorded(tmp_path):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root), "--alpha", "0.3"]) == 0
    rows = (root / "results/metrics_per_subject.csv").read_text().splitlines()
    # alpha-model: 0.3 * 2/3 + 0.7 * 10/12 = 0.2 + 0.583333 = 0.783333
    assert rows[1].split(",")[8:10] == ["0.783333", "0.300000"]
    assert json.loads((root / "results/manifest.json").read_text())["alpha"] == "0.300000"


def test_same_bytes_whatever_the_enumeration_order(tmp_path, monkeypatch):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    reference = outputs(root)
    real_scandir = os.scandir
    rng = random.Random(7)

    class ShuffledScandir:
        def __init__(self, path):
            self.entries = list(real_scandir(path))
            rng.shuffle(self.entries)

        def __enter__(self):
            return iter(self.entries)

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(safe_read.os, "scandir", ShuffledScandir)
    for _ in range(3):
        assert run_script("compute", ["--root", str(root)]) == 0
        assert outputs(root) == reference


def test_same_bytes_in_another_place_with_another_hash_seed_locale_and_time_zone(tmp_path):
    first = small_tree(tmp_path / "one").root
    assert run_file("compute_metrics.py", "--root", str(first)).returncode == 0
    second = tmp_path / "elsewhere" / "deeper" / "copy"
    shutil.copytree(first, second)
    shutil.rmtree(second / "results")
    env = dict(os.environ, PYTHONHASHSEED="12345", TZ="Pacific/Kiritimati", LC_ALL="C", LANG="C")
    done = run_file("compute_metrics.py", "--root", str(second), env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert outputs(second) == outputs(first)


def test_a_failed_write_leaves_previous_results_intact(tmp_path, monkeypatch):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    before = outputs(root)
    (root / "responses/v1.0/alpha-model/RO-MEMB-001__r2.json").unlink()  # a real change of input
    import rgbench.atomic as atomic

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", crash)
    assert run_script("compute", ["--root", str(root)]) == 1  # reported as `path: cannot be written`, no traceback
    assert outputs(root) == before
    assert sorted(p.name for p in (root / "results").iterdir()) == sorted(OUTPUTS)  # no temporary files left


@pytest.mark.slow   # end to end: make test-slow (CI runs it)
def test_help_of_every_script():
    for script in ("compute_metrics.py", "validate.py", "check_results.py", "fmt_json.py"):
        done = run_file(script, "--help")
        assert done.returncode == 0 and "usage:" in done.stdout, script


def test_root_that_is_not_a_directory(tmp_path, capsys):
    status = run_script("compute", ["--root", str(tmp_path / "nowhere")])   # compute_metrics.py, in this process
    err = capsys.readouterr().err
    assert status == 1 and "not a directory" in err and "Traceback" not in err


# --- make check ---------------------------------------------------------------

@pytest.mark.slow   # end to end: make test-slow (CI runs it)
def test_check_passes_on_fresh_results_and_names_stale_files(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert check_results.run_steps(root) == 0  # make metrics, as make check runs it
    (root / "results/README.md").write_text("documentation is not generated\n")
    assert run_script("check", ["--root", str(root)]) == 0
    capsys.readouterr()
    # A reviewer adds a scoring but does not regenerate the results.
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b", raw=4, correctness=0)
    assert run_script("check", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    for name in OUTPUTS[:4]:  # the core files all move; a statistic (e.g. pairwise.csv here) need not
        assert f"results/{name}: differs from what the inputs in this tree produce" in err
    # the manifest's message names the input that moved: the subject folder of the new grade
    assert ("results/manifest.json: differs from what the inputs in this tree produce (run `make metrics` and commit "
            "it); inputs changed since it was written: scoring/v1.0/alpha-model/ (changed)\n") in err
    # A hand-made file in results/ is named too; a missing one as well.
    assert check_results.run_steps(root) == 0
    (root / "results/extra.csv").write_text("x\n")
    (root / "results/per_run.csv").unlink()
    assert run_script("check", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "results/extra.csv: no step produces it (delete it)" in err
    assert "results/per_run.csv: missing from results/ (run `make metrics` and commit it)" in err


def test_check_reports_invalid_inputs(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    (tree.root / "responses/v1.0/alpha-model/RO-FOUL-001__r1.json").write_text("{")
    assert run_script("check", ["--root", str(tree.root)]) == 1
    assert "responses/v1.0/alpha-model/RO-FOUL-001__r1.json: invalid JSON" in capsys.readouterr().err


# --- make fmt -----------------------------------------------------------------

def test_fmt_rewrites_to_canonical_form_without_changing_content(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    rel = "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"
    document = json.loads((tree.root / rel).read_text())
    (tree.root / rel).write_text(json.dumps(document, indent=4, ensure_ascii=True), encoding="utf-8")
    assert run_script("fmt", ["--root", str(tree.root), "--check"]) == 1
    assert f"{rel}: not canonical" in capsys.readouterr().out
    assert run_script("fmt", ["--root", str(tree.root)]) == 0
    assert (tree.root / rel).read_text() == canonical(document)
    assert run_script("fmt", ["--root", str(tree.root), "--check"]) == 0


def test_fmt_leaves_unparsable_files_alone(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    rel = "responses/v1.0/beta-model/RO-SCAL-001__r1.json"
    (tree.root / rel).write_text('{"a": 1, "a": 2}')
    assert run_script("fmt", ["--root", str(tree.root)]) == 1
    assert (tree.root / rel).read_text() == '{"a": 1, "a": 2}'
    assert f"{rel}: invalid JSON: duplicate key 'a'" in capsys.readouterr().err


def test_input_digest_can_be_recomputed_with_shell_tools(tmp_path):
    # results/README.md documents these commands; they must give the manifest's digests (its inputs record a
    # digest per subject folder of responses/ and scoring/, one per other file).
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    manifest = json.loads((root / "results/manifest.json").read_text())
    assert "scoring/v1.0/alpha-model/" in manifest["inputs"] and "golds/v1.0/RO-FOUL-001_gold.md" in manifest["inputs"]
    assert not any(key.startswith(("responses/", "scoring/")) and not key.endswith("/") for key in manifest["inputs"])
    readme = (REPO / "results/README.md").read_text()
    folder = "find scoring/v1.0/<subject_id> -type f ! -name .gitkeep | LC_ALL=C sort | xargs sha256sum | sha256sum"
    whole = ('{ find system golds subjects/registry.yaml subjects/reviewers.yaml -type f ! -name .gitkeep 2>/dev/null'
             ' | LC_ALL=C sort | xargs -r sha256sum; for d in responses/*/* scoring/*/*; do echo "$(find "$d" -type f'
             ' ! -name .gitkeep | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-64)  $d/"; done; }'
             ' | LC_ALL=C sort -k2 | sha256sum')
    assert folder in readme and whole in readme
    for command, expected in ((folder.replace("<subject_id>", "alpha-model"), "scoring/v1.0/alpha-model/"),
                              (whole, None)):
        done = subprocess.run(command, shell=True, cwd=root, capture_output=True, text=True, check=True)
        digest = manifest["inputs"][expected] if expected else manifest["input_digest"]
        assert done.stdout.split()[0] == digest


def test_the_compute_phase_keeps_blas_to_one_thread():
    from threadpoolctl import threadpool_info

    from rgbench.commands.common import one_blas_thread
    with one_blas_thread():
        blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
        assert blas and all(lib["num_threads"] == 1 for lib in blas)   # numpy's BLAS is found, and limited
