"""results_diff: rank moves, metric deltas, newly disqualified subjects and implausible jumps, as Markdown."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from gitrepo import regenerate, toolkit_repo

from rgbench.cli import run_script
from rgbench.governance.results_diff import computed_ranks, diff, markdown, md_cell

HEADER = ("subject_id", "subject_version", "N", "P", "s_bar", "BS", "ECE", "Q_final", "disqualified", "n_critical")


def row(sid, version="1", n="4", p="0.500000", s_bar="8.000000", bs="0.100000", ece="0.100000", q="0.583333",
        disq="false", n_critical="0"):
    return dict(zip(HEADER, (sid, version, n, p, s_bar, bs, ece, q, disq, n_critical)))


def table(*rows):
    return {r["subject_id"]: r for r in rows}


def test_competition_ranks_skip_disqualified_and_unscored():
    rows = table(row("a", q="0.700000"), row("b", q="0.600000"), row("c", q="0.700000"),
                 row("d", q="0.900000", disq="true"), row("e", n="0", p="", s_bar="", bs="", ece="", q=""))
    assert computed_ranks(rows) == {"a": 1, "c": 1, "b": 3}


def test_diff_finds_moves_deltas_disqualifications_and_jumps():
    old = table(row("a", q="0.700000"), row("b", q="0.600000"), row("c", q="0.500000"), row("d", version="1"))
    new = table(row("a", q="0.650000"),                     # -0.05: a move, not a jump
                row("b", q="0.710000", p="0.750000"),       # +0.11 > 0.10: implausible; keeps rank 2
                row("c", q="0.400000", disq="true", n_critical="1"),  # newly disqualified, unranked
                row("d", version="2", q="0.990000"),        # new version: clean record, never a jump
                row("e"))                                   # new subject
    result = diff(old, new, old_ranks=computed_ranks(old), new_ranks=computed_ranks(new))
    by_id = {s.subject_id: s for s in result.subjects}
    assert by_id["a"].deltas == {"Q_final": Fraction(-5, 100)} and not by_id["a"].implausible
    assert by_id["b"].implausible and (by_id["b"].old_rank, by_id["b"].new_rank) == (2, 2)
    assert (by_id["a"].old_rank, by_id["a"].new_rank) == (1, 3)
    assert by_id["c"].newly_disqualified and by_id["c"].new_rank is None
    assert by_id["d"].new_version and not by_id["d"].implausible
    assert by_id["e"].old is None
    assert [s.subject_id for s in result.subjects] == ["d", "b", "a", "e", "c"]
    text = markdown(result, base_label="main (abc)")
    assert text.splitlines()[:6] == [
        "## Results diff: `main (abc)` → working tree",
        "",
        "5 subject(s) changed.",
        "",
        "| subject | version | rank | Q_final | P | s_bar | BS | ECE | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    assert ("| b | 1 | 2 | 0.710000 (+0.110000) | 0.750000 (+0.250000) | 8.000000 | 0.100000 | 0.100000 "
            "| **implausible jump** |") in text
    assert "| a | 1 | 1 → 3 (▼2) | 0.650000 (-0.050000) |" in text
    assert "| c | 1 | 4 → - | 0.400000 (-0.100000) | 0.500000 | 8.000000 | 0.100000 | 0.100000 | **newly disqualified** |" in text
    assert "| d | 2 | 3 → 1 (▲2) | 0.990000 (+0.406667) |" in text and "new version 1 → 2 (clean record)" in text
    assert "- c 1: a critical fail (n_critical 1)" in text
    assert "### Implausible jumps (|ΔQ_final| > 0.100000)" in text
    assert "- b: Q_final 0.600000 → 0.710000 (+0.110000); check the scorings of this change before merging" in text


def test_a_move_of_exactly_the_threshold_is_not_flagged():
    old, new = table(row("a", q="0.500000")), table(row("a", q="0.600000"))
    result = diff(old, new, old_ranks={}, new_ranks={}, max_jump=Fraction(1, 10))
    assert not result.subjects[0].implausible
    assert diff(old, new, old_ranks={}, new_ranks={}, max_jump=Fraction(5, 100)).subjects[0].implausible


def test_no_change():
    rows = table(row("a"))
    text = markdown(diff(rows, rows, old_ranks={"a": 1}, new_ranks={"a": 1}), base_label="main")
    assert text.endswith("No change to `results/metrics_per_subject.csv` or the ranks.\n")


def test_cells_cannot_inject_markup():
    assert md_cell("x|<script>[a](b)") == "x&#124;&#60;script&#62;&#91;a&#93;(b)"


@pytest.fixture
def bench(tmp_path):
    repo, tree = toolkit_repo(tmp_path / "bench")
    regenerate(repo.root)
    base = repo.commit("Base")
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b", raw=4, correctness=0)
    regenerate(repo.root)
    return repo, tree, base


def test_script_compares_a_revision_with_the_working_tree(bench, capsys):
    repo, tree, base = bench
    assert run_script("diff", ["--root", str(repo.root), "--base", base]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"## Results diff: `{base} ({base[:12]})` → working tree\n")
    # alpha-model: Q_final 0.75 -> 0.604167 (see test_governance_reviewer): -0.145833 > 0.10
    assert "**implausible jump**" in out and "- alpha-model: Q_final 0.750000 → 0.604167 (-0.145833)" in out


def test_threshold_from_config_or_option(bench, capsys):
    repo, tree, base = bench
    config = repo.root / "system/metrics/v1.0/config.yaml"
    config.write_text(re.sub(r"(?m)^q_final_jump_threshold:.*$", "q_final_jump_threshold: 0.2", config.read_text()))
    assert run_script("diff", ["--root", str(repo.root), "--base", base]) == 0
    out = capsys.readouterr().out
    assert "(|ΔQ_final| > 0.200000)" in out and "**implausible jump**" not in out
    assert run_script("diff", ["--root", str(repo.root), "--base", base, "--max-jump", "0.05", "--fail-on-jump"]) == 1
    captured = capsys.readouterr()
    assert "**implausible jump**" in captured.out and "implausible Q_final jump(s) flagged" in captured.err
    assert run_script("diff", ["--root", str(repo.root), "--base", base, "--max-jump", "2"]) == 1
    assert capsys.readouterr().err == "--max-jump: must be a number above 0 and at most 1 (e.g. 0.10), got '2'\n"
    config.write_text(config.read_text() + "q_final_jump_threshold: high\n")
    assert run_script("diff", ["--root", str(repo.root), "--base", base]) == 1
    assert "duplicate key 'q_final_jump_threshold'" in capsys.readouterr().err


def test_summary_file_and_github_warnings(bench, capsys, tmp_path):
    repo, tree, base = bench
    summary = tmp_path / "summary.md"
    summary.write_text("# Earlier step\n")
    assert run_script("diff", ["--root", str(repo.root), "--base", base, "--summary", str(summary)]) == 0
    out = capsys.readouterr().out
    assert out == ("::warning title=Implausible jump::alpha-model: Q_final 0.750000 -> 0.604167 (-0.145833), "
                   "more than 0.100000 in one change\n")
    text = summary.read_text()
    assert text.startswith("# Earlier step\n## Results diff:") and "alpha-model" in text


def test_base_without_results_lists_every_subject_as_new(tmp_path, capsys):
    repo, tree = toolkit_repo(tmp_path / "bench")
    base = repo.commit("No results yet")
    regenerate(repo.root)
    assert run_script("diff", ["--root", str(repo.root), "--base", base]) == 0
    out = capsys.readouterr().out
    assert "2 subject(s) changed." in out and out.count("new subject") == 2


def test_unreadable_tables_are_reported(bench, capsys):
    repo, tree, base = bench
    (repo.root / "results/metrics_per_subject.csv").write_text("subject_id,N\nx,1\n")
    assert run_script("diff", ["--root", str(repo.root), "--base", base]) == 1
    assert capsys.readouterr().err.startswith("results/metrics_per_subject.csv: header lacks column(s) subject_version")
    (repo.root / "results/metrics_per_subject.csv").unlink()
    assert run_script("diff", ["--root", str(repo.root), "--base", base]) == 1
    assert capsys.readouterr().err == ("results/metrics_per_subject.csv: missing (this file is required) "
                                       "(run `make metrics`)\n")
