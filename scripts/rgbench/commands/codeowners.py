"""Write (or, with --check, check) the generated block of .github/CODEOWNERS from subjects/registry.yaml.

The block, between "# rgbench:codeowners:start" and "# rgbench:codeowners:end", gives each registered
subject's responses folder (responses/<version>/<subject_id>/) to the logins its answered_by names and to
the maintainers (the owners of the file's /.github/ line, kept by hand outside the block). `make codeowners`
writes it (at the file's end when it has none yet); --check exits 1 when the committed block is not what the
registry gives (a test of `make test` runs it, so the tests workflow refuses a stale block).
See rgbench/governance/codeowners.py.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..atomic import write_if_changed
from ..governance.codeowners import CODEOWNERS_FILE, with_block
from ..load.parsing import ParseError, decode_utf8
from ..load.registry import REGISTRY_FILE
from ..problems import refuse
from .common import load_spec_and_registry


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    path = root / CODEOWNERS_FILE
    if not path.is_file() or path.is_symlink():
        return refuse(f"{CODEOWNERS_FILE}: not a file (create it with the maintainers' line, e.g. "
                      "'/.github/ @your-org/maintainers', then run `make codeowners`)")
    loaded = load_spec_and_registry(root)
    if loaded is None:
        return 1
    spec, registry = loaded
    answered_by = {item["subject_id"]: tuple(item.get("answered_by", ())) for item in registry["subjects"]}
    try:
        text = decode_utf8(path.read_bytes())
    except (OSError, ParseError) as exc:
        return refuse(f"{CODEOWNERS_FILE}: cannot be read: {exc}")
    wanted, problem = with_block(text, answered_by, spec.version_dir)
    if wanted is None:
        return refuse(f"{CODEOWNERS_FILE}: {problem}")
    if args.check:
        if wanted != text:
            return refuse(f"{CODEOWNERS_FILE}: its generated block is not what {REGISTRY_FILE} gives (answered_by); run "
                          "`make codeowners` and commit it")
        print(f"{CODEOWNERS_FILE}: the generated block follows {REGISTRY_FILE}")
        return 0
    try:
        changed = write_if_changed(path, wanted.encode("utf-8"))
    except OSError as exc:
        return refuse(f"{CODEOWNERS_FILE}: cannot be written: {exc.strerror or exc} (make it writable, then run again; "
                      "nothing was replaced)")
    print(f"{CODEOWNERS_FILE}: {'block rewritten' if changed else 'already current'} from {REGISTRY_FILE} "
          f"({len(answered_by)} subject(s))")
    return 0

