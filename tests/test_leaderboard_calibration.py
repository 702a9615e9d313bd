"""The leaderboard's calibration reading (aggregate_metrics.md §19a): which ECE gaps are distinguishable from
perfect calibration, in words, in the Markdown and on the page."""

from __future__ import annotations

import html
import shutil
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import build_leaderboard
import pytest
from treebuilder import LIBRARY_SYSTEM

from rgbench.leaderboard.board import build_board
from rgbench.leaderboard.calibration_text import calibration_reading
from rgbench.leaderboard.inputs import load_inputs

REPO = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "leaderboard" / "basic"


@pytest.fixture(scope="module")
def fixture_board(tmp_path_factory):
    root = tmp_path_factory.mktemp("calibration") / "tree"
    shutil.copytree(FIXTURE / "tree", root)
    shutil.copytree(LIBRARY_SYSTEM, root / "system")   # the fixture's benchmark, whatever system/ holds
    inputs, problems = load_inputs(root)
    assert problems == [] and inputs is not None
    return build_board(inputs)


def with_checks(b, checks):
    entries = tuple(replace(e, calibration_check=checks.get(e.metrics.subject_id)) for e in b.entries)
    return replace(b, entries=entries)


def test_results_without_the_check_say_nothing(fixture_board):
    b = fixture_board     # the fixture's metrics_per_subject.csv has no ECE_calibrated_* columns
    assert all(e.calibration_check is None for e in b.entries)
    assert calibration_reading(b, str, str) == ""
    assert "Calibration read against chance" not in build_leaderboard.render(b)["leaderboard.md"].decode()


def test_subjects_are_split_by_the_share_against_the_significance_level(fixture_board):
    b = fixture_board
    scored = [e.metrics.subject_id for e in b.scored]
    first, second = scored[0], scored[1]
    # first: share 0.01 < 0.05 -> distinguishable; second: share exactly 0.05 -> not (the rule is share < level)
    assert b.significance_level == Fraction(5, 100)
    b = with_checks(b, {first: (Fraction(6, 100), Fraction(1, 100)), second: (Fraction(1, 10), Fraction(5, 100))})
    names = b.names
    text = calibration_reading(b, str, str)
    distinguishable, _, within = text.partition("Not distinguishable")
    assert f"{names[first]} (ECE" in distinguishable and "perfectly calibrated 0.060; share 0.010" in distinguishable
    assert f"{names[second]} (ECE" in within and "share 0.050" in within
    assert "share below 0.05" in distinguishable
    files = build_leaderboard.render(b)
    assert text.split(":")[0] in files["leaderboard.md"].decode()
    page = files["leaderboard.html"].decode()
    assert 'id="calibration-reading"' in page and html.escape(names[first]) in page


def test_names_are_escaped_on_the_page(fixture_board):
    b = fixture_board
    evil = [e for e in b.scored if "<script>" in e.name]
    assert evil, "the fixture has a subject whose display name is markup"
    b = with_checks(b, {e.metrics.subject_id: (Fraction(1, 10), Fraction(1, 2)) for e in b.scored})
    files = build_leaderboard.render(b)
    paragraph = files["leaderboard.html"].decode().split('id="calibration-reading"')[1].split("</p>")[0]
    assert "<script>" not in paragraph and html.escape(evil[0].name) in paragraph
    assert "\\<script\\>" in files["leaderboard.md"].decode().split("Calibration read against chance")[1]
