"""python-jsonschema is imported only to word the errors of a document jsonschema-rs rejects.

jsonschema-rs accepts or rejects every document; a valid tree never needs python-jsonschema.
"""

from __future__ import annotations

import subprocess
import sys

from treebuilder import REPO, small_tree

LAZY = ("jsonschema",)
PROBE = """import sys
sys.path[:0] = [sys.argv[1]]
from rgbench.cli import run_script
status = run_script("compute", sys.argv[2:])
print(status, *[name for name in {lazy!r} if name in sys.modules])
"""


def run_probe(*args: str) -> tuple[str, subprocess.CompletedProcess]:
    """(exit status followed by the lazy modules that got imported, the finished process)."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(lazy=LAZY), str(REPO / "scripts"), *args],
                          capture_output=True, text=True)
    lines = done.stdout.splitlines()
    return (lines[-1] if lines else ""), done


def test_importing_the_compute_command_does_not_import_jsonschema():
    code = ("import sys; sys.path[:0] = [sys.argv[1]]; import rgbench.cli, rgbench.commands.compute; "
            "print(*[m for m in sys.argv[2:] if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code, str(REPO / "scripts"), *LAZY], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "\n"


def test_a_document_failing_the_schema_imports_jsonschema_to_word_it(tmp_path):
    tree = small_tree(tmp_path / "tree")
    path = tree.add_response("beta-model", "RO-MEMB-001", "r1", 50)
    path.write_text(path.read_text().replace('"confidence": 50', '"confidence": 500'))
    line, done = run_probe("--root", str(tree.root))
    assert line == "1 jsonschema"
    assert "responses/v1.0/beta-model/RO-MEMB-001__r1.json: $.confidence: 500 is greater than the maximum of 100" \
        in done.stderr


def test_a_valid_tree_does_not_import_jsonschema(tmp_path):
    root = small_tree(tmp_path / "tree").root
    line, done = run_probe("--root", str(root))
    assert line == "0", done.stderr
