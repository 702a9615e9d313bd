#!/usr/bin/env python3
"""Time the refusal of hostile files of about 1 MB (issue 12, item 8); print a Markdown table.

Each attack is one file laid over a small valid tree (tests/treebuilder.small_tree), then
``validate.py`` runs on it in a fresh process; the table gives the best wall time of
--repeat runs, the exit status and the first problem line. The target: every refusal in
under a second. ``--write`` also writes the table to bench/HOSTILE.md. Timings live here, never in
tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "tests"), str(REPO / "scripts")]

from treebuilder import small_tree  # noqa: E402

MB = 1 << 20
SCORING = "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"
RESPONSE = "responses/v1.0/alpha-model/RO-FOUL-001__r1.json"
GOLD = "golds/v1.0/RO-FOUL-001_gold.md"
REGISTRY = "subjects/registry.yaml"


def _scoring_with_fails(count: int) -> bytes:
    document = json.loads((REPO / "tests/fixtures/invalid/schema-correctness-not-allowed/tree" / SCORING).read_text())
    document["correctness"] = 1
    document["automatic_fails_triggered"] = [{"code": "AF-NO-NORMALIZATION", "severity": "recoverable"}] * count
    return json.dumps(document).encode()


def _fits(make, limit: int) -> bytes:
    """The largest ``make(n)`` not over ``limit`` bytes (n doubled, then halved)."""
    n = 1
    while len(make(n * 2)) <= limit:
        n *= 2
    return make(n)


def attacks() -> dict[str, tuple[str, bytes]]:
    laughs = "".join(f"x{i}: &x{i} [" + ",".join([f"*x{i - 1}" if i else '"lol"'] * 9) + "]\n" for i in range(10))
    return {
        "8,000 automatic fails (1 MB)": (SCORING, _fits(_scoring_with_fails, MB)),
        "900 automatic fails (under the 64 KB scoring limit)": (SCORING, _scoring_with_fails(900)),
        "nested arrays [[[[... (1 MB response)": (RESPONSE, b"[" * MB),
        "response_text of 1 MB": (RESPONSE, json.dumps({"response_text": "a" * (MB - 40)}).encode()),
        "response under its 256 KB limit, 200k-character text": (RESPONSE, json.dumps(
            {"schema_version": "1.0", "response_text": "a" * 250_000}).encode()),
        "number 1e-99999999": (SCORING, b'{"correctness": 1e-99999999}'),
        "number of 1 MB digits": (SCORING, b'{"correctness": 0.' + b"1" * MB + b"}"),
        "lone surrogates (1 MB)": (RESPONSE, b'{"response_text": "' + b"\\ud800" * (MB // 6) + b'"}'),
        "billion laughs registry (2 KB)": (REGISTRY, laughs.encode()),
        "registry of 1 MB": (REGISTRY, b"subjects:\n" + b"  - {subject_id: a, subject_version: '1'}\n" * (MB // 42)),
        "registry under its 64 KB limit, 850 subjects": (REGISTRY, b"subjects:\n" + b"".join(
            b"  - {subject_id: s%05d, subject_version: '1', display_name: 'Name %05d'}\n" % (i, i) for i in range(850))),
        "registry under its 64 KB limit, nested [[[[": (REGISTRY, b"subjects: " + b"[" * 60_000),
        "gold of 1 MB of backticks": (GOLD, b"`" * MB),
        "gold under its 64 KB limit, emphasis": (GOLD, b"*a " * 21_000 + b"\n```json\n{}\n```\n"),
        "gold under its 64 KB limit, links": (GOLD, b"[a](" * 16_000),
        "gold under its 64 KB limit, 10,000 lines": (GOLD, b"| a |\n" * 10_000),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="also write the table to bench/HOSTILE.md")
    args = parser.parse_args(argv)
    rows = []
    for name, (rel, data) in attacks().items():
        with tempfile.TemporaryDirectory() as tmp:
            root = small_tree(Path(tmp) / "tree").root
            (root / rel).write_bytes(data)
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                done = subprocess.run([sys.executable, str(REPO / "scripts/validate.py"), "--root", str(root)],
                                      capture_output=True, text=True)
                best = min(best, time.perf_counter() - start)
            first = (done.stderr.splitlines() or [""])[0].replace(str(root) + "/", "")
            rows.append((name, f"{len(data):,}", f"{best:.2f}", str(done.returncode), first[:110]))
    lines = ["| attack | bytes | validate.py wall s (best) | exit | first line |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    table = "\n".join(lines) + "\n"
    sys.stdout.write(table)
    if args.write:
        (REPO / "bench/HOSTILE.md").write_text(
            "# Refusing hostile files (bench/hostile_bench.py)\n\n"
            f"Best of {args.repeat} runs of `validate.py` in a fresh process (interpreter start-up and imports "
            "included: the floor is the first rows' time) on a small tree with one hostile file; "
            f"{os.cpu_count()} CPUs, shared with other work while measured (load average "
            f"{os.getloadavg()[0]:.1f} at the end).\n\n" + table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
