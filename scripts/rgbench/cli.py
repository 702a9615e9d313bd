"""What every script's main() shares: the tree root check and loading a valid tree or reporting why not."""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

from .loader import load_tree
from .problems import report
from .records import Tree
from .registry_history import read_registry
from .spec import Spec, load_spec


def not_a_tree(root: Path) -> bool:
    """Print the standard message and return True when ``root`` is not a directory."""
    if Path(root).is_dir():
        return False
    print(f"{root}: not a directory (--root takes a benchmark tree)", file=sys.stderr)
    return True


def load_valid_tree(root: Path, *, alpha_override: str | None = None, **options: Any) -> tuple[Spec, Tree] | None:
    """(spec, tree) of a fully valid tree; otherwise print every problem (``path: message``) and return None.

    ``options`` go to :func:`rgbench.loader.load_tree` (use_cache, progress, scoring_dir).
    The cyclic garbage collector is paused while the tree is built and the
    result is then frozen out of its reach: the tree holds hundreds of
    thousands of acyclic records that it would otherwise rescan again and again
    (at 180,000 files this halves the cold load time).
    """
    spec, problems = load_spec(root, alpha_override=alpha_override)
    if spec is None:
        report(problems)
        return None
    gc.disable()
    try:
        tree, problems = load_tree(root, spec, **options)
    finally:
        gc.freeze()
        gc.enable()
    if tree is None:
        report(problems)
        return None
    return spec, tree


def load_valid_results(root: Path, *, alpha_override: str | None = None,
                       **options: Any) -> tuple[Spec, "Results"] | None:
    """(spec, results) of compute_metrics for a fully valid tree, by the incremental path
    (:mod:`rgbench.incremental`); otherwise print every problem and return None.

    ``options`` go to :func:`rgbench.incremental.load_results` (scoring_dir, use_cache, progress, scan).
    """
    from .incremental import load_results
    from .timings import STAGES

    with STAGES.stage("spec"):
        spec, problems = load_spec(root, alpha_override=alpha_override)
    if spec is None:
        if options.get("scan") is not None:
            options["scan"].close()
        report(problems)
        return None
    gc.disable()
    try:
        results, problems = load_results(root, spec, **options)
    finally:
        gc.freeze()
        gc.enable()
    if results is None:
        report(problems)
        return None
    return spec, results


def load_spec_and_registry(root: Path) -> tuple[Spec, dict[str, Any]] | None:
    """(spec, registry document) for scripts that need the registry but not the whole tree;
    otherwise print every problem and return None."""
    spec, problems = load_spec(root)
    if spec is None:
        report(problems)
        return None
    registry, problems = read_registry(root, spec)
    if registry is None:
        report(problems)
        return None
    return spec, registry
