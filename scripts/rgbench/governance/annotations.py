"""Problems as GitHub Actions annotations: ``::error file=PATH,line=N::message``.

GitHub reads these workflow commands from a step's output and pins each
message to the file and line in the pull request's "Files changed" view. The
path is relative to the repository root (the benchmark tree). Values are
escaped as the runner expects (``%``, CR and LF everywhere; ``:`` and ``,`` in
properties too), so a crafted file name cannot inject another command.

The line is found from the message: ``invalid JSON at line 3`` names it; a
``$.key.sub[2].leaf`` location is looked up in the file's text; otherwise the
annotation points at line 1.
"""

from __future__ import annotations

import re

from ..problems import Problem

_LINE_IN_MESSAGE = re.compile(r"\bat line (\d+)\b")
_POINTER = re.compile(r"^\$((?:\.[A-Za-z0-9_-]+|\[\d+\])*)")
_STEP = re.compile(r"\.([A-Za-z0-9_-]+)|\[(\d+)\]")


def escape_data(text: str) -> str:
    """Escape a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value (file=...)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def pointer_steps(message: str) -> list[str | int]:
    """The steps of the ``$.a.b[0]`` location a message starts with (``[]`` when it has none)."""
    match = _POINTER.match(message)
    if not match:
        return []
    return [name if name else int(index) for name, index in _STEP.findall(match.group(1))]


def locate_line(message: str, text: str | None) -> int:
    """Best line (1-based) of the file ``text`` for a problem ``message``.

    Keys are searched in order, each after the line of the previous one, as
    ``"key":`` (JSON) or ``key:`` (YAML); an index ``[n]`` moves to the n-th
    following list item (YAML ``- ``) when the file has them. The last line
    found wins; 1 when nothing matches or the text is unavailable.
    """
    explicit = _LINE_IN_MESSAGE.search(message)
    if explicit:
        return int(explicit.group(1))
    if text is None:
        return 1
    lines = text.splitlines()
    current = 0
    found = 1
    for step in pointer_steps(message):
        if isinstance(step, str):
            pattern = re.compile(rf'^\s*(?:-\s+)?(?:"{re.escape(step)}"|{re.escape(step)})\s*:')
            for number in range(current, len(lines)):
                if pattern.match(lines[number]):
                    current, found = number, number + 1
                    break
            else:
                break
        else:
            items = _element_lines(lines, current)
            if step >= len(items):
                break
            current, found = items[step], items[step] + 1
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _element_lines(lines: list[str], key_line: int) -> list[int]:
    """Line numbers where the elements of the list under ``key_line`` start (YAML ``- `` items or
    JSON elements one level deeper), assuming one element start per line."""
    following = [n for n in range(key_line + 1, len(lines)) if lines[n].strip()]
    if not following:
        return []
    child = _indent(lines[following[0]])
    starts = []
    for n in following:
        if _indent(lines[n]) < child:
            break
        stripped = lines[n].strip()
        if _indent(lines[n]) == child and not stripped.startswith(("}", "]")):
            if stripped.startswith("- ") or stripped == "-" or not lines[following[0]].strip().startswith("-"):
                starts.append(n)
    return starts


def github_line(problem: Problem, text: str | None, level: str = "error") -> str:
    """One annotation line for ``problem``; ``text`` is the file's content when readable."""
    line = locate_line(problem.message, text)
    return f"::{level} file={escape_property(problem.path)},line={line}::{escape_data(problem.message)}"
