"""Lists of subjects (or pairs, or runs) in prose, kept short on large boards.

A sentence that names every subject reads well with five and is a wall of names with a hundred and fifty.
:func:`capped` writes a list whole while it has at most :data:`LIST_LIMIT` items; a longer one becomes its
count, where the whole list is (a results CSV) and its first :data:`LIST_LIMIT` items, in the order given
(leaderboard order wherever the writers pass one). Shared by the Markdown and the page like
:mod:`.significance_text`: ``esc`` escapes the fixed words for the writer, the items are already escaped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ..numfmt import counted

LIST_LIMIT = 5  # items written out; beyond it, the count, the CSV and the first LIST_LIMIT
T = TypeVar("T")


def joined(texts: Sequence[str], esc: Callable[[str], str] = str, sep: str = ", ", last: str = " and ") -> str:
    """``A``, ``A and B``, ``A, B and C`` (``sep`` and ``last`` escaped with ``esc``, by default as they are);
    ``""`` for none."""
    if len(texts) <= 1:
        return "".join(texts)
    return esc(sep).join(texts[:-1]) + esc(last) + texts[-1]


def capped(items: Sequence[T], render: Callable[[Sequence[T]], str], *, noun: str, where: str,
           esc: Callable[[str], str], limit: int = LIST_LIMIT, sep: str = " ") -> str:
    """``render(items)`` when there are at most ``limit`` items; else ``<count> <noun>s (all in <where>); the
    first <limit>:``, then ``sep`` (a space; a line break before a Markdown list), then
    ``render(items[:limit])``.

    ``render`` writes a run of items (already escaped for the writer); ``noun`` is singular (``counted``
    adds the plural s); ``where`` names the file holding every item (``results/pairwise.csv``).
    """
    if len(items) <= limit:
        return render(items)
    return esc(f"{counted(len(items), noun)} (all in {where}); the first {limit}:") + sep + render(items[:limit])


# Where the whole of each capped list is, for the writers.
STATUS_WHERE = "results/leaderboard.csv, column leaderboard_status"
MISSING_CASES_WHERE = "results/metrics_per_subject.csv, column missing_cases"
CRITICAL_RUNS_WHERE = "results/explorer_runs.csv, column fails"
RUNS_WHERE = "results/metrics_per_subject.csv, columns N and n_cases"
