#!/usr/bin/env python3
"""Build the public leaderboard from the committed result tables.

Reads results/per_run.csv, metrics_per_subject.csv, metrics_per_family.csv,
pairwise.csv, alpha_sensitivity.csv, results/manifest.json, subjects/registry.yaml
and system/ under --root, and
writes results/leaderboard.csv (the reference table), results/leaderboard.html
(a self-contained page with charts) and results/leaderboard.md (a Markdown
table for the README and pull requests), byte-deterministically.

Ranked subjects come first (Q_final, then P, s_bar descending, BS ascending;
competition ranks, "1, 2, 2, 4", each with its rank range: the best and worst
rank consistent with the significant paired differences), then disqualified
subject versions (any critical fail) without a rank, then unscored subjects
(N = 0). The Markdown and the page also say whether the top 3 depend on alpha.

On any problem in the inputs, prints each as `path: message` on stderr, exits 1
and writes nothing. With --readme, also replaces the block between
<!-- leaderboard:start --> and <!-- leaderboard:end --> in README.md by
results/leaderboard.md.

Charts that have not changed since the last build come from a cache of drawn
charts in DIR/.cache/rgbench/charts/ (content-addressed: the same bytes as
drawing them again; --no-cache bypasses it); the others are drawn by a process
started at once, on every core when there are many.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rgbench.cli import not_a_tree
from rgbench.atomic import write_many_atomic
from rgbench.leaderboard.board import RunParts, build_board
from rgbench.leaderboard.build import render
from rgbench.leaderboard.chart_cache import CACHE_DIR, ChartCache
from rgbench.leaderboard.chart_render import ChartRenderer, prefetch_charts, render_charts, start_renderer
from rgbench.leaderboard.charts import page_charts
from rgbench.leaderboard.inputs import LeaderboardInputs, load_inputs
from rgbench.leaderboard.markdown import MARKDOWN_FILE
from rgbench.leaderboard.readme import README_FILE, embed_in_readme, readme_problem
from rgbench.problems import report

REPO_ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=REPO_ROOT,
                        help="benchmark tree holding results/, subjects/ and system/ (default: this repository)")
    parser.add_argument("--readme", action="store_true",
                        help=f"also embed results/{MARKDOWN_FILE} in {README_FILE} between its leaderboard markers")
    parser.add_argument("--no-cache", action="store_true",
                        help=f"neither read nor write the chart cache in DIR/{CACHE_DIR}/ (outputs are identical either way)")
    args = parser.parse_args(argv)
    root: Path = args.root
    if not_a_tree(root):
        return 1
    renderer = start_renderer()  # imports matplotlib in another process while this one reads the inputs
    try:
        return build_and_write(root, args.readme, ChartCache(root, enabled=not args.no_cache), renderer)
    finally:
        renderer.close()


def build_and_write(root: Path, readme: bool, cache: ChartCache, renderer: ChartRenderer) -> int:
    """Load, check, rank, draw (through ``cache``) and write; report problems and write nothing on any."""
    parts: list[RunParts] = []

    def draw_ahead(unchecked: LeaderboardInputs) -> None:
        """Start drawing the charts the inputs seem to need while they are checked (only a head start:
        the charts drawn are used only where the checked page shows the very same values)."""
        try:
            parts.append(RunParts.of(unchecked.tables, unchecked.spec.ece_bins))
            prefetch_charts(page_charts(build_board(unchecked, parts[0])).all(), cache, renderer)
        except Exception:  # unchecked inputs may not even fit together; the checks will say why
            pass

    problem = readme_problem(root) if readme else None
    inputs, problems = load_inputs(root, early=draw_ahead)
    if inputs is None or problem is not None:
        return report(problems + ([problem] if problem else []))
    board = build_board(inputs, parts[0] if parts else None)
    svgs, drawn, used = render_charts(page_charts(board).all(), cache, renderer)
    files = render(board, svgs)
    outputs = {root / "results" / name: data for name, data in files.items()}
    if readme:
        text, problem = embed_in_readme(root, files[MARKDOWN_FILE].decode("utf-8"))
        if problem is not None:
            return report([problem])
        if text is not None:
            outputs[root / README_FILE] = text
    write_many_atomic(outputs)
    cache.update(drawn, used)
    print(f"leaderboard: {len(board.ranked)} ranked, {len(board.disqualified)} disqualified, "
          f"{len(board.unscored)} unscored -> {root.name or root}/results/leaderboard.{{csv,html,md}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
