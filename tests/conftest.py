"""The ``sample`` marker: tests whose expectations are hand-computed from the shipped reverse-osmosis sample.

They run only while the repository's ``system/`` is that sample (the facts its
expectations assume: criteria, id pattern, thresholds, correctness values);
in a fork that replaced ``system/`` and the data with another benchmark they
are skipped, and the rest of the suite, the portable part, still runs.
"""

from __future__ import annotations

import pytest
from treebuilder import REPO, is_ro_sample


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sample: expectations computed from the shipped RO sample "
                                       "(skipped when system/ holds another benchmark)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if is_ro_sample(REPO):
        return
    skip = pytest.mark.skip(reason="expectations of the RO sample; system/ holds another benchmark")
    for item in items:
        if "sample" in item.keywords:
            item.add_marker(skip)
