"""Embed ``results/leaderboard.md`` in README.md between two marker comments, so the two cannot drift.

The README holds::

    <!-- leaderboard:start -->
    ...generated, replaced on every `build_leaderboard.py --readme`...
    <!-- leaderboard:end -->

and the test suite checks that the committed block equals the committed
``results/leaderboard.md``.
"""

from __future__ import annotations

from pathlib import Path

from ..load.parsing import ParseError, decode_utf8
from ..load.safe_read import read_single_file
from ..problems import Problem

README_FILE = "README.md"
START = "<!-- leaderboard:start -->"
END = "<!-- leaderboard:end -->"


def split_readme(text: str) -> tuple[str, str, str] | str:
    """(before the block incl. START line, the block, from the END line on), or a message if the markers are wrong."""
    starts, ends = text.count(START), text.count(END)
    if starts != 1 or ends != 1:
        return f"needs exactly one {START} and one {END} line (found {starts} and {ends})"
    head, _, rest = text.partition(START)
    block, _, tail = rest.partition(END)
    if END in head:
        return f"{END} comes before {START}"
    return head + START + "\n", block.strip("\n"), END + tail


def replace_block(text: str, markdown: str) -> str:
    """README text with the block replaced by ``markdown``; raises ValueError if the markers are wrong."""
    parts = split_readme(text)
    if isinstance(parts, str):
        raise ValueError(parts)
    head, _, tail = parts
    return f"{head}{markdown.rstrip(chr(10))}\n{tail}"


def embed_in_readme(root: Path, markdown: str) -> tuple[bytes | None, Problem | None]:
    """New README bytes (None when already up to date), or a problem when it is missing or has no markers."""
    data, problems = read_single_file(root, README_FILE)
    if data is None:
        return None, problems[0]
    try:
        text = decode_utf8(data)
        new = replace_block(text, markdown)
    except (ParseError, ValueError) as exc:
        return None, Problem(README_FILE, f"{exc} (add the two marker lines where the leaderboard goes)")
    return (None if new == text else new.encode("utf-8")), None
