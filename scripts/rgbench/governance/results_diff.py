"""What a change does to the leaderboard: rank moves, metric deltas, new disqualifications, implausible jumps.

Pure functions over two versions of ``results/metrics_per_subject.csv`` (and of
``results/leaderboard.csv`` when it exists): the script reads them from a git
revision and from the working tree and prints :func:`markdown` (for
``$GITHUB_STEP_SUMMARY`` or a pull-request description).

Ranks come from ``leaderboard.csv``'s ``rank`` column when both sides have
it; otherwise they are computed here with the leaderboard's rule: subjects
with N > 0 that are not disqualified, by Q_final, then P, then s_bar
descending, then BS ascending; competition ranks ("1, 2, 2, 4").

A jump is implausible when a subject keeps its version and its Q_final moves
by more than the threshold (default 0.10, ``q_final_jump_threshold`` in
``system/metrics/<version>/config.yaml``, or ``--max-jump``) in one change. A
new version starts a clean record, so its move is reported, never flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from ..compute.metrics import SubjectMetrics
from ..compute.ranking import rank_subjects
from ..load.spec import DEFAULT_MAX_JUMP
from ..numfmt import fmt_fixed, fmt_signed
from ..results_csv import TableError, exact, read_keyed_table
from .annotations import escape_data

METRICS = ("Q_final", "P", "s_bar", "BS", "ECE")
SUBJECT_REQUIRED = ("subject_id", "subject_version", "N", *METRICS, "disqualified")

Rows = dict[str, dict[str, str]]


@dataclass(frozen=True)
class SubjectDiff:
    """How one subject's row changed. ``old``/``new`` are None when the subject is absent on that side."""

    subject_id: str
    old: dict[str, str] | None
    new: dict[str, str] | None
    old_rank: int | None
    new_rank: int | None
    deltas: dict[str, Fraction]  # metric -> new - old, only where both are defined and differ
    newly_disqualified: bool
    implausible: bool

    @property
    def new_version(self) -> bool:
        return self.old is not None and self.new is not None and self.old["subject_version"] != self.new["subject_version"]

    @property
    def changed(self) -> bool:
        return self.old != self.new or self.old_rank != self.new_rank


@dataclass(frozen=True)
class Diff:
    """Every subject's change, ordered by new rank (then subject_id); and the threshold used."""

    subjects: list[SubjectDiff]
    max_jump: Fraction

    @property
    def changed(self) -> list[SubjectDiff]:
        return [s for s in self.subjects if s.changed]


def computed_ranks(rows: Rows) -> dict[str, int]:
    """Competition ranks of the rankable subjects (N > 0, not disqualified) by the leaderboard's rule
    (:func:`rgbench.compute.ranking.rank_subjects`; the fields it does not read are zero)."""
    metrics = [SubjectMetrics(sid, row["subject_version"], int(exact(row["N"]) or 0), 0, exact(row["P"]),
                              exact(row["s_bar"]), exact(row["BS"]), exact(row["ECE"]), exact(row["Q_final"]),
                              Fraction(0), row["disqualified"] == "true", 0) for sid, row in rows.items()]
    return {s.metrics.subject_id: s.rank for s in rank_subjects(metrics) if s.rank is not None}


def board_ranks(board: Rows) -> dict[str, int]:
    """Ranks as leaderboard.csv gives them (empty or non-numeric cells: not ranked; at most 9 digits read)."""
    return {sid: int(row["rank"]) for sid, row in board.items() if _RANK.fullmatch(row.get("rank", ""))}


_RANK = re.compile("[0-9]{1,9}")


def check_numbers(rows: Rows) -> None:
    """TableError naming the first cell of N or a metric that is not a bounded decimal (see ``exact``), so
    that a hostile cell is refused with the file it is in, before any arithmetic."""
    for sid, row in rows.items():
        for column in ("N", *METRICS):
            try:
                exact(row[column])
            except TableError as exc:
                raise TableError(f"subject {sid!r}, column {column}: {exc}") from None


def diff(old: Rows, new: Rows, *, old_ranks: dict[str, int], new_ranks: dict[str, int],
         max_jump: Fraction = DEFAULT_MAX_JUMP) -> Diff:
    """Compare two subject tables (rows by subject_id)."""
    subjects = []
    for sid in sorted(set(old) | set(new)):
        before, after = old.get(sid), new.get(sid)
        deltas: dict[str, Fraction] = {}
        if before is not None and after is not None:
            for metric in METRICS:
                a, b = exact(before[metric]), exact(after[metric])
                if a is not None and b is not None and a != b:
                    deltas[metric] = b - a
        same_version = before is not None and after is not None and before["subject_version"] == after["subject_version"]
        newly_disqualified = after is not None and after["disqualified"] == "true" and (
            before is None or before["disqualified"] != "true" or not same_version)
        implausible = same_version and abs(deltas.get("Q_final", Fraction(0))) > max_jump
        subjects.append(SubjectDiff(sid, before, after, old_ranks.get(sid), new_ranks.get(sid), deltas,
                                    newly_disqualified, implausible))
    unranked = 10**9
    subjects.sort(key=lambda s: (s.new is None, s.new_rank if s.new_rank is not None else unranked, s.subject_id))
    return Diff(subjects, max_jump)


def diff_tables(old: tuple[bytes | None, bytes | None], new: tuple[bytes, bytes | None], *,
                where: tuple[str, str], max_jump: Fraction = DEFAULT_MAX_JUMP) -> Diff:
    """:func:`diff` of two sides, each ``(metrics_per_subject.csv, leaderboard.csv)`` as bytes (None: absent; an
    absent old subject table is an empty one). Ranks from leaderboard.csv when both sides have it. ``where``
    names the two sides in messages: a TableError reads ``results/<table> <side>: <what is wrong>``."""
    def rows(data: bytes, required: tuple[str, ...], table: str, side: str) -> Rows:
        try:
            found = read_keyed_table(data, required)
            if required == SUBJECT_REQUIRED:
                check_numbers(found)
        except TableError as exc:
            raise TableError(f"results/{table}{side}: {exc}") from None
        return found

    old_rows = rows(old[0], SUBJECT_REQUIRED, "metrics_per_subject.csv", where[0]) if old[0] is not None else {}
    new_rows = rows(new[0], SUBJECT_REQUIRED, "metrics_per_subject.csv", where[1])
    if old[1] is not None and new[1] is not None:
        old_ranks = board_ranks(rows(old[1], ("subject_id", "rank"), "leaderboard.csv", where[0]))
        new_ranks = board_ranks(rows(new[1], ("subject_id", "rank"), "leaderboard.csv", where[1]))
    else:
        old_ranks, new_ranks = computed_ranks(old_rows), computed_ranks(new_rows)
    return diff(old_rows, new_rows, old_ranks=old_ranks, new_ranks=new_ranks, max_jump=max_jump)


def md_cell(text: str) -> str:
    """A Markdown table cell that renders as the literal text (no links, HTML or table breaks)."""
    out = []
    for char in text:
        if char in "\\`*_[]<>|~&":
            out.append(f"&#{ord(char)};")
        elif char in "\r\n\t":
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)


def _code(text: str) -> str:
    """Inline code (a revision name is shown as typed); backticks and line breaks are dropped."""
    return "`" + "".join(c for c in text if c not in "`\r\n") + "`"


def _rank_cell(s: SubjectDiff) -> str:
    old = "-" if s.old_rank is None else str(s.old_rank)
    new = "-" if s.new_rank is None else str(s.new_rank)
    if old == new:
        return new
    move = ""
    if s.old_rank is not None and s.new_rank is not None:
        move = f" (▲{s.old_rank - s.new_rank})" if s.new_rank < s.old_rank else f" (▼{s.new_rank - s.old_rank})"
    return f"{old} → {new}{move}"


def _metric_cell(s: SubjectDiff, metric: str) -> str:
    value = (s.new or {}).get(metric, "") or "-"
    if metric in s.deltas:
        return f"{value} ({fmt_signed(s.deltas[metric])})"
    if s.old is not None and s.new is not None and s.old.get(metric) != s.new.get(metric):
        return f"{s.old.get(metric) or '-'} → {value}"
    return value


def _note(s: SubjectDiff) -> str:
    notes = []
    if s.old is None:
        notes.append("new subject")
    elif s.new is None:
        notes.append("removed")
    elif s.new_version:
        notes.append(f"new version {s.old['subject_version']} → {s.new['subject_version']} (clean record)")
    if s.newly_disqualified:
        notes.append("**newly disqualified**")
    if s.implausible:
        notes.append("**implausible jump**")
    if s.old is not None and s.new is not None and s.old["N"] != s.new["N"]:
        notes.append(f"N {s.old['N']} → {s.new['N']}")
    return "; ".join(md_cell(n) if "**" not in n else n for n in notes)


def markdown(result: Diff, *, base_label: str, head_label: str = "working tree") -> str:
    """The diff as Markdown: a summary line, a table of changed subjects, then the flags."""
    lines = [f"## Results diff: {_code(base_label)} → {md_cell(head_label)}", ""]
    changed = result.changed
    if not changed:
        lines.append("No change to `results/metrics_per_subject.csv` or the ranks.")
        return "\n".join(lines) + "\n"
    lines.append(f"{len(changed)} subject(s) changed.")
    lines += ["", "| subject | version | rank | " + " | ".join(METRICS) + " | note |",
              "|---|---|---|" + "---|" * len(METRICS) + "---|"]
    for s in changed:
        row = s.new or s.old or {}
        cells = [md_cell(s.subject_id), md_cell(row.get("subject_version", "")), _rank_cell(s)]
        cells += [md_cell(_metric_cell(s, metric)) if s.new is not None else "-" for metric in METRICS]
        cells.append(_note(s))
        lines.append("| " + " | ".join(cells) + " |")
    # A newly disqualified subject has a new row; an implausible jump has both rows (see diff).
    disqualified = [(s, s.new) for s in changed if s.newly_disqualified and s.new is not None]
    jumps = [(s, s.old, s.new) for s in changed if s.implausible and s.old is not None and s.new is not None]
    lines += ["", "### Newly disqualified", ""]
    lines += [f"- {md_cell(s.subject_id)} {md_cell(new['subject_version'])}: a critical fail "
              f"(n_critical {md_cell(new.get('n_critical', '?'))})" for s, new in disqualified] or ["None."]
    lines += ["", f"### Implausible jumps (|ΔQ_final| > {fmt_fixed(result.max_jump)})", ""]
    lines += [f"- {md_cell(s.subject_id)}: Q_final {old['Q_final']} → {new['Q_final']} "
              f"({fmt_signed(s.deltas['Q_final'])}); check the scorings of this change before merging"
              for s, old, new in jumps] or ["None."]
    return "\n".join(lines) + "\n"


def github_warnings(result: Diff) -> list[str]:
    """``::warning::`` lines for the flags, so they also show on the workflow run."""
    out = []
    for s in result.subjects:
        # As in markdown: implausible implies both rows, newly_disqualified a new row.
        if s.implausible and s.old is not None and s.new is not None:
            out.append("::warning title=Implausible jump::" + escape_data(
                f"{s.subject_id}: Q_final {s.old['Q_final']} -> {s.new['Q_final']} ({fmt_signed(s.deltas['Q_final'])}), "
                f"more than {fmt_fixed(result.max_jump)} in one change"))
        if s.newly_disqualified and s.new is not None:
            out.append("::warning title=Newly disqualified::" + escape_data(
                f"{s.subject_id} {s.new['subject_version']} is now disqualified (critical fail)"))
    return out
