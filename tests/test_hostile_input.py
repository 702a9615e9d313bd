"""Issue 12 items 7, 8, 10 and 11: hostile input and faults are refused as `path: what is wrong (how to fix
it)`, exit 1, no traceback, results/ untouched; cost is bounded; numbers are exact; shown names are clean.

Attacks that are one file laid over the base tree are refusal fixtures (tests/fixtures/invalid/:
json-correctness-not-exactly-0.5, json-criterion-not-exactly-2, json-integer-too-long,
json-lone-surrogate-in-string, json-lone-surrogate-in-key, registry-display-name-*,
registry-yaml-billion-laughs). The ones below need a generated file, a command-line option or a fault.
Timings are measured by bench/hostile_bench.py, never asserted here.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
from gitrepo import regenerate, toolkit_repo
from treebuilder import canonical, files_of, small_tree

import rgbench.atomic as atomic
from rgbench.cli import run_script
from rgbench.load.parsing import ParseError, exact_decimal, loads_json_strict, loads_yaml_strict
from rgbench.results_csv import TableError, exact

ALPHA_SCORING = "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"


def refused(command: str, argv: list[str], capsys) -> list[str]:
    assert run_script(command, argv) == 1
    return capsys.readouterr().err.splitlines()


# --- item 7: no traceback ------------------------------------------------------------------------

@pytest.mark.parametrize("alpha", ["0.50000000000000000001", "1e-99999999", "0." + "1" * 5000])
def test_an_alpha_that_results_cannot_show_exactly_is_refused(tmp_path, capsys, alpha):
    # Attack: --alpha 0.50000000000000000001 raised OverflowError; 1e-99999999 would expand for ever.
    root = small_tree(tmp_path / "tree").root
    lines = refused("compute", ["--root", str(root), "--alpha", alpha], capsys)
    assert lines[0].startswith("--alpha: alpha must ")
    assert not (root / "results").exists()


@pytest.mark.parametrize(("error", "hint"), [(errno.EACCES, "make the folder writable"),
                                             (errno.ENOSPC, "free some disk space")])
def test_a_read_only_or_full_results_folder_is_reported_and_nothing_replaced(tmp_path, capsys, monkeypatch,
                                                                           error, hint):
    # Attack: a read-only results/ or a full disk gave a traceback and, with 20-300 KB free, a mixed set.
    # (Tests run as root, whom chmod does not stop: the fault is injected where the bytes are written.)
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    before = files_of(root / "results")
    (root / "responses/v1.0/alpha-model/RO-MEMB-001__r2.json").unlink()  # so that every output changes
    real = atomic.write_temp_beside
    written = []

    def fail_on_third(path, data, durable=True):
        if len(written) == 2:
            raise OSError(error, "injected fault")
        written.append(path)
        return real(path, data, durable)

    monkeypatch.setattr(atomic, "write_temp_beside", fail_on_third)
    lines = refused("compute", ["--root", str(root)], capsys)
    assert len(lines) == 1 and lines[0].startswith(str(root / "results"))
    assert f"cannot be written: injected fault ({hint}, then run again; no output was replaced)" in lines[0]
    assert files_of(root / "results") == before  # no file replaced, no temporary left


def test_new_scoring_reports_an_unwritable_folder(tmp_path, capsys, monkeypatch):
    root = small_tree(tmp_path / "tree").root
    import rgbench.governance.write_once as write_once

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(write_once, "write_temp_beside", full)
    lines = refused("new-scoring", ["--root", str(root), "--subject", "alpha-model", "--case", "RO-MEMB-001",
                                       "--run", "r2", "--reviewer", "rev-c"], capsys)
    assert lines[0] == ("scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-c.json: cannot be written: No space left "
                        "on device (free some disk space, then run again; no output was replaced)")


def test_fmt_refuses_a_lone_surrogate_and_rewrites_nothing(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    rel = "responses/v1.0/alpha-model/RO-MEMB-001__r2.json"
    (tree.root / rel).write_text('{"response_text": "\\ud800"}')
    other = tree.root / ALPHA_SCORING
    other.write_text(json.dumps(json.loads(other.read_text())))  # not canonical: would be rewritten
    before = other.read_bytes()
    lines = refused("fmt", ["--root", str(tree.root)], capsys)
    assert lines[0].startswith(f"{rel}: invalid JSON: $.response_text holds a lone surrogate")
    assert other.read_bytes() == before


# --- item 8: bounded cost ------------------------------------------------------------------------

def test_8000_automatic_fails_are_refused_without_the_quadratic_uniqueness_check(tmp_path, capsys):
    # Attack: 8,000 automatic_fails_triggered entries took 406 s to refuse (python-jsonschema's
    # uniqueItems is quadratic). The file is over the scoring size limit; within it, maxItems refuses.
    tree = small_tree(tmp_path / "tree")
    document = json.loads((tree.root / ALPHA_SCORING).read_text())
    document["automatic_fails_triggered"] = [{"code": "AF-NO-NORMALIZATION", "severity": "recoverable"}] * 8000
    (tree.root / ALPHA_SCORING).write_text(json.dumps(document))
    lines = refused("validate", ["--root", str(tree.root)], capsys)
    assert lines[0].startswith(f"{ALPHA_SCORING}: is larger than 65536 bytes")
    document["automatic_fails_triggered"] = document["automatic_fails_triggered"][:900]
    (tree.root / ALPHA_SCORING).write_text(json.dumps(document))
    lines = refused("validate", ["--root", str(tree.root)], capsys)
    assert lines[0] == f"{ALPHA_SCORING}: $.automatic_fails_triggered: has 900 items, more than the 32 allowed (shorten it)"


def test_no_schema_asks_for_uniqueness_of_objects():
    # python-jsonschema compares unsortable items (objects) pairwise: only arrays of strings may use it.
    root = Path(__file__).resolve().parent.parent / "system/schemas/v1.0"
    def walk(node):
        if isinstance(node, dict):
            if node.get("uniqueItems"):
                assert node.get("maxItems") is not None and node["items"].get("type") == "string", node
            for value in node.values():
                walk(value)
    for path in sorted(root.glob("*.json")):
        walk(json.loads(path.read_text()))


@pytest.mark.parametrize("rel", ["responses/v1.0/alpha-model/RO-FOUL-001__r1.json", "golds/v1.0/RO-FOUL-001_gold.md",
                                 "subjects/registry.yaml", ALPHA_SCORING])
def test_a_one_megabyte_file_is_refused_by_its_size(tmp_path, capsys, rel):
    root = small_tree(tmp_path / "tree").root
    (root / rel).write_bytes(b"[" * (1 << 20))
    lines = refused("validate", ["--root", str(root)], capsys)
    assert any(line.startswith(f"{rel}: is larger than ") and line.endswith("(shorten it)") for line in lines), lines


@pytest.mark.parametrize("text", [
    "x: &a [1, 2]\ny: *a\n",                 # anchor and alias
    "a: {b: 1}\nc:\n  <<: {d: 2}\n",          # a merge key without an alias is plain text, accepted below
])
def test_yaml_anchors_and_aliases_are_refused(text):
    if "&" in text:
        with pytest.raises(ParseError, match="anchor 'a' \\(anchors and aliases are not allowed"):
            loads_yaml_strict(text)
    else:
        assert loads_yaml_strict(text)["a"] == {"b": 1}


@pytest.mark.parametrize("rel", ["system/metrics/v1.0/config.yaml", "system/benchmark.yaml",
                                 "system/rubric/v1.0/automatic_fails.yaml"])
def test_every_yaml_input_refuses_aliases(tmp_path, capsys, rel):
    root = small_tree(tmp_path / "tree").root
    with open(root / rel, "a", encoding="utf-8") as handle:
        handle.write("\nlol: &lol [a, a]\nlols: [*lol, *lol]\n")
    lines = refused("validate", ["--root", str(root)], capsys)
    assert any(line.startswith(f"{rel}: invalid YAML at line ") and "anchor 'lol'" in line for line in lines), lines


@pytest.mark.parametrize("cell", ["1e-99999999", "1e99999999", "9" * 5000, "1/3", "nan"])
def test_results_cells_are_read_exactly_and_bounded(cell):
    # Attack: results_diff hung on a cell 1e-99999999 (Fraction builds 10**99999999).
    with pytest.raises(TableError, match="is not a number"):
        exact(cell)


def test_results_diff_refuses_a_hostile_cell_naming_the_file(tmp_path, capsys):
    repo, _ = toolkit_repo(tmp_path / "bench")
    regenerate(repo.root)
    base = repo.commit("Base")
    path = repo.root / "results/metrics_per_subject.csv"
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    cells = lines[1].split(",")
    cells[header.index("BS")] = "1e-99999999"
    path.write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]) + "\n")
    err = refused("diff", ["--root", str(repo.root), "--base", base], capsys)
    assert err == [f"results/metrics_per_subject.csv: subject {cells[0]!r}, column BS: '1e-99999999' is not a number "
                   "(a decimal of at most 40 characters)"]


# --- item 10: exact numbers ----------------------------------------------------------------------

@pytest.mark.parametrize("text", ["0.50000000000000000001", "1.9999999999999999", "1e-99999999", "0.1000000000000000055511"])
def test_json_numbers_that_a_float_would_round_are_refused(text):
    with pytest.raises(ParseError, match="is not exactly representable"):
        loads_json_strict('{"x": ' + text + '}')


@pytest.mark.parametrize(("text", "value"), [("0.5", 0.5), ("0.1", 0.1), ("2.0", 2.0), ("1e-5", 1e-05), ("-0.25", -0.25)])
def test_json_numbers_written_exactly_are_read(text, value):
    assert loads_json_strict('{"x": ' + text + '}') == {"x": value}


def test_exact_decimal_is_bounded():
    assert exact_decimal("0.50000000000000000001").denominator == 10**20
    for hostile in ("1e-99999999", "1" * 41, "1/3", "inf"):
        with pytest.raises(ValueError, match="not a number"):
            exact_decimal(hostile)


# --- item 11: names readers see ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["Alpha", "ALPHA", "Ａｌｐｈａ", "alpha  "])
def test_display_names_must_be_unique_as_readers_see_them(tmp_path, capsys, name):
    tree = small_tree(tmp_path / "tree")
    tree.subjects[1]["display_name"] = name
    tree.write_registry()
    lines = refused("validate", ["--root", str(tree.root)], capsys)
    assert lines[0] == (f"subjects/registry.yaml: $.subjects[1].display_name: {name!r} is the display name of "
                        "$.subjects[0] too (ignoring case, width and spacing); display names must be unique "
                        "(choose another)")


@pytest.mark.parametrize(("field", "char"), [("display_name", "\u2066"), ("provider", "\u200d"),
                                             ("parameters", "\x7f"), ("display_name", "\u2028")])
def test_shown_text_refuses_invisible_characters(tmp_path, capsys, field, char):
    tree = small_tree(tmp_path / "tree")
    tree.subjects[1][field] = f"Beta{char}"
    tree.write_registry()
    lines = refused("validate", ["--root", str(tree.root)], capsys)
    assert lines[0].startswith(f"subjects/registry.yaml: $.subjects[1].{field}: character 4 is U+{ord(char):04X}, ")


def test_a_surrogate_in_a_display_name_never_reaches_the_leaderboard(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    tree.subjects[0]["display_name"] = "Alpha \ud800"
    (tree.root / "subjects/registry.yaml").write_text(
        (tree.root / "subjects/registry.yaml").read_text().replace('"Alpha"', '"Alpha \\ud800"'))
    before = files_of(tree.root / "results")
    lines = refused("leaderboard", ["--root", str(tree.root)], capsys)
    assert any("lone surrogate" in line for line in lines)
    assert files_of(tree.root / "results") == before


def test_canonical_helper_round_trips():  # the fixtures above are written with treebuilder.canonical
    assert json.loads(canonical({"a": 0.5})) == {"a": 0.5}


@pytest.mark.parametrize("cell", ["9" * 5000, "0." + "0" * 5000 + "1"])
def test_build_leaderboard_refuses_a_hostile_numeric_cell(tmp_path, capsys, cell):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    path = root / "results/per_run.csv"
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    cells = lines[1].split(",")
    cells[header.index("raw_score" if cell.isdigit() else "confidence_unit")] = cell
    path.write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]) + "\n")
    err = refused("leaderboard", ["--root", str(root)], capsys)
    assert any(line.startswith("results/per_run.csv: ") for line in err), err


def test_a_schema_whose_dialect_is_not_a_uri_is_refused(tmp_path, capsys):
    # Found by tests/test_fuzz.py: a dialect jsonschema-rs cannot read; the toolkit reads draft 2020-12 only.
    root = small_tree(tmp_path / "tree").root
    path = root / "system/schemas/v1.0/evaluation.schema.json"
    path.write_text(path.read_text().replace('"https://json-schema.org/draft', '"\u1000https://json-schema.org/draft', 1))
    lines = refused("validate", ["--root", str(root)], capsys)
    assert lines[0].startswith("system/schemas/v1.0/evaluation.schema.json: not a valid draft 2020-12 schema: "
                               "$['$schema']: '\u1000https://json-schema.org/draft/2020-12/schema' is not "
                               "'https://json-schema.org/draft/2020-12/schema' (write that, or remove the key)")


@pytest.mark.parametrize("text", ["a: " + "[" * 5000, "a: " + "{a: " * 3000, "- " * 5000 + "x", "a:\n" + "".join(
    " " * i + "b:\n" for i in range(1, 200))])
def test_deeply_nested_yaml_is_refused_not_a_recursion_error(text):
    # The pure-Python composer recursed: 60 KB of "[" took 3 s to end in a RecursionError (a traceback).
    with pytest.raises(ParseError, match="invalid YAML( at line [0-9]+)?: nested more than 50 levels deep"):
        loads_yaml_strict(text)


def test_a_yaml_input_longer_than_its_cap_is_refused_before_parsing(tmp_path, capsys):
    # PyYAML's pure-Python parser took 2 s on a 255 KB registry: every YAML input is capped at 64 KB.
    root = small_tree(tmp_path / "tree").root
    with open(root / "system/metrics/v1.0/config.yaml", "a", encoding="utf-8") as handle:
        handle.write("# " + "x" * 70_000 + "\n")
    lines = refused("validate", ["--root", str(root)], capsys)
    assert lines[0] == ("system/metrics/v1.0/config.yaml: longer than 65536 characters; no YAML input of this "
                        "benchmark needs that much (shorten it)")


# --- issue 24, low findings: bidirectional controls in free text, bare URLs in the README block ------------------

BIDI = "\u202e"   # RIGHT-TO-LEFT OVERRIDE: "Pass \u202elanigiro" reads as "Pass original" reversed


@pytest.mark.parametrize(("rel", "where"), [
    (ALPHA_SCORING, "$.comments"), (ALPHA_SCORING, "$.automatic_fails_triggered[0].evidence"),
    ("golds/v1.0/RO-FOUL-001_gold.md", "$.title"), ("golds/v1.0/RO-FOUL-001_gold.md", "$.tags[1]"),
    ("subjects/registry.yaml", "$.subjects[0].notes")])
@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200f", "\u061c"])
def test_a_bidirectional_control_in_free_text_is_refused(tmp_path, capsys, rel, where, char):
    # Attack: a comment "fine \u202e..." reads reversed in the explorer, the review page and any editor: the grade
    # says what its reader does not see. Free text is any language; only the controls that reorder it are refused.
    tree = small_tree(tmp_path / "tree")
    text = f"safe{char}txet"
    if rel == ALPHA_SCORING:
        fields = ({"comments": text} if where == "$.comments" else
                  {"fails": [("AF-CHLORINE-EXPOSURE", "critical")]})
        doc = tree.scoring_doc("alpha-model", "RO-FOUL-001", raw=12, correctness=1, **fields)
        if where != "$.comments":
            doc["automatic_fails_triggered"][0]["evidence"] = text
        tree.write(rel, canonical(doc))
    elif rel.startswith("golds/"):
        tree.add_gold("RO-FOUL-001", rubric_floor=4, title=text, tags=["ok", text])
    else:
        tree.subjects[0]["notes"] = text
        tree.write_registry()
    lines = refused("validate", ["--root", str(tree.root)], capsys)
    assert f"{rel}: {where}: character 4 is U+{ord(char):04X}, a bidirectional control (it reorders what readers " \
           "see, so the text would not read as it is written); remove it" in lines


def test_free_text_in_any_language_and_emoji_pass(tmp_path, capsys):
    # Cyrillic, Arabic, Persian's zero-width non-joiner and an emoji's zero-width joiner are text, not attacks; a
    # Cyrillic look-alike in a display name is accepted too (the ASCII subject_id identifies the subject).
    tree = small_tree(tmp_path / "tree")
    tree.subjects[1]["display_name"] = "Вета"          # Cyrillic В, е, т, а: looks like "Beta"
    tree.subjects[1]["notes"] = "Модель, نموذج, می\u200cخواهم"   # (write_registry's JSON escapes split an emoji)
    tree.write_registry()
    tree.add_scoring("alpha-model", "RO-FOUL-001", raw=12, correctness=1, comments="Хорошо \U0001f469\u200d\U0001f52c")
    assert run_script("validate", ["--root", str(tree.root)]) == 0


def test_a_bare_url_email_or_mention_in_a_name_is_not_a_live_link_in_the_readme_block(tmp_path):
    # Attack: a display name "Alpha http://evil.example" became a live link in README.md's leaderboard block (GitHub
    # links bare URLs, www. names and e-mail addresses, and again after parsing in the text an escape leaves).
    from markdown_it import MarkdownIt

    from rgbench.leaderboard.markdown import md_text

    name = "Alpha http://evil.example/x www.evil.example a@evil.example"
    assert md_text(name) == "Alpha http`:`//evil.example/x www`.`evil.example a`@`evil.example"
    tree = small_tree(tmp_path / "tree")
    tree.subjects[0]["display_name"] = name
    tree.write_registry()
    root = tree.root
    (root / "README.md").write_text("# Bench\n\n<!-- leaderboard:start -->\n<!-- leaderboard:end -->\n")
    assert run_script("compute", ["--root", str(root)]) == 0
    assert run_script("leaderboard", ["--root", str(root), "--readme"]) == 0
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert md_text(name) in readme and "http://" not in readme and "www.evil" not in readme
    cells = [token for token in MarkdownIt("commonmark").enable("table").parse(readme) if token.type == "inline"]
    shown = next(cell for cell in cells if cell.content.startswith("Alpha"))
    assert "".join(child.content for child in shown.children or ()) == name   # it reads as written
    # no text node holds what GitHub's autolinker looks for (a scheme's ://, www., an @)
    texts = [child.content for cell in cells for child in cell.children or () if child.type == "text"]
    assert not [text for text in texts if "://" in text or "www." in text.lower() or "@" in text]


def test_a_tag_holding_the_tag_separator_is_refused(tmp_path, capsys):
    # A tag "a;=1+1" read as the two tags "a" and "=1+1" in the explorer: results/cases.csv joins tags with ';'.
    tree = small_tree(tmp_path / "tree")
    tree.add_gold("RO-FOUL-001", rubric_floor=4, tags=["ok", "a;=1+1"])
    lines = refused("validate", ["--root", str(tree.root)], capsys)
    assert ("golds/v1.0/RO-FOUL-001_gold.md: $.tags[1]: 'a;=1+1' holds ';', which separates a case's tags in "
            "results/cases.csv, so it would read as two tags (write it without)") in lines
