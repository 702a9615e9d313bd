"""The chart cache and the chart renderers change how long a build takes, never its bytes.

Builds of the fixture tree (tests/fixtures/leaderboard/basic/tree + system/: one Q_final chart,
six reliability diagrams and the family heatmap) with and without the cache, with damaged
entries, through the forked chart server and through a local renderer that counts what it draws.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from matplotlib import rc_context

import build_leaderboard
from rgbench.leaderboard import chart_render
from rgbench.leaderboard.board import RunParts, build_board
from rgbench.leaderboard.build import OUTPUT_FILES, build
from rgbench.leaderboard.chart_cache import CACHE_DIR, FORMAT, ChartCache, chart_key, decode_entry, encode_entry
from rgbench.leaderboard.chart_render import ChartServer, LocalRenderer, draw_all, render_charts
from rgbench.leaderboard.charts import CALIBRATION, Chart, page_charts
from rgbench.leaderboard.drawing import draw, renderer_digest
from rgbench.leaderboard.inputs import load_inputs

REPO = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "leaderboard" / "basic"
SCRIPT = REPO / "scripts" / "build_leaderboard.py"


def make_tree(root: Path) -> Path:
    shutil.copytree(FIXTURE / "tree", root)
    shutil.copytree(REPO / "system", root / "system")
    return root


class CountingRenderer(LocalRenderer):
    """Draws here and records every chart it was asked to draw."""

    def __init__(self) -> None:
        self.drawn: list[Chart] = []

    def draw_many(self, charts):
        self.drawn += charts
        return super().draw_many(charts)


def outputs(root: Path) -> dict[str, bytes]:
    return {name: (root / "results" / name).read_bytes() for name in OUTPUT_FILES}


def entries(root: Path) -> dict[str, bytes]:
    folder = root / CACHE_DIR
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.is_dir() else {}


def build_counting(root: Path, enabled: bool = True) -> tuple[int, CountingRenderer, ChartCache]:
    renderer, cache = CountingRenderer(), ChartCache(root, enabled=enabled)
    status = build_leaderboard.build_and_write(root, False, cache, renderer)
    return status, renderer, cache


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, bytes]:
    """The outputs of a build without any cache."""
    root = make_tree(tmp_path_factory.mktemp("reference") / "tree")
    assert build_leaderboard.main(["--root", str(root), "--no-cache"]) == 0
    assert not (root / ".cache").exists()
    return outputs(root)


def test_unchanged_charts_come_from_the_cache_and_the_page_is_the_same(tmp_path, reference):
    root = make_tree(tmp_path / "tree")
    status, first, cache = build_counting(root)
    charts = page_charts(build(root)[1]).all()
    assert status == 0 and len(charts) == 8 and sorted(map(repr, first.drawn)) == sorted(map(repr, charts))
    assert (cache.hits, cache.misses, cache.damaged) == (0, 8, 0)
    assert outputs(root) == reference and len(entries(root)) == 8
    status, second, cache = build_counting(root)
    assert status == 0 and second.drawn == [] and (cache.hits, cache.misses, cache.damaged) == (8, 0, 0)
    assert outputs(root) == reference


@pytest.mark.parametrize("damage", ["flip-a-byte", "truncate", "empty", "garbage-header", "other-key", "not-utf8"])
def test_a_damaged_entry_is_redrawn_and_rewritten(tmp_path, reference, damage):
    root = make_tree(tmp_path / "tree")
    build_counting(root)
    intact = entries(root)
    name = sorted(intact)[3]
    path = root / CACHE_DIR / name
    data = intact[name]
    header, _, payload = data.partition(b"\n")
    if damage == "flip-a-byte":
        broken = header + b"\n" + payload[:100] + bytes([payload[100] ^ 1]) + payload[101:]
    elif damage == "truncate":
        broken = data[: len(data) // 2]
    elif damage == "empty":
        broken = b""
    elif damage == "garbage-header":
        broken = b"{not json\n" + payload
    elif damage == "other-key":
        broken = encode_entry("0" * 64, payload.decode())
    else:  # a well-formed header for a payload that is not UTF-8
        bad = b"\xff\xfe"
        broken = json.dumps({"format": FORMAT, "key": name.removesuffix(".svg"),
                             "sha256": hashlib.sha256(bad).hexdigest()}).encode() + b"\n" + bad
    path.write_bytes(broken)
    status, renderer, cache = build_counting(root)
    assert status == 0 and (cache.hits, cache.misses, cache.damaged) == (7, 0, 1) and len(renderer.drawn) == 1
    assert outputs(root) == reference
    assert entries(root) == intact                       # rewritten as it was


def test_only_the_changed_chart_is_drawn_and_stale_entries_go(tmp_path, reference):
    root = make_tree(tmp_path / "tree")
    build_counting(root)
    before = set(entries(root))
    board = build(root)[1]
    charts = page_charts(board).all()
    # The same page with one subject's reliability diagram showing another ECE.
    changed = [replace(c, data=(*c.data[:2], Fraction(1, 3), *c.data[3:])) if c.scope == "chart-calibration-2" else c
               for c in charts]
    cache, renderer = ChartCache(root), CountingRenderer()
    svgs, drawn, used = render_charts(changed, cache, renderer)
    assert [c.scope for c in renderer.drawn] == ["chart-calibration-2"] and len(drawn) == 1
    assert all(svgs[c] == draw(c) for c in changed)
    cache.update(drawn, used)
    after = set(entries(root))
    assert len(after) == 8 and len(after - before) == 1 and len(before - after) == 1   # the old diagram's entry is gone


def test_no_cache_neither_reads_nor_writes(tmp_path, reference):
    root = make_tree(tmp_path / "tree")
    build_counting(root)
    for path in (root / CACHE_DIR).iterdir():
        path.write_bytes(b"damaged")
    before = entries(root)
    status, renderer, cache = build_counting(root, enabled=False)
    assert status == 0 and len(renderer.drawn) == 8 and (cache.hits, cache.misses, cache.damaged) == (0, 0, 0)
    assert outputs(root) == reference and entries(root) == before
    assert build_leaderboard.main(["--root", str(root), "--no-cache"]) == 0 and entries(root) == before


def test_the_command_line_with_its_chart_server_gives_the_same_bytes(tmp_path, reference):
    """In a fresh process (chart server, drawing ahead of the checks): cold, warm, then a damaged entry."""
    root = make_tree(tmp_path / "tree")
    for step in ("cold", "warm", "damaged"):
        if step == "damaged":
            victim = sorted((root / CACHE_DIR).iterdir())[0]
            victim.write_bytes(victim.read_bytes()[:-10])
        completed = subprocess.run([sys.executable, str(SCRIPT), "--root", str(root)], capture_output=True, text=True)
        assert completed.returncode == 0 and completed.stderr == "", completed.stderr
        assert outputs(root) == reference, step
        assert len(entries(root)) == 8
        assert all(decode_entry(name.removesuffix(".svg"), data) for name, data in entries(root).items())


def test_a_refused_build_writes_no_cache_entry(tmp_path):
    root = make_tree(tmp_path / "tree")
    (root / "results" / "metrics_per_family.csv").write_text("broken\n")
    assert build_leaderboard.main(["--root", str(root)]) == 1
    assert not (root / ".cache").exists()


# --- what a key covers --------------------------------------------------------------------

def test_the_key_covers_every_value_the_scope_and_the_renderer():
    chart = Chart(CALIBRATION, "chart-calibration-0", ("#1  a", "a", Fraction(1, 4), "indicative", ((0, 1, Fraction(0), Fraction(1, 2)),), 10))
    key = chart_key(chart, "digest")
    variants = [
        replace(chart, scope="chart-calibration-1"),
        replace(chart, data=("#2  a", *chart.data[1:])),
        replace(chart, data=(*chart.data[:2], Fraction(1, 3), *chart.data[3:])),
        replace(chart, data=(*chart.data[:4], ((0, 1, Fraction(0), Fraction(1, 1)),), 10)),
        replace(chart, data=(*chart.data[:5], 11)),
    ]
    assert len({key, *(chart_key(v, "digest") for v in variants), chart_key(chart, "other digest")}) == 7
    assert chart_key(replace(chart), "digest") == key


def test_canonical_text_is_unambiguous():
    def text(data):
        return Chart("k", "s", data).canonical()

    assert len({text(("a,b",)), text(("a", "b")), text((("a", "b"),)), text(("a", ("b",)))}) == 4
    assert len({text((1,)), text((True,)), text((Fraction(1),)), text(("1",)), text((None,)), text(("N",))}) == 6
    # Equality is the canonical text's: equal numbers of another type are another chart.
    assert Chart("k", "s", (1,)) != Chart("k", "s", (True,)) and Chart("k", "s", (1,)) != Chart("k", "s", (Fraction(1),))
    assert Chart("k", "s", (Fraction(2, 4),)) == Chart("k", "s", (Fraction(1, 2),))
    assert len({Chart("k", "s", (1,)), Chart("k", "s", (True,)), Chart("k", "s", (1,))}) == 2
    with pytest.raises(TypeError):
        text((0.5,))


def test_the_renderer_digest_follows_matplotlibs_settings():
    digest = renderer_digest()
    assert renderer_digest() == digest
    with rc_context({"lines.linewidth": 3.0}):
        assert renderer_digest() != digest


# --- renderers ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fixture_charts(tmp_path_factory) -> list[Chart]:
    root = make_tree(tmp_path_factory.mktemp("charts") / "tree")
    inputs, problems = load_inputs(root)
    assert problems == []
    return page_charts(build_board(inputs)).all()


def test_drawing_in_a_pool_gives_the_same_svgs(fixture_charts, monkeypatch):
    serial = [draw(chart) for chart in fixture_charts]
    monkeypatch.setattr(chart_render, "PARALLEL_MIN_COST", 0.0)
    assert draw_all(fixture_charts, workers=2) == serial


def test_the_chart_server_draws_what_it_is_asked_and_ignores_wrong_guesses(fixture_charts, tmp_path):
    wrong = [replace(c, data=(*c.data[:2], Fraction(1, 7), *c.data[3:])) for c in fixture_charts if c.kind == CALIBRATION]
    server = ChartServer()
    try:
        assert server.digest() == renderer_digest()
        server.prefetch(wrong + fixture_charts[:2], None)
        assert server.draw_many(fixture_charts) == [draw(c) for c in fixture_charts]
    finally:
        server.close()
    assert not server._process.is_alive()


def test_a_dead_chart_server_falls_back_to_drawing_here(fixture_charts):
    server = ChartServer()
    server.digest()
    server._process.terminate()
    server._process.join()
    try:
        assert server.draw_many(fixture_charts[:1]) == [draw(fixture_charts[0])]
    finally:
        server.close()


def test_a_board_uses_precomputed_run_parts_only_of_its_own_tables(tmp_path):
    root = make_tree(tmp_path / "tree")
    inputs, problems = load_inputs(root)
    assert problems == []
    board = build_board(inputs)
    assert build_board(inputs, RunParts.of(inputs.tables, inputs.spec.ece_bins)) == board
    other = replace(inputs.tables, runs=inputs.tables.runs[:3])
    assert build_board(inputs, RunParts.of(other, inputs.spec.ece_bins)) == board
    assert build_board(inputs, RunParts.of(inputs.tables, inputs.spec.ece_bins + 1)) == board


def _children(pid: int) -> set[int]:
    try:
        return {int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="needs /proc children")
def test_closing_the_server_while_it_draws_ahead_in_a_pool_leaves_no_process(fixture_charts):
    """close() stops a server busy drawing ahead with its pool: the server and its workers are all reaped."""
    many = [replace(c, data=(*c.data[:2], Fraction(i, 97), *c.data[3:])) for i in range(40)
            for c in fixture_charts if c.kind == CALIBRATION][:40]
    server = ChartServer()
    server.digest()
    server.prefetch(many, None)
    pid = server._process.pid
    workers: set[int] = set()
    for _ in range(200):
        workers = _children(pid)
        if workers:
            break
        time.sleep(0.02)
    assert workers, "the server should be drawing in a pool"
    server.close()
    assert _gone(pid) and all(_gone(w) for w in workers)


def test_early_gets_the_unchecked_tables_once_before_the_checks(tmp_path):
    root = make_tree(tmp_path / "tree")
    seen = []
    inputs, problems = load_inputs(root, early=seen.append)
    assert problems == [] and len(seen) == 1
    assert seen[0].tables is inputs.tables and seen[0].registry is inputs.registry
    assert seen[0].critical_fails == {} and seen[0].pairwise is None and seen[0].manifest.input_digest == ""
    # A guess from inputs that fail the checks is made (nothing is written from it) ...
    (root / "results" / "manifest.json").write_text("{}")
    seen.clear()
    assert load_inputs(root, early=seen.append)[0] is None and len(seen) == 1
    # ... but not from tables that do not even parse.
    (root / "results" / "per_run.csv").write_text("broken\n")
    seen.clear()
    assert load_inputs(root, early=seen.append)[0] is None and seen == []


def test_a_chart_pickles_without_its_cached_text(fixture_charts):
    import pickle

    chart = fixture_charts[0]
    size = len(pickle.dumps(chart))
    chart.canonical()
    assert len(pickle.dumps(chart)) == size and pickle.loads(pickle.dumps(chart)) == chart
