"""Nothing benchmark-specific in the code: the library under scripts/ names no fact of the shipped suite.

The facts are read from the shipped system/ (whatever benchmark it holds): its
criteria, family codes, case-id prefix and classification thresholds. The
scan tokenises every Python file under scripts/ so that English prose is not
mistaken for a name: a criterion is flagged as an identifier or a string
literal equal to it (``"diagnosis"``; a multi-word name such as
``causal_reasoning`` anywhere in a string), a family code or the id prefix as a
word in any string or comment, a threshold as a number compared with something.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from treebuilder import REPO

from rgbench.load.spec import load_spec
from rgbench.load.system_check import family_group

SPEC, _ = load_spec(REPO)
assert SPEC is not None
COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}
# Field names of the toolkit's own file formats that a benchmark may also choose as a criterion name: the
# sample's criterion `evidence` is also the scoring schema's automatic_fails_triggered[].evidence (the quote
# that triggers a fail), which the grading page and the loader read whatever the benchmark.
FORMAT_FIELDS = frozenset({"evidence"})


def library_files() -> list[Path]:
    return sorted((REPO / "scripts").rglob("*.py"))


def id_prefix(pattern: str) -> str:
    """The literal text before the family group, e.g. ``RO-`` of ``^RO-(?P<family>...)``."""
    split = family_group(pattern)
    head = (split[0] if split else "").lstrip("^")
    return re.match(r"[A-Za-z0-9_-]*", head).group(0)  # type: ignore[union-attr]


def findings(source: str, criteria: tuple[str, ...], families: list[str], prefix: str,
             thresholds: set[int]) -> list[str]:
    """Every place in ``source`` that names one of the given facts, as ``line: what``."""
    found = []
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    words = [re.compile(rf"(?<![A-Za-z0-9_]){re.escape(code)}(?![A-Za-z0-9_])") for code in families]
    if prefix:
        words.append(re.compile(rf"(?<![A-Za-z0-9_]){re.escape(prefix)}(?=[A-Z0-9<{{])"))
    for index, token in enumerate(tokens):
        line = token.start[0]
        if token.type == tokenize.NAME and token.string in criteria:
            found.append(f"{line}: identifier {token.string}")
        if token.type == tokenize.STRING:
            try:
                value = eval(token.string, {})  # a literal; f-strings are not STRING tokens in 3.12+
            except Exception:
                value = token.string
            text = value if isinstance(value, str) else token.string
            if text in criteria or any("_" in name and name in text for name in criteria):
                found.append(f"{line}: string naming a criterion: {text[:60]!r}")
        if token.type in (tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", -1)):
            for word in words:
                if word.search(token.string):
                    found.append(f"{line}: {word.pattern} in {token.string[:60]!r}")
        if token.type == tokenize.NUMBER and token.string.isdigit() and int(token.string) in thresholds:
            before = tokens[index - 1].string if index else ""
            after = tokens[index + 1].string if index + 1 < len(tokens) else ""
            if before in COMPARISONS or after in COMPARISONS:
                found.append(f"{line}: threshold {token.string} compared")
    return found


def test_the_scan_finds_each_kind_of_fact():
    # The scan is not vacuous: each kind of fact is caught in a made-up source.
    source = ('if row.diagnosis and clipped >= 10:\n'
              '    name = "causal_reasoning"\n'
              '    key = "safety"  # RO-FOUL-001\n'
              '    msg = "family CHEM"\n')
    found = findings(source, ("diagnosis", "safety", "causal_reasoning"), ["CHEM", "FOUL"], "RO-", {10})
    assert found == ["1: identifier diagnosis", "1: threshold 10 compared",
                     "2: string naming a criterion: 'causal_reasoning'", "3: string naming a criterion: 'safety'",
                     "3: (?<![A-Za-z0-9_])FOUL(?![A-Za-z0-9_]) in '# RO-FOUL-001'",
                     "3: (?<![A-Za-z0-9_])RO\\-(?=[A-Z0-9<{]) in '# RO-FOUL-001'",
                     "4: (?<![A-Za-z0-9_])CHEM(?![A-Za-z0-9_]) in '\"family CHEM\"'"]
    # English prose is not a criterion: "a safety hazard" in a string is allowed.
    assert findings('text = "a safety hazard"\n', ("safety",), [], "", set()) == []


def test_the_library_names_no_criterion_family_id_prefix_or_threshold_of_the_shipped_suite():
    thresholds = {SPEC.pass_threshold, SPEC.conditional_threshold, SPEC.scale.high}
    prefix = id_prefix(SPEC.case_id_re.pattern)
    report = []
    for path in library_files():
        criteria = tuple(name for name in SPEC.criteria if name not in FORMAT_FIELDS)
        for finding in findings(path.read_text(encoding="utf-8"), criteria, sorted(SPEC.families), prefix,
                                thresholds):
            report.append(f"{path.relative_to(REPO)}:{finding}")
    assert report == []
