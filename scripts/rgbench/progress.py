"""A terminal progress line for long runs; silent when output is not a terminal (logs, CI)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``update(stage, done, total)`` redraws one status line on stderr.

    Nothing is printed unless both stdout and stderr are terminals, nor during
    the first ``delay`` seconds, so short runs and CI logs stay clean.
    ``close()`` erases the line.
    """

    def __init__(self, stream: TextIO | None = None, delay: float = 1.5, enabled: bool | None = None):
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = sys.stdout.isatty() and self.stream.isatty()
        self.enabled = enabled
        self.start = time.monotonic()
        self.delay = delay
        self.shown = False
        self._last = 0.0

    def update(self, stage: str, done: int, total: int, force: bool = False) -> None:
        """Redraw ``stage [####----] done/total``; throttled to 10 per second unless ``force`` (a new stage)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or (now - self._last < 0.1 and done < total and not force):
            return
        self._last = now
        width = 30
        filled = width * done // total if total else width
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{stage:<10} [{bar}] {done}/{total}")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 70 + "\r")
            self.stream.flush()
            self.shown = False
