"""Strict parsing at the boundary: what lenient parsers silently accept is refused."""

from __future__ import annotations

import pytest

from rgbench.gold_markdown import extract_gold_json
from rgbench.parsing import ParseError, decode_utf8, dumps_json_canonical, loads_json_strict, loads_yaml_strict


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
    with pytest.raises(ParseError, match="invalid JSON: Exceeds the limit"):
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
])
def test_strict_yaml_refuses(text, message):
    with pytest.raises(ParseError) as caught:
        loads_yaml_strict(text)
    if message:
        assert str(caught.value) == message


def test_yaml_scalars_keep_yaml_typing_so_schemas_can_catch_them():
    # The registry schema requires strings; these values would slip through as other types.
    assert loads_yaml_strict("v: 1.10\nb: NO\nd: 2026-01-01\n") == {"v": 1.1, "b": False, "d": __import__("datetime").date(2026, 1, 1)}


GOLD = "# Case\n\nProse with `inline json`.\n\n```json\n{\"case_id\": \"RO-FOUL-001\"}\n```\n"


def test_gold_block_extracted():
    assert extract_gold_json(GOLD) == {"case_id": "RO-FOUL-001"}


def test_gold_other_fences_and_longer_fences_are_fine():
    text = "~~~text\nlog\n~~~\n\n````json\n{\"a\": 1}\n````\n\n```\nplain\n```\n"
    assert extract_gold_json(text) == {"a": 1}


def test_gold_json_inside_another_fence_does_not_count():
    text = GOLD + "\n````markdown\n```json\n{}\n```\n````\n"
    assert extract_gold_json(text) == {"case_id": "RO-FOUL-001"}


@pytest.mark.parametrize(("text", "message"), [
    ("# Case\n", "no ```json block found (a gold needs exactly one)"),
    (GOLD + "\n```json\n{}\n```\n", "2 ```json blocks found at lines 5, 9 (a gold needs exactly one)"),
    ("```json\n{\"a\": 1}\n", "unclosed code fence opened at line 1 (add a closing ```)"),
    (GOLD + "\n~~~\nopen\n", "unclosed code fence opened at line 9 (add a closing ~~~)"),
    ("```json\n{\"a\": 1, \"a\": 2}\n```\n", "json block at line 1: invalid JSON: duplicate key 'a' (keep only one)"),
    ("```json\n```\n", "json block at line 1: empty file (expected a JSON object)"),
])
def test_gold_refusals(text, message):
    with pytest.raises(ParseError) as caught:
        extract_gold_json(text)
    assert str(caught.value) == message


# --- libyaml fast path: it may only ever return what the pure-Python loader returns ---

from pathlib import Path  # noqa: E402
import random  # noqa: E402

import yaml  # noqa: E402

from rgbench import parsing  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
YAML_FILES = sorted(p for p in REPO.rglob("*.y*ml") if ".venv" not in p.parts and p.suffix in (".yaml", ".yml"))
# Texts where the two parsers could differ: escapes, folding, block scalars, anchors, merges, tags, odd spaces.
YAML_EDGES = [
    'a: "x\\/y\\u00e9\\x41\\N\\_\\L\\P\\e"\n', "a: 'it''s'\n", 'a: "one\\\n  two"\n', "a: >-\n  one\n\n  two\n",
    "a: |+\n  keep\n\n", "a: |2-\n   indented\n", "b: &x {c: 1}\nd: *x\n", "base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n",
    "a: !!str 1\nb: !!binary aGVsbG8=\nc: !!set {x, y}\nd: !!omap [x: 1]\n", "? [a, b]\n: c\n", "a: 1_000\nb: 0x1F\nc: 1e3\n",
    "a: .nan\nb: -.inf\nc: ~\nd: 2026-01-01 10:00:00\n", "a:\u00a0b\n", "a: b\u2028c\n", "a: b\x85c\n", "a: \U0001F600\n",
    "%YAML 1.1\n---\na: 1\n", "--- a\n...\n", "a: [b, {c: d}, [e]]\n", "a: b #c\n#d\n", "a: 1\r\nb: 2\r\n",
    "- - x\n  - y\n- z\n", "a:\n- 1\n- 2\n", "a: b: c\n", "a: @x\n", "a: `x`\n", "a: 'x\n", "!x a: 1\n", "a: *nope\n",
    "a: 1\n\tb: 2\n", "a:\tb\n", "{a:\tb}\n", "a: x\ufeffy\n", "a: \x07\n", "a: [1, 2\n", "a: {b: 1, b: 2}\n",
]


def _outcome(loader: type, text: str) -> tuple:
    try:
        return ("ok", repr(list(yaml.load_all(text, Loader=loader))))
    except (yaml.YAMLError, ParseError) as exc:
        return ("refused", type(exc).__name__)


def _mutations(count: int) -> list[str]:
    rng = random.Random(20260901)
    pieces = list(" \n:-?,[]{}#&*!|>'\"%@`\\09az.\u00a0\u2028") + ["\n  ", "\n- ", ": ", "---", "<<: *a", "&a ", "!!str ", "~"]
    seeds = [p.read_text(encoding="utf-8") for p in YAML_FILES] + YAML_EDGES
    texts = []
    for _ in range(count):
        text = rng.choice(seeds)
        start = rng.randrange(max(1, len(text) - 600))
        text = text[start:start + 600]
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(pieces) + text[at + rng.randint(0, 2):]
        texts.append(text)
    return texts


def test_libyaml_returns_only_what_the_python_loader_returns():
    texts = [p.read_text(encoding="utf-8") for p in YAML_FILES] + YAML_EDGES + _mutations(4000)
    fast_used = 0
    for text in texts:
        fast = parsing._load_all_with_libyaml(text)
        if fast is not None:
            fast_used += 1
            assert _outcome(parsing._StrictSafeLoader, text) == ("ok", repr(fast)), text
    assert len(YAML_FILES) >= 10 and fast_used > 500


@pytest.mark.parametrize("text", ["a: 1\n\tb: 2\n", "a:\tb\n", "{a:\tb}\n", "a: x\ufeffy\n", "a: !\n", "[!x a]\n",
                                  "a: {b 1?b: 2}\n", "a: |#c\n", "a: >2#c\n", "%YAML 1.1\n---\na: 1\n"])
def test_texts_libyaml_reads_differently_take_the_python_loader(text):
    assert parsing._load_all_with_libyaml(text) is None


@pytest.mark.parametrize("rel", ["subjects/registry.yaml", "system/metrics/v1.0/config.yaml",
                                 "system/rubric/v1.0/automatic_fails.yaml"])
def test_the_files_read_on_every_run_take_libyaml(rel):
    """Comments and well-formed block scalars ("description: >-") do not send a file to the slow loader."""
    assert parsing._load_all_with_libyaml((REPO / rel).read_text(encoding="utf-8")) is not None


def test_yaml_outcome_is_the_python_loaders_with_or_without_libyaml(monkeypatch):
    def outcome(text: str) -> tuple:
        try:
            return ("ok", repr(loads_yaml_strict(text)))
        except ParseError as exc:
            return ("refused", str(exc))

    texts = [p.read_text(encoding="utf-8") for p in YAML_FILES] + YAML_EDGES
    with_libyaml = [outcome(text) for text in texts]
    monkeypatch.setattr(parsing, "_StrictCSafeLoader", None)
    assert [outcome(text) for text in texts] == with_libyaml
