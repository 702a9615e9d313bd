"""What the commands share (rgbench/commands/*): the root and folder-name checks, the phases' settings (the
collector paused, one BLAS thread), and loading a valid tree or reporting why not."""

from __future__ import annotations

import gc
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..load.loader import load_tree
from ..load.multi_scoring import MULTI_DIR, MultiScorings, load_multi
from ..load.records import Tree
from ..load.registry import read_registry
from ..load.spec import Spec, load_spec
from ..problems import report

_FOLDER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def bad_folder_name(options: dict[str, str]) -> bool:
    """Print the standard message and return True when a value of ``options`` (option -> value) is not the
    name of one folder inside the tree."""
    for option, value in options.items():
        if not _FOLDER_NAME.match(value):
            print(f"{option}: {value!r} is not a folder name inside the tree (letters, digits, '_', '-', '.'; no '/')",
                  file=sys.stderr)
            return True
    return False


def not_a_tree(root: Path) -> bool:
    """Print the standard message and return True when ``root`` is not a directory."""
    if Path(root).is_dir():
        return False
    print(f"{root}: not a directory (--root takes a benchmark tree)", file=sys.stderr)
    return True


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a script's load-and-compute phase (in ``main()`` only).

    A tree is hundreds of thousands of small acyclic records; while they are built the collector
    would rescan them again and again (make bench: about a third of the load time at 180,000 files).
    """
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Keep numpy's BLAS to one thread for a script's compute phase (in ``main()`` only).

    The bootstrap makes thousands of small products (a 2,000 x 300 draw times a few columns); BLAS
    threads add little to each and spin while they wait, and they compete with the extraction pool
    and with anything else on the machine. make bench at 100 x 300 x 3 on 2 cores: compute_metrics
    16.8 s with one thread, 24.6 s with OpenBLAS's default (CPU time 14.2 s against 22.7 s). The
    bootstrap's products are of whole numbers, exact in any order, so they give the same bytes either
    way; the few products of fractional values (agreement intervals) are summed in one fixed order
    on one thread, which is the more reproducible of the two.
    """
    import numpy  # noqa: F401  (loaded first: threadpoolctl limits the BLAS libraries already loaded)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def load_valid_tree(root: Path, *, alpha_override: str | None = None, scoring_dir: str = "scoring",
                    progress: Callable[[int, int], None] | None = None,
                    llm_judges: bool = False) -> tuple[Spec, Tree] | None:
    """(spec, tree) of a fully valid tree; otherwise print every problem (``path: message``) and return None.

    ``scoring_dir``, ``progress`` and ``llm_judges`` go to :func:`rgbench.load.loader.load_tree`.
    """
    spec, problems = load_spec(root, alpha_override=alpha_override)
    if spec is None:
        report(problems)
        return None
    tree, problems = load_tree(root, spec, scoring_dir=scoring_dir, progress=progress, llm_judges=llm_judges)
    if tree is None:
        report(problems)
        return None
    return spec, tree


def load_valid_grades(root: Path, multi_dir: str = MULTI_DIR, progress: Callable[[int, int], None] | None = None,
                      alpha_override: str | None = None) -> tuple[Spec, Tree, MultiScorings] | None:
    """(spec, tree with every scoring, llm-judges' included, the further grades of ``multi_dir``) of a fully
    valid tree: what the agreement reports (and a board of consolidated grades) read; otherwise print every
    problem and return None. ``alpha_override`` goes to :func:`load_valid_tree`."""
    loaded = load_valid_tree(root, llm_judges=True, progress=progress, alpha_override=alpha_override)
    if loaded is None:
        return None
    spec, tree = loaded
    multi, problems = load_multi(root, spec, tree, multi_dir)
    if multi is None:
        report(problems)
        return None
    return spec, tree, multi


def load_spec_and_registry(root: Path) -> tuple[Spec, dict[str, Any]] | None:
    """(spec, registry document) for scripts that need the registry but not the whole tree;
    otherwise print every problem and return None."""
    spec, problems = load_spec(root)
    if spec is None:
        report(problems)
        return None
    registry, _, problems = read_registry(root, spec)
    if registry is None:
        report(problems)
        return None
    return spec, registry
