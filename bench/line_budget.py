"""Lines of the library by part, against the lean budget of issue 26 (docs/architecture.md, "Line budget").

    .venv/bin/python bench/line_budget.py          # the table, Markdown

Every Python file, page template and toolkit schema of the library (scripts/rgbench/**, scripts/*.py)
belongs to the first part whose patterns match its path (fnmatch on the path relative to scripts/);
tests/test_line_budget.py fails on a file no part claims and on a pattern that claims nothing, so a new
module must be placed. Lines are physical lines (`wc -l`), docstrings and comments included: what a reader
has to read.
"""

from __future__ import annotations

import sys
from fnmatch import fnmatch
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = REPO / "scripts"

# (part, lean budget in lines from issue 26, patterns relative to scripts/); first match wins. The leaderboard's
# budget is issue 26's 2,050 lines of code plus its "about 350 lines of templates"; the judge-assisted part's is
# issue 28's "about 1,500 lines with its study".
PARTS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    # issue 28's new code, with its study
    ("judge-assisted", 1500, ("rgbench/stats/judge_assisted*.py", "rgbench/stats/grading_plan.py",
                              "rgbench/leaderboard/judge_assisted*.py", "rgbench/load/draws.py",
                              "rgbench/load/schemas/human_draws.schema.json", "rgbench/commands/plan.py")),
    ("reviewers", 810, ("rgbench/stats/agreement*.py", "rgbench/stats/judge_agreement.py",
                        "rgbench/stats/reviewer_report.py", "rgbench/stats/consolidated_board.py",
                        "rgbench/leaderboard/reviewers_section.py", "rgbench/leaderboard/grades_text.py")),
    ("lab breakdowns", 360, ("rgbench/results/breakdowns.py", "rgbench/leaderboard/lab_*.py",
                             "rgbench/leaderboard/explorer.py")),
    ("inputs", 2100, ("rgbench/load/*.py", "rgbench/load/schemas/*.json", "rgbench/results_csv.py")),
    ("core and tables", 1400, ("rgbench/compute/*.py", "rgbench/results/*.py", "rgbench/numfmt.py",
                               "rgbench/result_columns.py",
                               "rgbench/problems.py", "rgbench/atomic.py")),
    ("statistics", 1370, ("rgbench/stats/*.py",)),
    ("leaderboard", 2050 + 350, ("rgbench/leaderboard/*.py", "rgbench/leaderboard/templates/*.j2")),
    ("governance", 2100, ("rgbench/governance/*.py",)),
    ("grading page", 850, ("rgbench/review/*.py", "rgbench/review/templates/*.j2")),
    ("command line and edges", 675, ("rgbench/*.py", "rgbench/commands/*.py", "*.py", "rgbench/templates/**")),
)
# issue 26 writes "about 11,700" for the total; its parts add up to this
LEAN_TOTAL = sum(budget for _, budget, _ in PARTS)


def library_files() -> list[Path]:
    """Every Python file, page template (``*.j2``) and toolkit schema (``rgbench/load/schemas/*.json``, which
    replace hand-written checks) of the library, sorted."""
    files = [p for pattern in ("*.py", "*.j2") for p in SCRIPTS.rglob(pattern) if "__pycache__" not in p.parts]
    return sorted(files + list((SCRIPTS / "rgbench" / "load" / "schemas").glob("*.json")))


def part_of(rel: str) -> str | None:
    """The first part whose patterns match ``rel`` (a path relative to scripts/, with /), or None."""
    for part, _, patterns in PARTS:
        if any(fnmatch(rel, pattern) for pattern in patterns):
            return part
    return None


def lines_by_part() -> dict[str, int]:
    """Physical lines per part, in PARTS order (a part with no file counts 0)."""
    out = {part: 0 for part, _, _ in PARTS}
    for path in library_files():
        part = part_of(path.relative_to(SCRIPTS).as_posix())
        if part is not None:
            out[part] += len(path.read_text(encoding="utf-8").splitlines())
    return out


def table() -> str:
    lines = lines_by_part()
    rows = ["| part | lines now | lean budget |", "|---|---:|---:|"]
    rows += [f"| {part} | {lines[part]:,} | {budget:,} |" for part, budget, _ in PARTS]
    rows.append(f"| **total** | **{sum(lines.values()):,}** | **{LEAN_TOTAL:,}** |")
    return "\n".join(rows) + "\n"


def main() -> int:
    sys.stdout.write(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
