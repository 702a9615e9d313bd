"""Extract the single embedded ```json block of a gold file, with markdown-it-py (CommonMark)."""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt

from .parsing import ParseError, loads_json_strict

# Block structure only: fences are block tokens, and the inline rules (emphasis, links) are where
# hostile text costs seconds (bench/hostile_bench.py: 240 KB of "*a " took 2 s with them, 0.00 s without).
_MARKDOWN = MarkdownIt("commonmark").disable("inline")


def _fence_is_closed(lines: list[str], start: int, end: int, markup: str) -> bool:
    """A fence is closed when its last line is a closing fence of the same character, at least as long."""
    if end - start < 2 or end > len(lines):
        return False
    closing = lines[end - 1].strip()
    char = markup[0]
    return len(closing) >= len(markup) and set(closing) == {char}


def extract_gold_json(text: str) -> Any:
    """Return the parsed JSON of the one fenced block whose info string is ``json``.

    Raises ParseError when a fence is left unclosed (it would swallow the rest
    of the file), when there is no ``json`` block, or when there are several.
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
        raise ParseError("no ```json block found (a gold needs exactly one)")
    if len(blocks) > 1:
        where = ", ".join(str(line) for line, _ in blocks)
        raise ParseError(f"{len(blocks)} ```json blocks found at lines {where} (a gold needs exactly one)")
    line, content = blocks[0]
    try:
        return loads_json_strict(content)
    except ParseError as exc:
        raise ParseError(f"json block at line {line}: {exc}") from None
