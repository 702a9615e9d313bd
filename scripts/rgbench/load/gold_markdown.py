"""Find a gold file's data block, with markdown-it-py (CommonMark): its last fenced block with info string ``json``.

The rule (:data:`DATA_BLOCK_RULE`): a gold's data is its LAST ```json block. Every earlier ```json block is case
text (a reference answer may quote JSON), and so is anything inside another fence (a ````markdown block that
shows a ```json one). Every gold written before issue 23 had exactly one ```json block, at the end, so each
reads as before. When the block found is not valid gold data and earlier ```json blocks exist,
:func:`quoted_blocks_note` says which block was read and why.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from markdown_it import MarkdownIt

from .parsing import ParseError, loads_json_strict

# Block structure only: fences are block tokens, and the inline rules (emphasis, links) are where
# hostile text costs seconds (bench/hostile_bench.py: 240 KB of "*a " took 2 s with them, 0.00 s without).
_MARKDOWN = MarkdownIt("commonmark").disable("inline")
DATA_BLOCK_RULE = "a gold's data block is its last ```json block"


class DataBlock(NamedTuple):
    """The data block of a gold: the line of its opening fence (1-based), its text, and the opening lines of the
    earlier ```json blocks (case text)."""

    line: int
    content: str
    quoted: tuple[int, ...] = ()


def _fence_is_closed(lines: list[str], start: int, end: int, markup: str) -> bool:
    """A fence is closed when its last line is a closing fence of the same character, at least as long."""
    if end - start < 2 or end > len(lines):
        return False
    closing = lines[end - 1].strip()
    char = markup[0]
    return len(closing) >= len(markup) and set(closing) == {char}


def gold_data_block(text: str) -> DataBlock:
    """The last fenced block whose info string is ``json`` (:data:`DATA_BLOCK_RULE`), with the earlier ones' lines.

    Raises ParseError when a fence is left unclosed (it would swallow the rest of the file) or when there is no
    ``json`` block.
    """
    lines = text.splitlines()
    blocks = []
    for token in _MARKDOWN.parse(text):
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        if not _fence_is_closed(lines, start, end, token.markup):
            raise ParseError(f"unclosed code fence opened at line {start + 1} (add a closing {token.markup})")
        info = token.info.strip().split()
        if info and info[0] == "json":
            blocks.append((start + 1, token.content))
    if not blocks:
        raise ParseError(f"no ```json block found ({DATA_BLOCK_RULE}: add one holding the case's data)")
    line, content = blocks[-1]
    return DataBlock(line, content, tuple(start for start, _ in blocks[:-1]))


def _quoted(block: DataBlock) -> str:
    """The rule, and which earlier ```json blocks it made case text."""
    if len(block.quoted) == 1:
        return f"{DATA_BLOCK_RULE}; the one at line {block.quoted[0]} is case text"
    return f"{DATA_BLOCK_RULE}; those at lines {', '.join(str(line) for line in block.quoted)} are case text"


def parse_data_block(block: DataBlock) -> Any:
    """The JSON of ``block``; ParseError naming its line (and the rule, when earlier ```json blocks exist)."""
    try:
        return loads_json_strict(block.content)
    except ParseError as exc:
        where = f"json block at line {block.line}" + (f" ({_quoted(block)})" if block.quoted else "")
        raise ParseError(f"{where}: {exc}") from None


def quoted_blocks_note(block: DataBlock) -> str | None:
    """Why the block was read as the data, for a gold whose data block is not valid gold data: None when it is the
    file's only ```json block."""
    if not block.quoted:
        return None
    return (f"json block at line {block.line} was read as the case's data ({_quoted(block)}) (put the data block "
            "after every ```json block the case text quotes)")
