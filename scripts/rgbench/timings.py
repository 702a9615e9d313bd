"""Wall time per stage of one run, for ``compute_metrics.py --timings`` and ``make bench``.

Stages are named where the work happens (``with STAGES.stage("scan"):``); a
stage entered twice adds up. Nothing is printed unless the caller asks: the
figures go to stderr, never into results.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator, TextIO


class Stages:
    """Accumulated wall seconds per stage name, in first-entered order."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def report(self, stream: TextIO) -> None:
        """One ``timing: <stage> <seconds>`` line per stage, then the total."""
        for name, seconds in self.seconds.items():
            print(f"timing: {name:<28} {seconds:7.3f} s", file=stream)
        print(f"timing: {'total (in process)':<28} {sum(self.seconds.values()):7.3f} s", file=stream)


STAGES = Stages()
