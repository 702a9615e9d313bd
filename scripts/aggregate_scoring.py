#!/usr/bin/env python3
"""Several reviewers per run (the v2.0 path): agreement report and consolidated scorings.

Reads the tree (scoring/ holds one grade per run, as v1.0 requires) and the
further grades in scoring_multi/<version>/<subject_id>/:
  <case_id>__<run_id>__eval-<reviewer_id>.json          one more reviewer's grade
  <case_id>__<run_id>__adjudication-<reviewer_id>.json  an adjudicator's final grade
(same format and schema as scoring/). Writes
  results/agreement.csv                       Krippendorff's alpha, weighted kappa, percent
                                              agreement, reviewer leniency (results/README.md)
  scoring_consolidated/<version>/<subject_id>/<case_id>__<run_id>__eval-<reviewer_id>.json
                                              one grade per run by the declared policy
                                              (median-v1) or the adjudication; each names its
                                              sources and their sha256 in `comments`
The originals are never modified. The consolidated folder ends up holding exactly the
files of a fresh run (files no longer produced are removed); only the files whose bytes
differ are rewritten, and the consolidated ones (derived, git-ignored) without fsync. It
is read only by `compute_metrics.py --scoring-dir scoring_consolidated`.

A rerun does work proportional to what changed: subjects whose folders did not change
since the last run are taken from a memo in DIR/.cache/ (rgbench.stats.aggregate_run);
results are byte-identical with `--no-cache`, which neither reads nor writes it.

On any invalid input, prints every problem as `path: message` on stderr, exits 1
and writes nothing.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from rgbench.folder_scan import discover_folders, start_scan  # standard library only

REPO_ROOT = Path(__file__).resolve().parent.parent
FOLDER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
CONSOLIDATED_DIR = "scoring_consolidated"
PROTECTED = {"scoring", "responses", "golds", "subjects", "system", "results", "tests", "scripts"}
MULTI_DIR = "scoring_multi"  # rgbench.stats.multi_scoring.MULTI_DIR, which is imported later


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="benchmark tree (default: this repository)")
    parser.add_argument("--multi-dir", default=MULTI_DIR, metavar="NAME",
                        help=f"folder of the further grades and adjudications (default: {MULTI_DIR})")
    parser.add_argument("--output-dir", default=CONSOLIDATED_DIR, metavar="NAME",
                        help=f"folder to write the consolidated scorings to (default: {CONSOLIDATED_DIR})")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the per-file cache and memo in DIR/.cache/ (results are identical either way)")
    args = parser.parse_args(argv)
    root = args.root
    if not root.is_dir():
        print(f"{root}: not a directory (--root takes a benchmark tree)", file=sys.stderr)
        return 1
    for option, value in (("--multi-dir", args.multi_dir), ("--output-dir", args.output_dir)):
        if not FOLDER_NAME.match(value):
            print(f"{option}: {value!r} is not a folder name inside the tree (letters, digits, '_', '-', '.'; no '/')",
                  file=sys.stderr)
            return 1
    if args.output_dir in PROTECTED | {args.multi_dir}:
        print(f"--output-dir: {args.output_dir!r} holds inputs or results; choose another folder (default {CONSOLIDATED_DIR})",
              file=sys.stderr)
        return 1
    # Fingerprinting the subject folders takes other processes a few tenths of a second: start it
    # before the heavy imports, which it then overlaps.
    scan = None if args.no_cache else start_scan(
        root, discover_folders(root, ("responses", "scoring", args.multi_dir, args.output_dir)))
    from rgbench.cli import load_valid_tree
    from rgbench.problems import report
    from rgbench.spec import load_spec
    from rgbench.stats.aggregate_run import Outputs, agreement_bytes, incremental_parts, parts_of_tree, write_outputs
    from rgbench.stats.agreement_outputs import AGREEMENT_FILE
    from rgbench.stats.multi_scoring import load_multi

    spec, problems = load_spec(root)
    outputs = None
    if spec is not None:
        outputs = incremental_parts(root, spec, args.multi_dir, args.output_dir, use_cache=not args.no_cache,
                                    scan=scan)
    elif scan is not None:
        scan.close()
    if outputs is None:  # a problem somewhere (or something unusual): the full loaders report every problem
        loaded = load_valid_tree(root, use_cache=not args.no_cache)  # prints every problem
        if loaded is None:
            return 1
        spec, tree = loaded
        multi, problems = load_multi(root, spec, tree, args.multi_dir)
        if multi is None:
            return report(problems)
        outputs = Outputs(parts_of_tree(tree, multi, spec), set(), {}, None, {})
    parts = outputs.parts.values()
    write_outputs(root, spec, args.output_dir, outputs, agreement_bytes(parts, spec), f"results/{AGREEMENT_FILE}")
    grades = sum(part.n_grades for part in parts)
    runs = sum(part.n_runs for part in parts)
    several = sum(part.n_several for part in parts)
    print(f"{grades} grades of {runs} runs ({several} with several grades or an adjudication) -> "
          f"results/{AGREEMENT_FILE}, {args.output_dir}/{spec.version_dir}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
