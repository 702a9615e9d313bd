"""The leaderboard's calibration reading (aggregate_metrics.md §19a): which ECE gaps are distinguishable from
perfect calibration, in words, in the Markdown and on the page. One rule: ECE_low > 0, the interval printed beside
ECE, so the sentence and the interval cannot disagree."""

from __future__ import annotations

import html
import shutil
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from treebuilder import LIBRARY_SYSTEM

from rgbench.commands import leaderboard as build_leaderboard
from rgbench.leaderboard.board import build_board
from rgbench.leaderboard.calibration_text import calibration_reading, distinguishable
from rgbench.leaderboard.inputs import load_inputs
from rgbench.leaderboard.intervals import Bounds

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


def with_intervals(b, ece_bounds, confidence=Fraction(95, 100)):
    """The board with the given ECE (low, high) per subject id; the other subjects keep no ECE interval."""
    entries = []
    for e in b.entries:
        intervals = {k: v for k, v in e.intervals.items() if k != "ECE"}
        if e.metrics.subject_id in ece_bounds:
            intervals["ECE"] = Bounds(*ece_bounds[e.metrics.subject_id])
        entries.append(replace(e, intervals=intervals))
    return replace(b, entries=tuple(entries), confidence_level=confidence)


def test_results_without_ece_intervals_say_nothing(fixture_board):
    b = fixture_board     # the fixture's metrics_per_subject.csv has no interval columns
    assert all("ECE" not in e.intervals for e in b.entries)
    assert calibration_reading(b, str, str) == ""
    assert "Calibration read against chance" not in build_leaderboard.render(b)["leaderboard.md"].decode()


def test_subjects_are_split_by_the_low_end_of_the_ece_interval(fixture_board):
    b = fixture_board
    scored = [e for e in b.scored if e.metrics.ece is not None]
    first, second, third = scored[0], scored[1], scored[2]
    ece2 = second.metrics.ece
    # first: low 0.000001 > 0 -> distinguishable; second: low exactly 0 -> not shown miscalibrated, flagged for
    # certain only above its upper half-width high − ECE; third: an interval up to 1 -> too few cases to tell
    b = with_intervals(b, {first.metrics.subject_id: (Fraction(1, 10 ** 6), Fraction(3, 10)),
                           second.metrics.subject_id: (Fraction(0), ece2 + Fraction(1, 10)),
                           third.metrics.subject_id: (Fraction(0), Fraction(1))})
    names = b.names
    text = calibration_reading(b, str, str)
    assert ("ECE interval excludes 0, a test of perfect calibration at the 0.05 level over cases (its false alarms on "
            "perfectly calibrated subjects are measured in docs/statistics_check.md" in text)
    distinguishable, _, within = text.partition("Not shown miscalibrated")
    assert f"{names[first.metrics.subject_id]} (ECE" in distinguishable and "interval 0.000 to 0.300)" in distinguishable
    assert f"{names[second.metrics.subject_id]} (ECE" in within and "flagged for certain only above about 0.100)" in within
    assert f"{names[third.metrics.subject_id]} (ECE" in within and "its interval reaches 1: too few cases to tell" in within
    assert "not evidence of good calibration" in within
    files = build_leaderboard.render(b)
    assert text.split(":")[0] in files["leaderboard.md"].decode()
    page = files["leaderboard.html"].decode()
    assert 'id="calibration-reading"' in page and html.escape(names[first.metrics.subject_id]) in page


def test_the_rule_is_the_interval(fixture_board):
    # every subject whose interval is above 0 is listed as distinguishable, every other one is not: the two
    # readings are the same comparison
    assert distinguishable(Fraction(1, 10 ** 6)) and not distinguishable(Fraction(0))
    b = fixture_board
    scored = [e for e in b.scored if e.metrics.ece is not None]
    b = with_intervals(b, {e.metrics.subject_id: (Fraction(i % 2, 100), Fraction(1, 2)) for i, e in enumerate(scored)})
    text = calibration_reading(b, str, str)
    above, _, within = text.partition("Not shown miscalibrated")
    for i, e in enumerate(scored):
        assert (b.names[e.metrics.subject_id] + " (ECE" in (above if i % 2 else within)), e.metrics.subject_id


def test_names_are_escaped_on_the_page(fixture_board):
    b = fixture_board
    evil = [e for e in b.scored if "<script>" in e.name]
    assert evil, "the fixture has a subject whose display name is markup"
    b = with_intervals(b, {e.metrics.subject_id: (Fraction(0), Fraction(1, 2)) for e in b.scored
                           if e.metrics.ece is not None})
    files = build_leaderboard.render(b)
    paragraph = files["leaderboard.html"].decode().split('id="calibration-reading"')[1].split("</p>")[0]
    assert "<script>" not in paragraph and html.escape(evil[0].name) in paragraph
    assert "\\<script\\>" in files["leaderboard.md"].decode().split("Calibration read against chance")[1]
