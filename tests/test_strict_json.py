"""The strict JSON reader's behaviour where its implementation is not json.loads's: one shared decoder
(so json.loads's own byte-order-mark check is made here), a duplicate-key hook that builds the dict at
once, raw surrogates found by encoding the text, and exact_decimal through Decimal."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from treebuilder import extract_gold_json

from rgbench.load.parsing import ParseError, exact_decimal, loads_json_strict

BOM_MESSAGE = "invalid JSON at line 1 column 1: Unexpected UTF-8 BOM (decode using utf-8-sig)"


def refusal(text: str) -> str:
    with pytest.raises(ParseError) as caught:
        loads_json_strict(text)
    return str(caught.value)


def test_a_text_starting_with_a_byte_order_mark_gets_json_loads_own_message():
    assert refusal("\ufeff{}") == BOM_MESSAGE
    with pytest.raises(ParseError) as caught:
        extract_gold_json("```json\n\ufeff{}\n```\n")
    assert str(caught.value) == f"json block at line 1: {BOM_MESSAGE}"
    assert loads_json_strict('{"a": "\ufeff"}') == {"a": "\ufeff"}     # elsewhere it is a character like any


@pytest.mark.parametrize(("text", "key"), [
    ('{"a": 1, "b": 1, "b": 2, "a": 2}', "b"),                 # the first key met again, not the first written
    ('{"a": 1, "b": 2, "a": 3, "b": 4}', "a"),
    ('{"a": {"c": 1, "c": 2}, "a": 3}', "c"),                   # an inner object is read first
    ('[{"x": 1}, {"x": 1, "y": 2, "y": 3}]', "y"),
])
def test_the_duplicate_key_named_is_the_first_met_again(text, key):
    assert refusal(text) == f"invalid JSON: duplicate key {key!r} (keep only one)"


def test_objects_keep_their_keys_in_order():
    document = loads_json_strict('{"z": 1, "a": {"y": [], "b": null}, "m": "x"}')
    assert list(document) == ["z", "a", "m"] and list(document["a"]) == ["y", "b"]


def test_a_raw_surrogate_is_refused_in_a_non_ascii_text_and_ascii_text_is_read():
    assert "holds a lone surrogate" in refusal('{"a": "é", "b": "\udc00"}')
    assert loads_json_strict('{"a": "plain ascii \\\\u00e9"}') == {"a": "plain ascii \\u00e9"}
    assert loads_json_strict('{"a": "é \\ud83d\\ude00"}') == {"a": "é \U0001F600"}
    assert loads_json_strict('{"a": "\U0001F600 \ue000 \uffff"}') == {"a": "\U0001F600 \ue000 \uffff"}


@pytest.mark.parametrize("value", [0, 1, -7, 10**17, 0.5, 0.1, -0.25, 1e-5, 1e22, 5e-324, "0.1", "-0", ".5", "5.",
                                   "+2.50", "1e-400", "-3E+400", " 12.75 ", "0.50000000000000000001"])
def test_exact_decimal_is_the_decimal_written(value):
    text = value.strip() if isinstance(value, str) else str(value)
    assert exact_decimal(value) == Fraction(text) == Fraction(Decimal(text))
    assert type(exact_decimal(value)) is Fraction
