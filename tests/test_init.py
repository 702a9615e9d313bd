"""`rgbench init DIR`: a new benchmark repository in which `make metrics` and `make test` pass at once.

The new repository's Makefile runs `$(PY) -m rgbench`; here PY is this interpreter and PYTHONPATH this
checkout's scripts/ (an adopter's .venv gets the pinned rgbench from requirements.txt instead), so no
network is needed.

Run as a script (`python tests/test_init.py`) to rewrite the template's review workflow from
.github/workflows/review.yml after a change there.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from treebuilder import REPO

from rgbench import __version__
from rgbench.cli import COMMANDS, main
from rgbench.template import TEMPLATE_DIR, template_files

WORKFLOW = ".github/workflows/review.yml"
HEADER = ("# Written by `rgbench init` from the toolkit's own review workflow: the judge is the rgbench that\n"
          "# the BASE branch's requirements.txt pins, installed into judge/.venv.\n")


def adopted_workflow(text: str) -> str:
    """The toolkit's review workflow as an adopter's repository runs it: each `judge/scripts/NAME.py` becomes
    the `rgbench` subcommand that runs NAME.py, from judge/.venv (the pinned toolkit)."""
    command_of = {c.script: name for name, c in COMMANDS.items()}
    text = re.sub(r"judge/\.venv/bin/python judge/scripts/([a-z_]+\.py)",
                  lambda m: f"judge/.venv/bin/rgbench {command_of[m.group(1)]}", text)
    text = text.replace("tests/test_governance_workflow.py", "the toolkit's tests/test_governance_workflow.py")
    text = text.replace("every script that runs is judge/scripts/", "every command that runs is the judge's pinned rgbench")
    return HEADER + text


def make(root: Path, target: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "scripts")}
    return subprocess.run(["make", "--no-print-directory", "-C", str(root), target, f"PY={sys.executable}"],
                          capture_output=True, text=True, env=env)


def test_init_then_make_metrics_and_make_test_pass_and_catch_stale_results(tmp_path, capsys):
    root = tmp_path / "new-bench"
    assert main(["init", str(root)]) == 0
    assert "make metrics && make test" in capsys.readouterr().out
    for rel in ("system/benchmark.yaml", "system/rubric/v1.0/automatic_fails.yaml", "system/metrics/v1.0/config.yaml",
                "golds/v1.0/EX-DEMO-001_gold.md", "subjects/registry.yaml", "subjects/reviewers.yaml", "Makefile",
                ".ci/run", WORKFLOW,
                ".github/workflows/tests.yml", ".github/CODEOWNERS", "README.md", "requirements.txt",
                "tests/test_benchmark.py"):
        assert (root / rel).is_file(), rel
    assert os.access(root / ".ci/run", os.X_OK)
    assert [p.name for p in (root / "responses/v1.0").iterdir()] == [".gitkeep"]
    done = make(root, "metrics")
    assert done.returncode == 0, done.stderr
    assert (root / "results/leaderboard.md").read_text() in (root / "README.md").read_text()
    done = make(root, "test")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^5 passed", done.stdout, flags=re.M), done.stdout
    gold = root / "golds/v1.0/EX-DEMO-001_gold.md"
    gold.write_text(gold.read_text().replace('"difficulty": 1', '"difficulty": 2'))  # an input changes: results stale
    done = make(root, "test")
    assert done.returncode != 0 and "differs from what the inputs in this tree produce" in done.stdout + done.stderr


def test_init_refuses_a_folder_that_is_not_empty_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine\n")
    assert main(["init", str(tmp_path / "taken")]) == 1
    assert capsys.readouterr().err == (f"{tmp_path / 'taken'}: exists and is not an empty folder (rgbench init writes a "
                                       "new repository: name a new or empty folder)\n")
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]  # no staging folder left behind
    (tmp_path / "empty").mkdir()
    assert main(["init", str(tmp_path / "empty")]) == 0  # an empty folder is filled in
    assert (tmp_path / "empty/system/benchmark.yaml").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "taken"]


def test_init_under_a_file_or_on_a_failing_disk_is_refused_without_a_traceback(tmp_path, capsys, monkeypatch):
    (tmp_path / "notes.txt").write_text("mine\n")
    target = tmp_path / "notes.txt" / "bench"
    assert main(["init", str(target)]) == 1
    assert capsys.readouterr().err == f"{target}: {tmp_path / 'notes.txt'} is a file, not a folder (choose DIR inside a folder)\n"

    def full_disk(path, data):
        if path.name == "config.yaml":  # after a few files were written
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real_write(path, data)

    real_write = Path.write_bytes
    monkeypatch.setattr(Path, "write_bytes", full_disk)
    assert main(["init", str(tmp_path / "new" / "deeper" / "bench")]) == 1
    assert capsys.readouterr().err == (f"{tmp_path / 'new/deeper/bench'}: cannot be written: No space left on device "
                                       "(free some disk space, then run again; nothing was written)\n")
    # no staging folder, no half repository, not even the parent folders init created
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def full_disk_at(name: str, also=lambda: None):
    """A Path.write_bytes that fails with ENOSPC at the file ``name`` (after ``also()``), after writing others."""
    real_write = Path.write_bytes

    def write(path, data):
        if path.name == name:
            also()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real_write(path, data)
    return write


def test_init_into_an_empty_folder_is_atomic_and_a_rerun_works(tmp_path, capsys, monkeypatch):
    """issue 24: a failure half-way used to leave the empty folder half filled and a hidden copy beside it, and the
    rerun was refused ("not an empty folder"). Now the folder is as it was, nothing is beside it, the message says
    so, and the rerun writes the repository."""
    target = tmp_path / "bench"
    target.mkdir()
    target.chmod(0o750)
    with monkeypatch.context() as patch:
        patch.setattr(Path, "write_bytes", full_disk_at("config.yaml"))
        assert main(["init", str(target)]) == 1
    assert capsys.readouterr().err == (f"{target}: cannot be written: No space left on device (free some disk "
                                       "space, then run again; nothing was written)\n")
    assert [p.name for p in tmp_path.iterdir()] == ["bench"] and list(target.iterdir()) == []
    assert main(["init", str(target)]) == 0
    assert (target / "system/metrics/v1.0/config.yaml").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["bench"]  # no hidden copy
    assert stat.S_IMODE(target.stat().st_mode) == 0o750     # the empty folder's mode is kept
    assert stat.S_IMODE((target / ".ci/run").stat().st_mode) & 0o100


def test_init_into_an_empty_folder_undoes_every_move_when_one_fails(tmp_path, capsys, monkeypatch):
    """Into an existing folder the top-level entries are renamed up from a staging folder inside it; a rename
    refused half-way (here the fourth) takes back the ones already moved: the folder is empty again."""
    target = tmp_path / "bench"
    target.mkdir()
    real_rename, done = os.rename, []

    def fourth_fails(src, dst):
        if len(done) == 3 and Path(dst).parent == target:
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
        done.append(dst)
        return real_rename(src, dst)
    monkeypatch.setattr(os, "rename", fourth_fails)
    assert main(["init", str(target)]) == 1
    assert capsys.readouterr().err == (f"{target}: cannot be written: Input/output error (fix the folder, then run "
                                       "again; nothing was written)\n")
    assert [p.name for p in tmp_path.iterdir()] == ["bench"] and list(target.iterdir()) == []


def test_init_after_a_killed_init_and_into_the_current_folder(tmp_path, capsys, monkeypatch):
    """A kill while the files are written leaves only the staging folder inside the empty folder: it still
    counts as empty and the rerun removes it. `rgbench init .` keeps the folder the shell is in (the files
    appear in it, not in a new folder that replaced it)."""
    target = tmp_path / "bench"
    (target / ".rgbench-init-k1ll3d" / "system").mkdir(parents=True)
    (target / ".rgbench-init-k1ll3d" / "system" / "benchmark.yaml").write_text("half\n")
    monkeypatch.chdir(target)
    inode = os.stat(".").st_ino
    assert main(["init", "."]) == 0
    assert os.stat(".").st_ino == inode and Path("system/benchmark.yaml").is_file()
    assert not list(target.glob(".rgbench-init-*"))
    capsys.readouterr()
    (tmp_path / "other").mkdir()  # a link of that name is no leftover: the folder is not empty
    (tmp_path / "other" / ".rgbench-init-decoy").symlink_to(tmp_path)
    assert main(["init", str(tmp_path / "other")]) == 1
    assert "exists and is not an empty folder" in capsys.readouterr().err


def test_init_on_a_read_only_disk_gives_the_message(tmp_path, capsys, monkeypatch):
    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(tmp_path))
    monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    assert main(["init", str(tmp_path / "bench")]) == 1
    assert capsys.readouterr().err == (f"{tmp_path / 'bench'}: cannot be written: Read-only file system (make the "
                                       "folder writable, then run again; nothing was written)\n")
    assert list(tmp_path.iterdir()) == []


def test_init_follows_links_among_the_parents_and_refuses_a_link_as_dir(tmp_path, capsys):
    """What is safe: DIR under a folder reached through a link (the link is resolved: the repository is written
    where the link points, as for any path). What is refused, writing nothing: DIR itself a link (to an empty
    folder, a file or nothing), and a parent that is a link to nothing (init would create folders where it points)."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "via").symlink_to(real, target_is_directory=True)
    assert main(["init", str(tmp_path / "via" / "bench")]) == 0
    assert (real / "bench/system/benchmark.yaml").is_file()
    assert sorted(p.name for p in real.iterdir()) == ["bench"]
    capsys.readouterr()

    (tmp_path / "empty").mkdir()
    cases = {"to-empty": tmp_path / "empty", "to-nothing": tmp_path / "missing", "to-file": tmp_path / "notes.txt"}
    (tmp_path / "notes.txt").write_text("mine\n")
    for name, points_to in cases.items():
        (tmp_path / name).symlink_to(points_to)
        assert main(["init", str(tmp_path / name)]) == 1
        assert capsys.readouterr().err == (f"{tmp_path / name}: is a symbolic link (rgbench init writes a real folder: "
                                           "name the folder it points to, or a new path)\n")
    assert list((tmp_path / "empty").iterdir()) == [] and not (tmp_path / "missing").exists()

    (tmp_path / "gone").symlink_to(tmp_path / "nowhere", target_is_directory=True)
    assert main(["init", str(tmp_path / "gone" / "bench")]) == 1
    assert capsys.readouterr().err == (f"{tmp_path / 'gone/bench'}: {tmp_path / 'gone'} is a symbolic link to nothing "
                                       "(choose DIR inside a folder that exists)\n")
    assert not (tmp_path / "nowhere").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*cases, "empty", "gone", "notes.txt", "real", "via"])


def test_requirement_pins_this_toolkit_or_what_is_asked(tmp_path):
    files = template_files()
    assert f"\nrgbench=={__version__}\n" in files["requirements.txt"].decode()
    assert not any(b"@RGBENCH_" in data for data in files.values())
    wheel = "rgbench @ file:///opt/wheels/rgbench-0.1.0-py3-none-any.whl"
    assert main(["init", str(tmp_path / "b"), "--requirement", wheel]) == 0
    assert (tmp_path / "b/requirements.txt").read_text().endswith(f"\n{wheel}\n")
    assert main(["init", str(tmp_path / "c"), "--requirement", "a\nb"]) == 1


def init_tree_with_graded_runs(root: Path) -> None:
    """A new repository with one subject of a kind it declares (system), and two runs of the example case:
    r1 graded by the template's example reviewer (human), r2 by a registered LLM judge; plus a third grade,
    in scoring_multi/, by the judge on r1."""
    import hashlib
    import json

    from rgbench.load.spec import load_spec

    assert main(["init", str(root)]) == 0
    schema = root / "system/schemas/v1.0/registry.schema.json"
    schema.write_text(schema.read_text().replace('"human"\n', '"human",\n              "system"\n'))
    (root / "subjects/registry.yaml").write_text(
        'subjects:\n  - subject_id: "mt-2021"\n    subject_version: "2021-06-01"\n    kind: "system"\n')
    reviewers = root / "subjects/reviewers.yaml"
    reviewers.write_text(reviewers.read_text() + "  - id: judge-example\n    name: Example judge\n    kind: llm-judge\n")
    spec, problems = load_spec(root)
    assert spec is not None, problems
    gold = (root / "golds/v1.0/EX-DEMO-001_gold.md").read_bytes()

    def dump(rel: str, document: dict) -> bytes:
        data = (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
        return data

    head = {"schema_version": "1.0", "subject_id": "mt-2021", "subject_version": "2021-06-01", "case_id": "EX-DEMO-001"}
    for run, reviewer, folder in (("r1", "rev-example", "scoring"), ("r2", "judge-example", "scoring"),
                                  ("r1", "judge-example", "scoring_multi")):
        response = dump(f"responses/v1.0/mt-2021/EX-DEMO-001__{run}.json",
                        {**head, "run_id": run, "confidence": 80, "response_text": "7: it is prime."})
        dump(f"{folder}/v1.0/mt-2021/EX-DEMO-001__{run}__eval-{reviewer}.json",
             {**head, "run_id": run, "reviewer_id": reviewer, "criterion_scores": dict.fromkeys(spec.criteria, 2),
              "automatic_fails_triggered": [], "correctness": 1, "response_sha256": hashlib.sha256(response).hexdigest(),
              "gold_sha256": hashlib.sha256(gold).hexdigest()})


def test_init_registers_reviewers_so_judge_grades_never_count_as_human(tmp_path, capsys):
    # The new repository holds a reviewers registry from the start: its example scorings name a registered
    # reviewer, the judge's grades stay out of the board unless config.yaml says otherwise, and a grade by
    # anyone unregistered is refused. Its subject is of a kind the registry schema declares (system).
    # And a grade given on the grading page (the README's step 3) saves and counts: the page wrote `blind` into
    # every grade while this schema did not list it, so on a new benchmark no grade saved (until 2026-12-06).
    import csv
    import json

    from rgbench.commands.review import open_app

    root = tmp_path / "b"
    init_tree_with_graded_runs(root)
    head = {"schema_version": "1.0", "subject_id": "mt-2021", "subject_version": "2021-06-01", "case_id": "EX-DEMO-001"}
    (root / "responses/v1.0/mt-2021/EX-DEMO-001__r3.json").write_text(
        json.dumps({**head, "run_id": "r3", "confidence": 40, "response_text": "9: it is odd."}, indent=2) + "\n")
    app, problems = open_app(root, "rev-example")
    assert app is not None, problems
    run = next(r for r in app.queue() if r.key == ("mt-2021", "EX-DEMO-001", "r3"))
    status, answer = app.save({"handle": run.handle, "criterion_scores": dict.fromkeys(app.spec.criteria, "1"),
                               "correctness": "0", "fails": [], "comments": "", "filters": ""})
    assert status == 200, answer
    saved = json.loads((root / "scoring/v1.0/mt-2021/EX-DEMO-001__r3__eval-rev-example.json").read_text())
    assert saved["blind"] is True and saved["criterion_scores"] == dict.fromkeys(app.spec.criteria, 1)
    assert main(["metrics", "--root", str(root)]) == 0
    with open(root / "results/per_run.csv", newline="") as handle:
        runs = [(row["run_id"], row["reviewer_id"]) for row in csv.DictReader(handle)]
    assert runs == [("r1", "rev-example"), ("r3", "rev-example")]  # r2, graded by the judge alone, is not on the board
    with open(root / "results/reviewers.csv", newline="") as handle:
        kinds = {(row["reviewer_id"], row["kind"]) for row in csv.DictReader(handle)}
    assert kinds == {("rev-example", "human"), ("judge-example", "llm-judge")}
    with open(root / "results/judge_agreement.csv", newline="") as handle:  # the judge, against the human grade
        assert {row["judge_id"] for row in csv.DictReader(handle)} == {"judge-example"}
    board = (root / "results/leaderboard.html").read_text()
    assert '<span class="tag">system</span>' in board and '<option value="system">system</option>' in board
    assert ",system," in (root / "results/leaderboard.csv").read_text()
    config = root / "system/metrics/v1.0/config.yaml"
    config.write_text(config.read_text().replace("llm_judge_in_metrics: false", "llm_judge_in_metrics: true"))
    assert main(["metrics", "--root", str(root)]) == 0
    with open(root / "results/per_run.csv", newline="") as handle:
        assert [(row["run_id"], row["reviewer_id"]) for row in csv.DictReader(handle)] == [
            ("r1", "rev-example"), ("r2", "judge-example"), ("r3", "rev-example")]
    capsys.readouterr()
    stray = root / "scoring/v1.0/mt-2021/EX-DEMO-001__r2__eval-judge-example.json"
    stray.with_name("EX-DEMO-001__r2__eval-rev-nobody.json").write_text(stray.read_text().replace("judge-example", "rev-nobody"))
    stray.unlink()
    assert main(["validate", "--root", str(root)]) == 1
    assert "'rev-nobody' is not registered in subjects/reviewers.yaml (registered: judge-example, rev-example)" in (
        capsys.readouterr().err)


def test_template_config_shows_every_key_the_toolkit_reads_at_its_default(tmp_path):
    # An adopter learns the settings from the file `rgbench init` writes: each key is there, with the value a
    # missing key takes, so the written file and an empty one compute the same.
    from rgbench.load.config import StatsConfig
    from rgbench.load.spec import load_spec
    from rgbench.load.validation import toolkit_schema

    config = yaml.safe_load(template_files()["system/metrics/v1.0/config.yaml"])
    # judge has no default: it is refused unless estimation is judge-assisted
    assert set(config) == set(toolkit_schema("config").schema["properties"]) - {"judge"}
    assert main(["init", str(tmp_path / "b")]) == 0
    spec, problems = load_spec(tmp_path / "b")
    assert problems == [] and spec is not None and spec.stats == StatsConfig() and not spec.llm_judge_in_metrics


def test_template_review_workflow_is_the_toolkits_own_adopted():
    expected = adopted_workflow((REPO / WORKFLOW).read_text(encoding="utf-8"))
    assert (TEMPLATE_DIR / WORKFLOW).read_text(encoding="utf-8") == expected, "run: python tests/test_init.py"
    assert "judge/scripts/" not in expected


def test_template_tests_workflow_proves_what_the_judge_leaves_to_it():
    # The judge skips `make check` on a pull request that changes requirements.txt (a toolkit upgrade) and says
    # tests.yml proves it: the new repository has that workflow, running .ci/run with the pull request's pins.
    assert "tests.yml proves its results with its own code" in (TEMPLATE_DIR / WORKFLOW).read_text(encoding="utf-8")
    tests = yaml.safe_load((TEMPLATE_DIR / ".github/workflows/tests.yml").read_text(encoding="utf-8"))
    assert list(tests[True]) == ["pull_request"] and tests["permissions"] == {"contents": "read"}  # YAML 1.1: on
    steps = tests["jobs"]["tests"]["steps"]
    assert [step["run"] for step in steps if "run" in step] == [".ci/run"]
    toolkit = yaml.safe_load((REPO / ".github/workflows/tests.yml").read_text(encoding="utf-8"))
    pinned = [step["uses"] for step in toolkit["jobs"]["tests"]["steps"] if "uses" in step]
    assert [step["uses"] for step in steps if "uses" in step] == pinned  # the toolkit's actions, by commit SHA
    assert steps[0]["with"]["persist-credentials"] is False


def test_template_makefile_has_a_target_for_every_command_a_benchmark_runs():
    # The README's `make review` and `make assign` (and every other command's target) work in a new repository too.
    makefile = (TEMPLATE_DIR / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"(?m)^([a-z-]+):", makefile))
    assert sorted(set(COMMANDS) - {"init", "compute", "drift"} - targets) == []   # drift: a CSV on demand


def test_template_test_pins_are_the_toolkits():
    ours = set((REPO / "requirements-dev.txt").read_text().splitlines())
    pins = [line for line in (TEMPLATE_DIR / "requirements-dev.txt").read_text().splitlines() if "==" in line]
    assert pins and [pin for pin in pins if pin not in ours] == []


if __name__ == "__main__":
    (TEMPLATE_DIR / WORKFLOW).write_text(adopted_workflow((REPO / WORKFLOW).read_text(encoding="utf-8")), encoding="utf-8")
    print(f"rewrote {TEMPLATE_DIR / WORKFLOW}")

