"""system/ checked as a whole (rgbench.load.system_check): an inconsistent system/ is refused, naming the file.

Each case edits one fact of a copy of the shipped system/ (or of the example
benchmark's) and expects exactly the problems that name it. The edits are read
from the tree's own values, so the tests hold for any benchmark in system/.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from treebuilder import REPO, edit_json, edit_yaml, problems_of

from rgbench.cli import run_script
from rgbench.load.spec import load_spec
from rgbench.load.system_check import family_group, schema_case_patterns

SPEC, _ = load_spec(REPO)
assert SPEC is not None
VERSION = SPEC.version_dir
BENCH = "system/benchmark.yaml"
EVAL = f"system/schemas/{VERSION}/evaluation.schema.json"
RESPONSE = f"system/schemas/{VERSION}/response.schema.json"
GOLD = f"system/schemas/{VERSION}/gold.schema.json"
CATALOG_SCHEMA = f"system/schemas/{VERSION}/catalog.schema.json"
CONFIG = f"system/metrics/{VERSION}/config.yaml"
N = len(SPEC.criteria)


def system_copy(tmp_path: Path, source: Path = REPO) -> Path:
    shutil.copytree(source / "system", tmp_path / "system")
    return tmp_path


def test_the_shipped_system_and_the_examples_are_consistent():
    assert problems_of(REPO) == []
    for example in sorted((REPO / "examples").glob("*/system")):
        assert problems_of(example.parent) == [], example


def set_bench(key, value):
    return lambda data: data.__setitem__(key, value)


def criterion_node(data):
    return data["properties"]["criterion_scores"]


BENCH_CASES = {
    # A criterion listed twice: the maximum score would count it twice.
    "criterion twice": (lambda d: d["criteria"].append(d["criteria"][0]),
                        f"{BENCH}: $.criteria[{N}]: {SPEC.criteria[0]!r} is listed twice"),
    # pass_threshold above the maximum score N x criterion_max: a perfect run would be a Fail.
    "pass above maximum": (set_bench("pass_threshold", SPEC.scale.high + 1),
                           f"{BENCH}: $.pass_threshold: {SPEC.scale.high + 1} is above the maximum score {SPEC.scale.high}"),
    # pass_threshold below conditional_threshold: no score is Conditional.
    "pass below conditional": (set_bench("pass_threshold", SPEC.conditional_threshold - 1),
                               f"{BENCH}: $.pass_threshold: {SPEC.conditional_threshold - 1} is not above "
                               f"conditional_threshold {SPEC.conditional_threshold}"),
    # Equal thresholds make Conditional unreachable too.
    "pass equals conditional": (set_bench("pass_threshold", SPEC.conditional_threshold),
                                f"{BENCH}: $.pass_threshold: {SPEC.conditional_threshold} is not above"),
    # conditional_threshold at the minimum score N x criterion_min: no score is a Fail.
    "conditional at minimum": (set_bench("conditional_threshold", N * SPEC.criterion_min),
                               f"{BENCH}: $.conditional_threshold: {N * SPEC.criterion_min} is not above the minimum"),
    "empty range": (set_bench("criterion_max", SPEC.criterion_min),
                    f"{BENCH}: $.criterion_max: {SPEC.criterion_min} is not above criterion_min"),
    "negative minimum": (set_bench("criterion_min", -1), f"{BENCH}: $.criterion_min: -1 is negative"),
    "no criteria": (set_bench("criteria", []), f"{BENCH}: $.criteria: empty"),
    # A criterion named like a grade's derived value would be counted as that value by the agreement reports.
    "reserved criterion name": (lambda d: d["criteria"].__setitem__(0, "correctness"),
                                f"{BENCH}: $.criteria[0]: 'correctness' names a value derived from each grade"),
    "bad criterion name": (lambda d: d["criteria"].__setitem__(0, "Bad Name"),
                           f"{BENCH}: $.criteria[0]: 'Bad Name' is not a criterion name"),
    "family no id can carry": (lambda d: d["families"].__setitem__("x1", "Lowercase"),
                               f"{BENCH}: $.families.x1: no case id can carry this code"),
    "family without name": (lambda d: d["families"].__setitem__(sorted(d["families"])[0], ""),
                            f"{BENCH}: $.families.{sorted(SPEC.families)[0]}: needs a human name"),
    "example id off pattern": (set_bench("example_case_id", "not-an-id"),
                               f"{BENCH}: $.example_case_id: 'not-an-id' does not match case_id_pattern"),
    # issue 24: a criterion written as a list or a mapping was a TypeError (unhashable), not a message.
    "criterion a list": (lambda d: d["criteria"].__setitem__(0, [1]),
                         f"{BENCH}: $.criteria[0]: [1] is not a criterion name"),
    "criterion a mapping": (lambda d: d["criteria"].__setitem__(0, {"a": 1}),
                            f"{BENCH}: $.criteria[0]: {{'a': 1}} is not a criterion name"),
}


@pytest.mark.parametrize("case", sorted(BENCH_CASES))
def test_an_inconsistent_benchmark_yaml_is_refused(tmp_path, case):
    change, expected = BENCH_CASES[case]
    root = system_copy(tmp_path)
    edit_yaml(root / BENCH, change)
    found = problems_of(root)
    assert any(problem.startswith(expected) for problem in found), found
    assert all(problem.split(":")[0].startswith("system/") for problem in found)


# benchmark.yaml as an adopter mistypes it: each line replaces the key's line; the message says what is there,
# in the file's words, and what to write.
TYPED_CASES = {
    "quoted integer": ("criterion_max", 'criterion_max: "5"',
                       f"{BENCH}: $.criterion_max: '5' is text (write a number, unquoted, e.g. 2 or 2.5)"),
    # a decimal threshold is a threshold (scores may be decimals); an infinite one is not
    "infinite threshold": ("pass_threshold", "pass_threshold: .inf",
                           f"{BENCH}: $.pass_threshold: inf is not a number of at most 40 characters (write a number "
                           "on the total's scale, unquoted, e.g. 10)"),
    "boolean minimum": ("criterion_min", "criterion_min: yes",
                        f"{BENCH}: $.criterion_min: true is true/false (write a number, unquoted, e.g. 0 or 0.5)"),
    "empty threshold": ("conditional_threshold", "conditional_threshold:",
                        f"{BENCH}: $.conditional_threshold: empty (write a number on the total's scale, unquoted, "
                        "e.g. 7)"),
    "unquoted version": ("benchmark_version", "benchmark_version: 1.1",
                         f'{BENCH}: $.benchmark_version: 1.1 is a decimal number (write text, quoted, e.g. "1.0")'),
    "missing pattern": ("case_id_pattern", "",
                        f"{BENCH}: $.case_id_pattern: missing (write a quoted regular expression with a "
                        "(?P<family>...) group)"),
    "criteria on one line": ("criteria", "criteria: answer\nformer_criteria:",
                             f"{BENCH}: $.criteria: 'answer' is text (write a list, one \"- criterion_name\" per line)"),
    "title a number": ("title", "title: 42", f"{BENCH}: $.title: 42 is an integer (write the leaderboard's title, "
                                             "quoted if it reads as a number or a date, or remove the key)"),
    "title a date": ("title", "title: 2026-01-01", f"{BENCH}: $.title: 2026-01-01 is a date (write the "
                                                   "leaderboard's title, quoted if it reads as a number or a date, "
                                                   "or remove the key)"),
    "title empty": ("title", "title: ''", f"{BENCH}: $.title: empty (write the leaderboard's title, quoted if it "
                                          "reads as a number or a date, or remove the key)"),
}


# issue 24: benchmark_version names the folders v<version>/ the toolkit reads, so it may name no path outside
# them; a NUL or a 5,000-character version was a traceback (ValueError, OSError: File name too long).
VERSION_FIX = ("(write letters and digits separated by single '.', '-' or '_', at most 40 characters, quoted, e.g. "
               "\"1.0\": it names the folders v<version>/ under system/, golds/, responses/ and scoring/)")
VERSION_CASES = {
    "climbs out": ("../../../outside", f"{BENCH}: $.benchmark_version: '../../../outside' is not a version {VERSION_FIX}"),
    "climbs out after a part": ("1.0/../../x", f"{BENCH}: $.benchmark_version: '1.0/../../x' is not a version {VERSION_FIX}"),
    "dots only": ("..", f"{BENCH}: $.benchmark_version: '..' is not a version {VERSION_FIX}"),
    "absolute": ("/etc", f"{BENCH}: $.benchmark_version: '/etc' is not a version {VERSION_FIX}"),
    "NUL": ("1\x00", f"{BENCH}: $.benchmark_version: '1\\x00' is not a version {VERSION_FIX}"),
    "too long": ("1" * 5000, f"{BENCH}: $.benchmark_version: '{'1' * 40}...' is not a version {VERSION_FIX}"),
    "empty": ("", f"{BENCH}: $.benchmark_version: '' is not a version {VERSION_FIX}"),
}


@pytest.mark.parametrize("case", sorted(VERSION_CASES))
def test_a_benchmark_version_that_could_name_a_path_outside_its_folders_is_refused(tmp_path, case):
    version, expected = VERSION_CASES[case]
    root = system_copy(tmp_path)
    edit_yaml(root / BENCH, set_bench("benchmark_version", version))
    assert problems_of(root) == [expected]


def test_benchmark_version_cannot_reach_a_folder_outside_the_tree(tmp_path):
    """The attack: a pull request adds a folder named 'v..' and a version that climbs from it to a config.yaml,
    schemas and catalog of its choice outside system/ (here: a copy planted in outside/)."""
    root = system_copy(tmp_path / "tree")
    shutil.copytree(root / "system", tmp_path / "outside" / "system")
    (root / "system" / "metrics" / "v..").mkdir()
    edit_yaml(root / BENCH, set_bench("benchmark_version", "./../../../outside/system/metrics/v" + VERSION[1:]))
    assert [p.split(":")[:2] for p in problems_of(root)] == [[BENCH, " $.benchmark_version"]]
    for version in ("1.0-rc1", "2", "2026_12"):   # what a version may be
        edit_yaml(root / BENCH, set_bench("benchmark_version", version))
        assert not any("$.benchmark_version" in p for p in problems_of(root)), version


def test_a_symlinked_version_folder_is_refused(tmp_path):
    root = system_copy(tmp_path / "tree")
    real = tmp_path / "elsewhere"
    shutil.move(root / "system" / "metrics" / VERSION, real)
    (root / "system" / "metrics" / VERSION).symlink_to(real, target_is_directory=True)
    assert f"system/metrics/{VERSION}: is a symbolic link; expected a plain directory (replace it by a real folder)" \
        in problems_of(root)


@pytest.mark.parametrize("case", sorted(TYPED_CASES))
def test_a_value_of_the_wrong_type_in_benchmark_yaml_says_what_to_write(tmp_path, case):
    key, line, expected = TYPED_CASES[case]
    root = system_copy(tmp_path)
    path = root / BENCH
    text = path.read_text(encoding="utf-8")
    if not re.search(rf"(?m)^{key}:", text):
        text += f"{key}: x\n"
    path.write_text(re.sub(rf"(?m)^{key}:.*$", line.replace("\\", "\\\\"), text, count=1), encoding="utf-8")
    assert expected in problems_of(root)


def test_a_folder_without_system_is_named_as_no_benchmark(tmp_path):
    assert problems_of(tmp_path) == [f"{BENCH}: missing: this folder holds no benchmark (run the command in a "
                                     "benchmark's root or pass --root DIR; `rgbench init DIR` starts a new one)"]


def _drop_first_criterion(schema):
    node = criterion_node(schema)
    first = node["required"].pop(0)
    del node["properties"][first]


def _criterion_max(schema, value):
    for sub in criterion_node(schema)["properties"].values():
        sub["maximum"] = value


SCHEMA_CASES = {
    "criterion missing from the schema": (EVAL, _drop_first_criterion,
                                          f"{EVAL}: $.properties.criterion_scores.properties:"),
    "criterion range differs": (EVAL, lambda s: _criterion_max(s, SPEC.criterion_max + 1),
                                f"{EVAL}: $.properties.criterion_scores.properties.{SPEC.criteria[0]}: type 'integer', "
                                f"minimum {SPEC.criterion_min}, maximum {SPEC.criterion_max + 1}"),
    "case id pattern differs": (RESPONSE, lambda s: s["properties"]["case_id"].__setitem__("pattern", "^X-[0-9]+$"),
                                f"{RESPONSE}: $.properties.case_id.pattern: '^X-[0-9]+$' is not system/benchmark.yaml's"),
    # The gold schema caps rubric_ceiling below the maximum score: Q_final could never reach 1.
    "ceiling cap below maximum": (GOLD, lambda s: s["properties"]["rubric_ceiling"].__setitem__(
        "maximum", SPEC.scale.high - 1), f"{GOLD}: $.properties.rubric_ceiling: type 'integer', minimum "
                                        f"{N * SPEC.criterion_min}, maximum {SPEC.scale.high - 1}"),
    "correctness above 1": (EVAL, lambda s: s["properties"]["correctness"].__setitem__("enum", [0, 2]),
                            f"{EVAL}: $.properties.correctness.enum: [0, 2]; needs at least two distinct numbers"),
    "one correctness value": (EVAL, lambda s: s["properties"]["correctness"].__setitem__("enum", [1]),
                              f"{EVAL}: $.properties.correctness.enum: [1]"),
    "confidence on another scale": (RESPONSE, lambda s: s["properties"]["confidence"].__setitem__("maximum", 10),
                                    f"{RESPONSE}: $.properties.confidence: type 'integer', minimum 0, maximum 10"),
    "schema versions disagree": (GOLD, lambda s: s["properties"]["schema_version"].__setitem__("const", "9.9"),
                                 f"{EVAL}: $.properties.schema_version.const: the schemas disagree"),
    # Without the pins nothing proves which response and gold a grade was made against.
    "gold pin not required": (EVAL, lambda s: s["required"].remove("gold_sha256"),
                              f"{EVAL}: $.required: gold_sha256 must be required"),
    "unknown severity": (CATALOG_SCHEMA, lambda s: s["properties"]["automatic_fails"]["items"]["properties"][
        "severity"].__setitem__("enum", ["critical", "recoverable", "minor"]),
        f"{CATALOG_SCHEMA}: $.properties.automatic_fails.items.properties.severity.enum:"),
}


@pytest.mark.parametrize("case", sorted(SCHEMA_CASES))
def test_a_schema_that_disagrees_with_system_is_refused(tmp_path, case):
    rel, change, expected = SCHEMA_CASES[case]
    root = system_copy(tmp_path)
    edit_json(root / rel, change)
    found = problems_of(root)
    assert any(problem.startswith(expected) for problem in found), found


def test_criteria_in_another_order_are_quoted_in_the_schemas_order(tmp_path):
    # The names are all there, in another order: the message must show the file's order, not a sorted list.
    root = system_copy(tmp_path)
    edit_json(root / EVAL, lambda s: criterion_node(s).__setitem__(
        "properties", dict(reversed(criterion_node(s)["properties"].items()))))
    assert problems_of(root) == [f"{EVAL}: $.properties.criterion_scores.properties: {list(reversed(SPEC.criteria))} "
                                 f"instead of {list(SPEC.criteria)} (list exactly the criteria of "
                                 "system/benchmark.yaml, in its order)"]


@pytest.mark.parametrize(("value", "shown"), [(-1, "-1"), (0, "0"), (1.5, "1.5"), ("lots", "'lots'"), (True, "true"),
                                             (None, "null")])
def test_a_jump_threshold_out_of_range_is_refused_by_every_command_not_only_diff(tmp_path, value, shown):
    # q_final_jump_threshold is used by `rgbench diff` alone; validate (and so make test) must refuse it too, or
    # the mistake surfaces only in the next pull request's judge.
    root = system_copy(tmp_path)
    edit_yaml(root / CONFIG, set_bench("q_final_jump_threshold", value))
    assert problems_of(root) == [f"{CONFIG}: $.q_final_jump_threshold: must be a number above 0 and at most 1 "
                                 f"(e.g. 0.10), got {shown}"]


@pytest.mark.parametrize("value", [0.05, 1, "0.2"])
def test_a_jump_threshold_in_range_is_accepted(tmp_path, value):
    root = system_copy(tmp_path)
    edit_yaml(root / CONFIG, set_bench("q_final_jump_threshold", value))
    assert problems_of(root) == []


def test_criterion_max_changed_in_benchmark_yaml_alone_blames_the_schemas_not_the_data(tmp_path):
    # criterion_max raised in benchmark.yaml only: the evaluation schema still caps each criterion at the old
    # maximum and the gold schema caps rubric_ceiling at N x old maximum, so both are named.
    root = system_copy(tmp_path)
    edit_yaml(root / BENCH, set_bench("criterion_max", SPEC.criterion_max + 2))
    files = {problem.split(": ")[0] for problem in problems_of(root)}
    assert files == {EVAL, GOLD}


def test_the_family_group_is_found_through_nested_groups_and_classes():
    assert family_group("^A-(?P<family>(?:X|Y)[)(]{2})-[0-9]$") == ("^A-", "(?:X|Y)[)(]{2}", "-[0-9]$")
    assert family_group("^A-(?P<family>[A-Z]+$") is None  # unbalanced
    assert family_group("^A-[0-9]$") is None
    assert schema_case_patterns("^A-(?P<family>[A-Z]+)-[0-9]$") == ("^A-[A-Z]+-[0-9]$", "^A-([A-Z]+)-[0-9]$")


def test_the_shipped_example_id_and_families_fit_the_pattern():
    match = SPEC.case_id_re.fullmatch(SPEC.example_id())
    assert match is not None and match.group("family") in SPEC.families
    split = family_group(SPEC.case_id_re.pattern)
    assert split is not None and all(re.fullmatch(split[1], code) for code in SPEC.families)


def test_an_inconsistent_system_is_refused_before_any_data_is_read(tmp_path, capsys):
    # A tree whose data are broken too: only system/ is reported, since the data cannot be judged against it.
    root = system_copy(tmp_path)
    edit_yaml(root / BENCH, set_bench("pass_threshold", SPEC.scale.high + 1))
    (root / "responses" / VERSION / "nobody").mkdir(parents=True)
    (root / "responses" / VERSION / "nobody" / "junk.json").write_text("{not json", encoding="utf-8")
    (root / "subjects").mkdir()
    (root / "subjects" / "registry.yaml").write_text("subjects: []\n", encoding="utf-8")
    assert run_script("validate", ["--root", str(root)]) == 1   # validate.py, in this process (a raise fails here)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if ": " in line and "problem(s)" not in line]
    assert lines and all(line.startswith(f"{BENCH}: ") for line in lines), err
    assert "Traceback" not in err


# --- facts the schemas own reach the code: correctness values, schema_version ------------------------------

LIBRARY_SCHEMAS = "system/schemas/v1.0"  # the library fixture's (tests/fixtures/library/system/)


def _library_tree(tmp_path: Path):
    from treebuilder import MiniTree

    tree = MiniTree(tmp_path / "tree")
    tree.add_subject("m", "1")
    return tree


def test_a_correctness_value_added_to_the_schema_is_computed_exactly(tmp_path):
    from rgbench.cli import run_script

    tree = _library_tree(tmp_path)
    edit_json(tree.root / f"{LIBRARY_SCHEMAS}/evaluation.schema.json",
              lambda s: s["properties"]["correctness"].__setitem__("enum", [0, 0.25, 0.5, 1]))
    tree.add_gold("RO-FOUL-001")
    tree.add_run("m", "RO-FOUL-001", "r1", confidence=50, raw=10, correctness=0.25)
    tree.add_gold("RO-SCAL-001")
    tree.add_run("m", "RO-SCAL-001", "r1", confidence=80, raw=10, correctness=0.5)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    with open(tree.root / "results" / "metrics_per_subject.csv", encoding="utf-8") as handle:
        header, row = (line.rstrip("\n").split(",") for line in handle)
    values = dict(zip(header, row))
    # BS = ((0.50 - 0.25)^2 + (0.80 - 0.50)^2) / 2 = (0.0625 + 0.09) / 2 = 0.07625
    assert values["BS"] == "0.076250"
    # ECE (10 bins): 50 in bin 5 (|0.50 - 0.25| = 0.25), 80 in bin 8 (|0.80 - 0.50| = 0.30); (0.25 + 0.30) / 2
    assert values["ECE"] == "0.275000"


def test_a_value_outside_the_schema_is_refused_not_a_traceback(tmp_path, capsys):
    from rgbench.cli import run_script

    tree = _library_tree(tmp_path)
    tree.add_gold("RO-FOUL-001")
    tree.add_run("m", "RO-FOUL-001", "r1", raw=10, correctness=0.25)  # the shipped enum is 0, 0.5, 1
    assert run_script("compute", ["--root", str(tree.root)]) == 1
    err = capsys.readouterr().err
    assert "$.correctness: 0.25 is not one of [0, 0.5, 1]" in err


def test_consolidated_scorings_carry_the_schemas_file_format_version(tmp_path):
    from rgbench.cli import run_script

    tree = _library_tree(tmp_path)
    for kind in ("response", "evaluation", "gold"):
        edit_json(tree.root / f"{LIBRARY_SCHEMAS}/{kind}.schema.json",
                  lambda s: s["properties"]["schema_version"].__setitem__("const", "2.1"))
    tree.add_gold("RO-FOUL-001", schema_version="2.1")
    tree.add_response("m", "RO-FOUL-001", "r1", schema_version="2.1")
    tree.add_scoring("m", "RO-FOUL-001", "r1", schema_version="2.1")
    assert run_script("agreement", ["--root", str(tree.root)]) == 0
    (doc,) = (tree.root / "scoring_consolidated").rglob("*.json")
    assert json.loads(doc.read_text(encoding="utf-8"))["schema_version"] == "2.1"


def test_the_reserved_criterion_names_are_every_derived_value_the_agreement_reports_read():
    from rgbench.load.system_check import RESERVED_CRITERIA
    from rgbench.stats.agreement_outputs import NOMINAL_TARGETS, RANKED_TARGETS

    derived = {"raw_score", *RANKED_TARGETS, *NOMINAL_TARGETS}   # rating_values' keys beside the criteria
    assert set(RESERVED_CRITERIA) == derived
