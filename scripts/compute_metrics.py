#!/usr/bin/env python3
"""Validate a benchmark tree and write results/per_run.csv, metrics_per_subject.csv,
metrics_per_family.csv and manifest.json, byte-deterministically.

On any invalid input, prints every problem as `path: message` on stderr, exits 1
and leaves results/ untouched.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rgbench.atomic import write_many_atomic
from rgbench.loader import load_tree
from rgbench.problems import report
from rgbench.spec import load_spec
from rgbench.tables import compute_results, render_results

REPO_ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=REPO_ROOT,
                        help="benchmark tree holding system/, golds/, responses/, scoring/, subjects/ (default: this repository)")
    parser.add_argument("--alpha", help="weight of P in Q_final, 0..1 (default: system/metrics/<version>/config.yaml)")
    args = parser.parse_args(argv)
    root = args.root
    if not root.is_dir():
        print(f"{root}: not a directory (--root takes a benchmark tree)", file=sys.stderr)
        return 1
    spec, problems = load_spec(root, alpha_override=args.alpha)
    if spec is None:
        return report(problems)
    tree, problems = load_tree(root, spec)
    if tree is None:
        return report(problems)
    results = compute_results(tree, spec)
    outputs = render_results(tree, spec, results)
    write_many_atomic({root / "results" / name: data for name, data in outputs.items()})
    ranked = sum(1 for m in results.subjects if m.n)
    print(f"{len(results.runs)} scored runs of {len(tree.subjects)} subjects ({ranked} with scores) -> {root.name or root}/results/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
