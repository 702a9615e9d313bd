"""Strict parsing at the boundary: what lenient parsers silently accept is refused."""

from __future__ import annotations

import re

import pytest
from treebuilder import extract_gold_json

from rgbench.load.gold_markdown import gold_data_block, quoted_blocks_note
from rgbench.load.parsing import ParseError, decode_utf8, dumps_json_canonical, loads_json_strict, loads_yaml_strict


@pytest.mark.parametrize(("text", "message"), [
    ('{"a": 1, "a": 2}', "invalid JSON: duplicate key 'a' (keep only one)"),
    ('{"x": {"a": 1, "a": 1}}', "invalid JSON: duplicate key 'a' (keep only one)"),
    ('{"a": NaN}', "invalid JSON: NaN is not a JSON number (use a finite number)"),
    ('{"a": Infinity}', "invalid JSON: Infinity is not a JSON number (use a finite number)"),
    ('{"a": 1e400}', "invalid JSON: number 1e400 is too large to represent"),
    ('{"a": -1e400}', "invalid JSON: number -1e400 is too large to represent"),
    ("", "empty file (expected a JSON object)"),
    ("  \n", "empty file (expected a JSON object)"),
    ('{"a": 1} {"b": 2}', "invalid JSON at line 1 column 10: Extra data"),
    ("[" * 100_000, "invalid JSON: nested too deeply"),
])
def test_strict_json_refuses(text, message):
    with pytest.raises(ParseError) as caught:
        loads_json_strict(text)
    assert str(caught.value) == message


def test_strict_json_accepts_ordinary_documents():
    assert loads_json_strict('{"a": [1, 0.5, "x", null, true]}') == {"a": [1, 0.5, "x", None, True]}


def test_huge_integer_literal_is_a_parse_error_not_a_crash():
    with pytest.raises(ParseError, match="invalid JSON: integer 9999.* has more than 18 digits"):
        loads_json_strict('{"a": ' + "9" * 5000 + "}")


def test_utf8_decoding():
    assert decode_utf8("é".encode()) == "é"
    with pytest.raises(ParseError, match=r"invalid UTF-8 at byte 1 \(save the file as UTF-8\)"):
        decode_utf8(b"a\xffb")
    with pytest.raises(ParseError, match="byte-order mark"):
        decode_utf8(b"\xef\xbb\xbf{}")


def test_canonical_json_is_sorted_indented_and_ends_with_newline():
    assert dumps_json_canonical({"b": 1, "a": "é"}) == '{\n  "a": "é",\n  "b": 1\n}\n'


@pytest.mark.parametrize(("text", "message"), [
    ("a: 1\na: 2\n", "invalid YAML at line 2: duplicate key 'a' (keep only one)"),
    ("s:\n  - {x: 1, x: 2}\n", "invalid YAML at line 2: duplicate key 'x' (keep only one)"),
    ("a: 1\n---\nb: 2\n", "expected one YAML document, found 2"),
    ("a: [1\n", "invalid YAML at line 2 column 1: expected ',' or ']', but got '<stream end>'"),
    ("a: !!python/object:os.system x\n", None),
    ("", "empty file (expected a YAML mapping)"),
    # issue 24: a tagged value PyYAML cannot construct was a ValueError or AttributeError (a traceback in
    # `make validate` on benchmark.yaml, the registry, ...); the value runs on into the next lines here
    *((f"criteria: {tag}\n  - diagnosis\n", "invalid YAML: a value does not have the type its tag names (e.g. !!int, "
       "!!float, !!timestamp); remove the tag or fix the value") for tag in ("!!int 5", "!!float 1.5",
                                                                             "!!timestamp 2001-12-14")),
])
def test_strict_yaml_refuses(text, message):
    with pytest.raises(ParseError) as caught:
        loads_yaml_strict(text)
    if message:
        assert str(caught.value) == message


def test_yaml_scalars_keep_yaml_typing_so_schemas_can_catch_them():
    # The registry schema requires strings; these values would slip through as other types.
    assert loads_yaml_strict("v: 1.10\nb: NO\nd: 2026-01-01\n") == {
        "v": 1.1, "b": False, "d": __import__("datetime").date(2026, 1, 1)}


GOLD = "# Case\n\nProse with `inline json`.\n\n```json\n{\"case_id\": \"RO-FOUL-001\"}\n```\n"


def test_gold_block_extracted():
    assert extract_gold_json(GOLD) == {"case_id": "RO-FOUL-001"}


REFERENCE = ("# Case\n\n## Reference answer\n\nThe tool should return:\n\n```json\n{\"status\": \"ok\", \"items\": []}\n```\n\n"
             "and never\n\n```json\n{\"status\": \"error\"}\n```\n\n## Metadata\n\n")


def test_a_gold_quoting_json_blocks_reads_its_last_one_as_its_data():
    # issue 23: a reference answer's own ```json blocks (lines 7 and 13) are case text; the data is the last block
    assert extract_gold_json(REFERENCE + "```json\n{\"case_id\": \"RO-FOUL-001\"}\n```\n") == {"case_id": "RO-FOUL-001"}
    block = gold_data_block(REFERENCE + "```json\n{\"case_id\": \"RO-FOUL-001\"}\n```\n\nThe end.\n")
    assert (block.line, block.quoted) == (19, (7, 13))
    assert quoted_blocks_note(block) == (
        "json block at line 19 was read as the case's data (a gold's data block is its last ```json block; those at "
        "lines 7, 13 are case text) (put the data block after every ```json block the case text quotes)")
    assert quoted_blocks_note(gold_data_block(GOLD)) is None       # the only block: nothing to explain


def test_gold_other_fences_and_longer_fences_are_fine():
    text = "~~~text\nlog\n~~~\n\n````json\n{\"a\": 1}\n````\n\n```\nplain\n```\n"
    assert extract_gold_json(text) == {"a": 1}


def test_gold_json_inside_another_fence_does_not_count():
    text = GOLD + "\n````markdown\n```json\n{}\n```\n````\n"
    assert extract_gold_json(text) == {"case_id": "RO-FOUL-001"}


@pytest.mark.parametrize(("text", "message"), [
    ("# Case\n", "no ```json block found (a gold's data block is its last ```json block: add one holding the "
                  "case's data)"),
    ("```json\n{\"a\": 1}\n```\n\n```json\n{\"a\": 1,}\n```\n", "json block at line 5 (a gold's data block is its "
     "last ```json block; the one at line 1 is case text): invalid JSON at line 1 column 9: Expecting "
     "property name enclosed in double quotes"),
    ("```json\n{\"a\": 1}\n", "unclosed code fence opened at line 1 (add a closing ```)"),
    (GOLD + "\n~~~\nopen\n", "unclosed code fence opened at line 9 (add a closing ~~~)"),
    ("```json\n{\"a\": 1, \"a\": 2}\n```\n", "json block at line 1: invalid JSON: duplicate key 'a' (keep only one)"),
    ("```json\n```\n", "json block at line 1: empty file (expected a JSON object)"),
])
def test_gold_refusals(text, message):
    with pytest.raises(ParseError) as caught:
        extract_gold_json(text)
    assert str(caught.value) == message


@pytest.mark.parametrize("text, where", [
    ('{"a": "\\ud800"}', "$.a"), ('{"a": ["x", "\\uDFFF"]}', "$.a[1]"), ('{"\\uDbFf": 1}', "$ (a key)"),
    ('{"a": {"b": "ok \\udc00"}}', "$.a.b"), ('{"a": "\ud800"}', "$.a"),     # the last: a raw surrogate in a str
])
def test_every_lone_surrogate_is_refused_wherever_it_is(text, where):
    with pytest.raises(ParseError, match=re.escape(f"{where} holds a lone surrogate")):
        loads_json_strict(text)


def test_paired_surrogates_and_an_escaped_backslash_are_text():
    # \ud83d\ude00 is one astral character; "\\ud800" is a backslash followed by the letters "ud800"
    assert loads_json_strict('{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}') == {"a": "\U0001F600", "b": "\\ud800"}
