"""Judge-assisted mode's inputs (issue 28, part 2): config.yaml's estimation and judge with their refusals, and
subjects/human_draws.json read by rgbench.load.draws (absent, bad JSON, each schema error, an unknown run, a
probability 0 / above 1 / not a fraction, a judge mismatch, the canonical bytes)."""

from __future__ import annotations

import json
import re
import shutil
from fractions import Fraction as F
from pathlib import Path

import make_synthetic
import pytest

from rgbench.load.draws import DRAWS_FILE, Covered, Draw, DrawnRun, HumanDraws, draws_document, read_draws
from rgbench.load.loader import load_tree
from rgbench.load.spec import load_spec
from rgbench.problems import Problem

CONFIG = "system/metrics/v1.0/config.yaml"
REGENERATE = "(the toolkit writes this file: rgbench assign; a draw is never edited by hand)"
JUDGE = make_synthetic.JUDGE_ID


def set_config(root: Path, **keys: object) -> None:
    """Set config.yaml keys (the line replaced when the key is there, else appended; None removes it)."""
    path = root / CONFIG
    lines = path.read_text(encoding="utf-8").splitlines()
    for key, value in keys.items():
        lines = [line for line in lines if not re.match(rf"{key}\s*:", line)]
        if value is not None:
            lines.append(f"{key}: {json.dumps(value) if not isinstance(value, str) else value}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A synthetic tree: 2 subjects x 6 cases x 2 runs graded by humans in scoring/, the judge grading every run
    in scoring_multi/, config.yaml in judge-assisted mode."""
    out = tmp_path_factory.mktemp("judged") / "tree"
    assert make_synthetic.main(["--subjects", "2", "--cases", "6", "--runs", "2", "--out", str(out),
                                "--judge"]) == 0
    set_config(out, estimation="judge-assisted", judge=JUDGE)
    return out


@pytest.fixture
def judged(built: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built, tmp_path / "tree"))


def problems_of(root: Path) -> list[str]:
    spec, problems = load_spec(root)
    if spec is not None:
        _, problems = load_tree(root, spec, llm_judges=True)
    return [str(p) for p in problems]


# --- config.yaml: estimation and judge ----------------------------------------------------------------------

def test_the_spec_reads_estimation_and_judge_and_human_is_the_default(judged):
    spec, _ = load_spec(judged)
    assert spec is not None and spec.estimation == "judge-assisted" and spec.judge == JUDGE and spec.judge_assisted
    set_config(judged, estimation=None, judge=None)
    spec, _ = load_spec(judged)
    assert spec is not None and spec.estimation == "human" and spec.judge == "" and not spec.judge_assisted


@pytest.mark.parametrize(("keys", "message"), [
    ({"estimation": "judged"}, "$.estimation: must be human or judge-assisted, got 'judged'"),
    ({"judge": 7}, "$.judge: must be the id of the llm-judge reviewer in subjects/reviewers.yaml, got 7"),
    ({"judge": None}, "$.judge: missing: estimation judge-assisted needs the id of the llm-judge reviewer that "
                      "grades every run (add judge: <id> from subjects/reviewers.yaml)"),
    ({"estimation": "human"}, f"$.judge: set to '{JUDGE}', but estimation is human (remove judge, or set "
                              "estimation: judge-assisted)"),
    ({"estimation": None}, f"$.judge: set to '{JUDGE}', but estimation is human"),
    ({"llm_judge_in_metrics": True}, "$.llm_judge_in_metrics: true with estimation judge-assisted would count the "
                                     "judge's grades twice, as the judge's and as human ones (set it to false or "
                                     "remove it)"),
])
def test_config_refusals(judged, keys, message):
    set_config(judged, **keys)
    spec, problems = load_spec(judged)
    assert spec is None and any(str(p).startswith(f"{CONFIG}: {message}") for p in problems), problems


def test_the_judge_must_be_a_registered_llm_judge(judged):
    set_config(judged, judge="rev-1")   # registered, but human
    assert problems_of(judged) == [
        f"{CONFIG}: $.judge: 'rev-1' is not registered in subjects/reviewers.yaml as an llm-judge (registered "
        f"llm-judges: {JUDGE}; register it there with kind: llm-judge, or name one of them)"]
    set_config(judged, judge="nobody")
    assert problems_of(judged)[0].startswith(f"{CONFIG}: $.judge: 'nobody' is not registered")
    set_config(judged, judge=JUDGE)
    assert problems_of(judged) == []


# --- subjects/human_draws.json ----------------------------------------------------------------------------

def runs_of(root: Path) -> list[tuple[str, str, str]]:
    """The tree's run keys, from the names of its responses (responses/v1.0/<subject>/<case>__<run>.json)."""
    return sorted((p.parent.name, *p.stem.split("__")) for p in (root / "responses").rglob("*.json"))


DIGEST = "0" * 64   # a judge digest of the right form (the loader does not recompute it: rgbench validate does)


def population(keys: list[tuple[str, str, str]]) -> dict:
    """The ``population`` of a draw over the runs ``keys`` (one subject)."""
    return {keys[0][0]: {"judge_digest": DIGEST, "runs": [f"{k[1]}/{k[2]}" for k in keys]}}


def a_document(root: Path) -> dict:
    """Two draws over the tree's first subject (a valid file): draw 1 stratified over its first 6 runs, π 1/4 and
    1/2 (Σ 1/π = 4 + 2 = 6, its population), draw 2 active over its every run."""
    keys = runs_of(root)
    first = [k for k in keys if k[0] == keys[0][0]]
    run = lambda key, p, **extra: {"subject_id": key[0], "case_id": key[1], "run_id": key[2],  # noqa: E731
                                   "probability": p, **extra}
    return {"judge": JUDGE, "draws": [
        {"design": "stratified", "draw": 1, "seed": 0, "stratified_by": ["subject_id", "judge_grade"],
         "runs": [run(keys[0], "1/4", reviewer_id="rev-1"), run(keys[1], "1/2")], "population": population(first[:6])},
        {"design": "active", "draw": 2, "seed": 3, "stratified_by": ["subject_id", "judge_grade"],
         "runs": [run(keys[1], "1")], "population": population(first)}]}


def write(root: Path, document: object) -> None:
    (root / DRAWS_FILE).write_text(json.dumps(document), encoding="utf-8")


def read(root: Path):
    spec, _ = load_spec(root)
    assert spec is not None
    draws, problems, _ = read_draws(root, spec, runs_of(root))
    return draws, problems


def test_an_absent_file_is_no_draw_and_no_problem(judged):
    assert read(judged) == (None, [])
    spec, _ = load_spec(judged)
    tree, _ = load_tree(judged, spec)
    assert tree is not None and tree.draws is None and DRAWS_FILE not in tree.inputs


def test_a_valid_file_gives_the_draws_their_weights_and_its_canonical_bytes(judged):
    document = a_document(judged)
    write(judged, document)
    draws, problems = read(judged)
    assert problems == [] and draws is not None and draws.judge == JUDGE
    keys = runs_of(judged)
    assert [d.number for d in draws.draws] == [1, 2] and draws.draws[1].design == "active" and draws.draws[1].seed == 3
    assert draws.draws[0].runs[0] == DrawnRun(keys[0], F(1, 4), "rev-1")
    assert draws.draws[0].runs[1].reviewer_id is None
    # one subject of 12 runs: draw 1 lists n_1 = 2 of the N_1 = 6 it holds, draw 2 (made over every run, as before
    # draws were made over the runs not drawn yet) n_2 = 1 of N_2 = 12; both cover keys[0] and keys[1]. Precisions
    # v = n/(N(N − n)): v_1 = 2/(6·4) = 1/12, v_2 = 1/(12·11) = 1/132, so c_1 = (11/132)/(12/132) = 11/12 and
    # c_2 = 1/12; keys[0]: (11/12)·4 = 11/3; keys[1]: (11/12)·2 + (1/12)·1 = 23/12; any other run 0
    assert keys[0][0] == keys[1][0] and len([k for k in keys if k[0] == keys[0][0]]) == 12
    assert draws.weight(keys[0]) == F(11, 3) and draws.weight(keys[1]) == F(23, 12) and draws.weight(keys[2]) == 0
    assert draws.drawn() == {keys[0], keys[1]}
    assert draws.covered() == {k for k in keys if k[0] == keys[0][0]}   # draw 2 covers the subject's every run
    canonical = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert draws_document(draws) == canonical.encode()
    (judged / DRAWS_FILE).write_bytes(draws_document(draws))
    assert read(judged) == (draws, [])
    spec, _ = load_spec(judged)
    tree, _ = load_tree(judged, spec)   # the loader reads it in judge-assisted mode and hashes it
    assert tree is not None and tree.draws == draws and DRAWS_FILE in tree.inputs


def test_a_draws_file_beyond_the_inputs_1_mib_is_read_up_to_its_own_limit(judged, monkeypatch):
    # the file grows with runs x draws (58 subjects x 300 runs take 1.2 MB in one draw): 1.5 MB of it loads; the
    # same file above DRAWS_MAX_BYTES (lowered here) is one problem, no traceback
    import rgbench.load.draws as draws_module
    write(judged, a_document(judged))
    text = (judged / DRAWS_FILE).read_text(encoding="utf-8")
    (judged / DRAWS_FILE).write_text(text.rstrip("\n") + " " * 1_500_000 + "\n", encoding="utf-8")   # blanks: JSON
    spec, _ = load_spec(judged)
    tree, problems = load_tree(judged, spec)
    assert problems == [] and tree is not None and tree.draws is not None and DRAWS_FILE in tree.inputs
    assert draws_module.DRAWS_MAX_BYTES == 64 << 20
    monkeypatch.setattr(draws_module, "DRAWS_MAX_BYTES", 1 << 20)
    size = (judged / DRAWS_FILE).stat().st_size
    assert read(judged) == (None, [Problem(DRAWS_FILE, f"is larger than {1 << 20} bytes ({size} or more); "
                                                                    "no input of this benchmark needs that much "
                                                                    "(shorten it)")])


def test_draws_document_sorts_runs_and_draws_and_writes_lowest_terms():
    runs = (DrawnRun(("b", "C-2", "r1"), F(2, 4), None), DrawnRun(("a", "C-1", "r2"), F(1), "rev-x"))
    draws = HumanDraws("j", (Draw(2, "active", 0, runs[:1]), Draw(1, "stratified", 5, runs)))
    document = json.loads(draws_document(draws))
    assert [d["draw"] for d in document["draws"]] == [1, 2]
    assert [(r["subject_id"], r["probability"]) for r in document["draws"][0]["runs"]] == [("a", "1"), ("b", "1/2")]
    assert "reviewer_id" not in document["draws"][0]["runs"][1]


def test_bad_json_is_one_problem(judged):
    (judged / DRAWS_FILE).write_text('{"judge": "x", "draws": [}', encoding="utf-8")
    draws, problems = read(judged)
    assert draws is None and len(problems) == 1 and problems[0].path == DRAWS_FILE
    assert "rgbench assign" in problems[0].message


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("judge"), "$.judge: missing"),
    (lambda d: d.update(extra=1), "$.extra: unknown key (known: draws, judge)"),
    (lambda d: d.update(draws={}), "$.draws: must be a list of draws (rgbench assign writes them), got {}"),
    (lambda d: d["draws"][0].pop("seed"), "$.draws[0]: must be a draw {design, draw, runs, seed, stratified_by}"),
    (lambda d: d["draws"][0].update(design="uniform"), "$.draws[0].design: must be stratified or active, got "
                                                       "'uniform'"),
    (lambda d: d["draws"][1].update(draw=0), "$.draws[1].draw: must be the draw's number, a positive integer, got 0"),
    (lambda d: d["draws"][0].update(seed=-1), "$.draws[0].seed: must be the seed the draw was made with"),
    (lambda d: d["draws"][0].update(stratified_by=["subject_id"]), "$.draws[0].stratified_by: must be "
                                                                   '["subject_id", "judge_grade"]'),
    (lambda d: d["draws"][0]["runs"][0].pop("run_id"), "$.draws[0].runs[0]: must be a drawn run"),
    (lambda d: d["draws"][0]["runs"][0].update(reviewer_id=""), "$.draws[0].runs[0].reviewer_id: must be the id of "
                                                                "the human asked to grade the run, got ''"),
    (lambda d: d["draws"][0]["runs"][1].update(probability="0.5"),
     "$.draws[0].runs[1].probability: must be the exact probability the draw had of picking the run, \"p/q\" or "
     "\"1\", above 0 and at most 1, got '0.5'"),
    (lambda d: d["draws"][0]["runs"][1].update(probability=0.5), "$.draws[0].runs[1].probability: must be the exact"),
    (lambda d: d["draws"][0].update(population={}), "$.draws[0].population: must be the runs the draw was made over"),
    (lambda d: next(iter(d["draws"][0]["population"].values())).update(judge_digest="x"),
     "$.draws[0].population: must be the runs the draw was made over per subject id"),
])
def test_each_schema_error_names_its_place(judged, change, message):
    document = a_document(judged)
    change(document)
    write(judged, document)
    draws, problems = read(judged)
    assert draws is None and any(p.message.startswith(message) for p in problems), problems
    assert all(p.path == DRAWS_FILE for p in problems)


@pytest.mark.parametrize(("probability", "shown"), [("0", "'0'"), ("0/4", "'0/4'"), ("5/4", "'5/4'"),
                                                    ("1/0", "'1/0'")])
def test_a_probability_outside_0_1_is_refused(judged, probability, shown):
    document = a_document(judged)
    document["draws"][0]["runs"][1]["probability"] = probability
    write(judged, document)
    draws, problems = read(judged)
    assert draws is None and [p.message for p in problems] == [
        f"$.draws[0].runs[1].probability: {shown} is not a probability above 0 and at most 1 (the toolkit writes "
        "this file: rgbench assign; a draw is never edited by hand)"]


def test_an_unknown_run_a_judge_mismatch_and_misordered_draws_are_all_reported(judged):
    document = a_document(judged)
    document["judge"] = "judge-other"
    key = runs_of(judged)[0]
    missing = key[1][:-3] + "000"   # no such case (case numbers start at 001), and the runs stay sorted
    document["draws"][0]["runs"][0]["case_id"] = missing
    document["draws"][1]["draw"] = 5
    document["draws"][1]["runs"] *= 2   # the same run twice in one draw
    write(judged, document)
    draws, problems = read(judged)
    assert draws is None and sorted(p.message.replace(" " + REGENERATE, "") for p in problems) == sorted([
        f"$.judge: 'judge-other' is not config.yaml's judge '{JUDGE}' (these draws were made over another judge's "
        "grades: make new draws with rgbench assign, or set judge back)",
        f"$.draws[0].runs[0]: no run '{key[2]}' of '{key[0]}' on case '{missing}' in responses/ (a drawn run "
        "must exist: restore it)",
        "$.draws[1].draw: 5 where 2 was expected (draws are numbered 1, 2, ... in order)",
        "$.draws[1].runs: not sorted by (subject_id, case_id, run_id) with each run once",
        f"$.draws[0]: lists {key[0]}/{missing}/{key[2]}, which is not in its population"])


def test_the_loader_refuses_a_bad_draws_file_and_any_draws_file_in_human_mode(judged):
    write(judged, {"judge": JUDGE})
    assert problems_of(judged) == [f"{DRAWS_FILE}: $.draws: missing: the list of draws (rgbench assign writes them)"]
    set_config(judged, estimation=None, judge=None)   # human mode: the file would count for nothing
    assert problems_of(judged) == [f"{DRAWS_FILE}: estimation is human in {CONFIG}, so the draws are never read (set "
                                   "estimation: judge-assisted and judge, or remove the file)"]


def test_a_file_without_population_is_refused_with_the_fix(judged):
    # A file written before draws recorded their population: nothing tells whether the data are still the draw's.
    document = a_document(judged)
    for draw in document["draws"]:
        del draw["population"]
    write(judged, document)
    draws, problems = read(judged)
    assert draws is None and [p.message for p in problems] == [
        f"$.draws[{i}]: records no population (the runs it was made over and a digest of their judge grades, which "
        "rgbench assign writes since 2026-12-04), so nothing tells whether today's data are those it was drawn from "
        "(while they are, remove the file and make the draws again with rgbench assign: the same sizes and seed give "
        "the same stratified draws)" for i in (0, 1)]


def test_a_run_outside_its_population_and_a_stratified_draw_whose_inverse_probabilities_miss_it(judged):
    document = a_document(judged)
    keys = runs_of(judged)
    document["draws"][0]["population"] = population([k for k in keys if k[0] == keys[0][0]][1:7])   # keys[0] left out
    document["draws"][1]["design"] = "stratified"   # Σ 1/π = 1 over its population of 12 (an active draw: unchecked)
    write(judged, document)
    draws, problems = read(judged)
    subject, size = keys[0][0], len([k for k in keys if k[0] == keys[0][0]])
    assert draws is None and [p.message for p in problems] == [
        f"$.draws[0]: lists {'/'.join(keys[0])}, which is not in its population {REGENERATE}",
        f"$.draws[1]: its probabilities of {subject}'s runs add up to Σ 1/π = 1, where a stratified draw over its "
        f"{size} runs gives {size} {REGENERATE}"]


def test_weights_over_draws_with_different_populations_have_expectation_1():
    # Runs a, b, c of one subject. Draw 1 was made when only a and b existed: a stratified draw of 1 of 2 (π = 1/2).
    # Draw 2 after c was added, over every run (as draws were made before they were made over the runs not drawn
    # yet): 2 of 3 (π = 2/3). Precisions v = n/(N(N − n)): v_1 = 1/(2·1) = 1/2, v_2 = 2/(3·1) = 2/3;
    # a and b, covered by both: c_1 = (1/2)/(7/6) = 3/7, c_2 = (2/3)/(7/6) = 4/7, so a listed by both has
    #   w = (3/7)/(1/2) + (4/7)/(2/3) = 6/7 + 6/7 = 12/7, b listed by draw 2 only (4/7)(3/2) = 6/7, and
    #   E[w] = (1/2)(6/7) + (2/3)(6/7) = 3/7 + 4/7 = 1;
    # c, covered by draw 2 only: c_2 = 1, w = 1/(2/3) = 3/2 when drawn, E[w] = (2/3)(3/2) = 1.
    # Exact enumeration of the 2 x 3 equally likely outcomes: every run's mean weight is exactly 1.
    key = {r: ("s", f"C-{r}", "r1") for r in "abc"}
    covered = lambda runs: (Covered("s", tuple((f"C-{r}", "r1") for r in runs), "0" * 64),)  # noqa: E731
    outcomes = []
    for first in "ab":
        for left_out in "abc":
            second = [r for r in "abc" if r != left_out]
            outcomes.append(HumanDraws("j", (
                Draw(1, "stratified", 0, (DrawnRun(key[first], F(1, 2), None),), population=covered("ab")),
                Draw(2, "stratified", 0, tuple(DrawnRun(key[r], F(2, 3), None) for r in second),
                     population=covered("abc")))))
    both = outcomes[2]   # draw 1 took a, draw 2 left c out: a is listed by both
    assert both.weight(key["a"]) == F(12, 7) and both.weight(key["b"]) == F(6, 7) and both.weight(key["c"]) == 0
    assert outcomes[0].weight(key["c"]) == F(3, 2)
    for run in "abc":
        assert sum(draws.weight(key[run]) for draws in outcomes) / len(outcomes) == 1


def test_draws_over_the_runs_not_drawn_yet_weigh_as_one_draw_of_their_union_and_have_expectation_1():
    # Runs a, b, c, d of one subject. Draw 1: 1 of 4 (π = 1/4). Draw 2 over the 3 runs draw 1 did not list: 1 of 3,
    # its probabilities set from draw 1's pick (1/2 for the first remaining run, 1/4 for the other two: an adaptive
    # draw). v_1 = 1/(4·3) = 1/12, v_2 = 1/(3·2) = 1/6: c_1 = 1/3, c_2 = 2/3 for every run (each covered by both:
    # draw 2 holds the remainder and knows draw 1's run). Draw 1's run: (1/3)·4 + (2/3)·1 = 2; draw 2's run with
    # π = 1/3 would weigh (2/3)·3 = 2 = N/n, one uniform draw of 2 from 4. With π 1/2 and 1/4: (2/3)·2 = 4/3 and
    # (2/3)·4 = 8/3. Every run's mean weight over the 4 x 3 outcomes, each of probability 1/4 · π, is exactly 1.
    key = {r: ("s", f"C-{r}", "r1") for r in "abcd"}
    covered = lambda runs: (Covered("s", tuple((f"C-{r}", "r1") for r in runs), "0" * 64),)  # noqa: E731
    mean = dict.fromkeys("abcd", F(0))
    for first in "abcd":
        rest = [r for r in "abcd" if r != first]
        for second, pi in zip(rest, (F(1, 2), F(1, 4), F(1, 4))):
            draws = HumanDraws("j", (
                Draw(1, "stratified", 0, (DrawnRun(key[first], F(1, 4), None),), population=covered("abcd")),
                Draw(2, "active", 0, (DrawnRun(key[second], pi, None),), population=covered(rest))))
            assert draws.weight(key[first]) == 2 and draws.weight(key[second]) == F(2, 3) / pi
            for run in "abcd":
                mean[run] += F(1, 4) * pi * draws.weight(key[run])
    assert mean == dict.fromkeys("abcd", F(1))
    first = Draw(1, "stratified", 0, (DrawnRun(key["a"], F(1, 4), None),), population=covered("abcd"))
    uniform = HumanDraws("j", (first, Draw(2, "stratified", 0, (DrawnRun(key["b"], F(1, 3), None),),
                                           population=covered("bcd"))))
    assert uniform.weight(key["a"]) == uniform.weight(key["b"]) == 2
    assert uniform.precision("s") == 1 / 12 + 1 / 6 and uniform.precision("t") == 0   # H = v_1 + v_2; no draw: 0


def test_a_census_of_the_runs_not_drawn_yet_knows_the_total_and_weighs_every_run_1():
    # Draw 1: 1 of 3 (π = 1/3); draw 2: both runs left (π = 1, v = None): the total is known exactly, so draw 2
    # takes the whole share and every run weighs 1 (draw 1's run as a known value, t = 1).
    key = {r: ("s", f"C-{r}", "r1") for r in "abc"}
    covered = lambda runs: (Covered("s", tuple((f"C-{r}", "r1") for r in runs), "0" * 64),)  # noqa: E731
    draws = HumanDraws("j", (Draw(1, "stratified", 0, (DrawnRun(key["a"], F(1, 3), None),), population=covered("abc")),
                             Draw(2, "stratified", 0, tuple(DrawnRun(key[r], F(1), None) for r in "bc"),
                                  population=covered("bc"))))
    assert [draws.weight(key[r]) for r in "abc"] == [1, 1, 1] and draws.precision("s") == float("inf")


def test_the_examples_single_draw_keeps_its_weights_1_over_pi_and_covers_every_judged_run():
    from treebuilder import REPO

    from rgbench.commands.common import load_valid_grades
    from rgbench.stats.judge_assisted_draw import judged_runs
    loaded = load_valid_grades(REPO / "examples" / "judgeassist")
    assert loaded is not None
    spec, tree, multi = loaded
    assert tree.draws is not None and len(tree.draws.draws) == 1   # one draw: c_b(r) = n_b / n_b = 1
    assert all(tree.draws.weight(r.key) == 1 / r.probability for r in tree.draws.draws[0].runs)
    assert tree.draws.covered() == {r.key for items in judged_runs(spec, tree, multi)[0].values() for r in items}
