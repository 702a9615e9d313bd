"""Problems are values: every check returns them, the script reports them all at once."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one input file.

    ``path`` is relative to the benchmark tree (POSIX separators); ``message``
    says what is wrong and, when there is one, how to fix it. Problems sort by
    path, then message, so reports are stable.
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def refuse(message: object) -> int:
    """Print one refusal (``path: what is wrong (how to fix it)``) on stderr; the exit status, 1."""
    print(message, file=sys.stderr)
    return 1


def report(problems: Iterable[Problem], stream: TextIO | None = None) -> int:
    """Print problems sorted, one per line, with a count; return the exit status (1 if any)."""
    stream = stream or sys.stderr
    items = sorted(set(problems))
    for problem in items:
        print(problem, file=stream)
    if items:
        print(f"{len(items)} problem(s) found; nothing was written.", file=stream)
    return 1 if items else 0
