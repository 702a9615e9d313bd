"""The ``sample`` marker: tests whose expectations are hand-computed from the shipped reverse-osmosis sample.

They run only while the repository's ``system/`` is that sample (the facts its
expectations assume: criteria, id pattern, thresholds, correctness values);
in a fork that replaced ``system/`` and the data with another benchmark they
are skipped, and the rest of the suite, the portable part, still runs.
"""

from __future__ import annotations

import sys

import pytest
from treebuilder import REPO, is_ro_sample

# End-to-end modules (several scripts, git repositories, a wheel build, a browser, a profiler): `make test`
# leaves them out to stay a quick loop (under two minutes on 2 cores); `make test-slow` runs them, and
# .ci/run runs both, so CI runs every test.
SLOW_MODULES = frozenset({
    "test_spec_calls", "test_governance_reviewer", "test_governance_gate", "test_governance_snapshot",
    "test_governance_diff", "test_governance_provenance", "test_init", "test_package", "test_review_browser",
    "test_leaderboard_lab_browser", "test_leaderboard_browser", "test_leaderboard_explorer_browser", "test_scale",
    "test_result_csv_fuzz", "test_large_board", "test_fuzz", "test_optional_fields_tracebacks",
})


@pytest.fixture(scope="session", autouse=True)
def charts_in_the_tests_own_process():
    """Every test draws the page's charts in its own process: xdist already keeps each core busy with a test, and
    the chart pool (from 8 charts, a speed-up for large boards) only added forks of a large test process (four
    page-heavy modules: 41 CPU-s with the pool, 32 without). tests/test_parallel.py lowers the threshold itself and
    holds the pool's SVGs to the one-process ones."""
    from rgbench.leaderboard import page_charts

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(page_charts, "PARALLEL_MIN_CHARTS", sys.maxsize)
        yield


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sample: expectations computed from the shipped RO sample "
                                       "(skipped when system/ holds another benchmark)")
    config.addinivalue_line("markers", "slow: an end-to-end module (SLOW_MODULES) or test, run by `make test-slow`")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.module is not None and item.module.__name__.rpartition(".")[2] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
    if is_ro_sample(REPO):
        return
    skip = pytest.mark.skip(reason="expectations of the RO sample; system/ holds another benchmark")
    for item in items:
        if "sample" in item.keywords:
            item.add_marker(skip)
