"""Issue 12 item 7: no traceback, ever. A property-based fuzz test (hypothesis) mutates every kind of
input of a small valid tree (registry, gold, response, scoring, further grade, system YAML and schema)
by bytes and by structure, runs validate.py in-process, and asserts exit 0 or 1, no exception, and that
every line it prints is `path: message`. compute_metrics' --alpha is fuzzed the same way and must leave
results/ untouched when it refuses. Kept fast: a few dozen examples per kind, derandomized so that a
failure reproduces.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from treebuilder import small_tree

from rgbench.cli import run_script

# RGBENCH_FUZZ_EXAMPLES=500 for a longer hunt (the default keeps `make test` fast).
FUZZ = settings(max_examples=int(os.environ.get("RGBENCH_FUZZ_EXAMPLES", "30")), deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
INPUTS = {
    "registry": "subjects/registry.yaml",
    "gold": "golds/v1.0/RO-FOUL-001_gold.md",
    "response": "responses/v1.0/alpha-model/RO-FOUL-001__r1.json",
    "scoring": "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json",
    "further grade": "scoring_multi/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-z.json",
    "config": "system/metrics/v1.0/config.yaml",
    "benchmark": "system/benchmark.yaml",
    "catalog": "system/rubric/v1.0/automatic_fails.yaml",
    "schema": "system/schemas/v1.0/evaluation.schema.json",
}
# A problem line, or the closing count; validate.py prints nothing else on stderr.
LINE = re.compile(r"^(\S[^\n]*?: .+|\d+ problem\(s\) found; nothing was written\.)$")

_BASE: dict[str, Path] = {}


def base_tree() -> Path:
    """One valid tree (with a further grade), built once and copied for each example."""
    if "root" not in _BASE:
        root = Path(tempfile.mkdtemp(prefix="rgbench-fuzz-")) / "tree"
        tree = small_tree(root)
        document = tree.scoring_doc("alpha-model", "RO-FOUL-001", "r1", "rev-z", raw=9, correctness=1)
        tree.write(INPUTS["further grade"], json.dumps(document, indent=2, sort_keys=True) + "\n")
        _BASE["root"] = root
    return _BASE["root"]


def fresh_copy(work: Path) -> Path:
    root = work / "tree"
    shutil.copytree(base_tree(), root)
    return root


# Values a hostile writer would try: odd numbers, odd text (surrogates, NUL, bidi), deep nesting.
HOSTILE_TEXT = st.sampled_from(["\ud800", "\x00", "\u202e", "\u200b", "\ufeff", "=1+1", "a" * 5000, "", " ",
                                "1e-99999999", "0.50000000000000000001", "../../etc/passwd", "*alias", "&anchor"])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20), HOSTILE_TEXT,
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=8) | HOSTILE_TEXT, inner,
                                                                        max_size=4)), max_leaves=12)
RAW_NUMBERS = st.sampled_from(["1e400", "-0", "1.9999999999999999", "0.50000000000000000001", "1e-99999999",
                               "9" * 30, "NaN", "Infinity", "0x10", "1_000", ".5"])


def _mutate_json(data: bytes, draw) -> bytes:
    document = json.loads(data)
    keys = sorted(document)
    key = draw(st.sampled_from(keys + ["extra_key", "\ud800"]))
    how = draw(st.sampled_from(["value", "remove", "raw number", "nest"]))
    if how == "remove" and key in document:
        del document[key]
    elif how == "nest":
        document[key] = json.loads("[" * 50 + "]" * 50)
    elif how == "raw number":
        document[key] = "__RAW__"
        text = json.dumps(document, indent=2, sort_keys=True)
        return text.replace('"__RAW__"', draw(RAW_NUMBERS)).encode("utf-8", "surrogatepass")
    else:
        document[key] = draw(VALUES)
    return json.dumps(document, indent=2, sort_keys=True).encode("utf-8", "surrogatepass")


def _mutate_text(data: bytes, draw) -> bytes:
    """A line of a YAML or Markdown file replaced, or a scalar after a colon."""
    lines = data.decode("utf-8").split("\n")
    index = draw(st.integers(min_value=0, max_value=max(len(lines) - 1, 0)))
    line = lines[index]
    replacement = draw(st.one_of(HOSTILE_TEXT, st.text(max_size=30), RAW_NUMBERS,
                                 st.sampled_from(["&a [1]", "*a", "<<: *a", "!!python/object:os.system", "- ",
                                                  "```", "```json", "{", "'", '"\\ud800"', "? x", "--- ", "..."])))
    if ":" in line and draw(st.booleans()):
        lines[index] = line.split(":", 1)[0] + ": " + replacement
    else:
        lines[index] = replacement
    return "\n".join(lines).encode("utf-8", "surrogatepass")


@st.composite
def mutations(draw, kind: str):
    """(relative path, new bytes) for one mutation of the input of ``kind``."""
    rel = INPUTS[kind]
    data = (base_tree() / rel).read_bytes()
    how = draw(st.sampled_from(["structure", "bytes", "truncate"]))
    if how == "truncate":
        return rel, data[: draw(st.integers(min_value=0, max_value=len(data)))]
    if how == "bytes":
        start = draw(st.integers(min_value=0, max_value=len(data)))
        junk = draw(st.binary(max_size=16))
        return rel, data[:start] + junk + data[start + draw(st.integers(min_value=0, max_value=8)):]
    if rel.endswith(".json"):
        return rel, _mutate_json(data, draw)
    return rel, _mutate_text(data, draw)


def check_output(code: int, err: str) -> None:
    assert code in (0, 1), err
    for line in err.splitlines():
        assert LINE.match(line), line


@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_any_mutation_of_any_input_is_accepted_or_refused_as_path_message(kind, capsys):
    @FUZZ
    @given(mutation=mutations(kind))
    def run(mutation):
        rel, data = mutation
        with tempfile.TemporaryDirectory() as work:
            root = fresh_copy(Path(work))
            (root / rel).write_bytes(data)
            code = run_script("validate", ["--root", str(root)])
            check_output(code, capsys.readouterr().err)

    run()


@FUZZ
@given(alpha=st.one_of(st.text(max_size=30), HOSTILE_TEXT, RAW_NUMBERS,
                       st.decimals(allow_nan=False, allow_infinity=False, places=None).map(str)))
def test_any_alpha_is_accepted_or_refused_as_a_usage_problem(alpha):
    with tempfile.TemporaryDirectory() as work:
        root = fresh_copy(Path(work))
        with pytest.MonkeyPatch.context() as patch:
            errors: list[str] = []
            patch.setattr("sys.stderr", _Sink(errors))
            patch.setattr("sys.stdout", _Sink([]))
            code = run_script("compute", ["--root", str(root), f"--alpha={alpha}"])
        check_output(code, "".join(errors))
        assert (root / "results").exists() == (code == 0)  # a refused run writes nothing


class _Sink:
    """A text stream that keeps what is written (capsys cannot be used inside a hypothesis test)."""

    def __init__(self, into: list[str]):
        self.into = into

    def write(self, text: str) -> int:
        self.into.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False
