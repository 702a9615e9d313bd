"""Drawing a page's charts: from the cache when unchanged, else with matplotlib, on every core when many.

:class:`LocalRenderer` draws in this process (in a fork pool when the charts
to draw are worth it, :func:`draw_all`). :class:`ChartServer` is a process
forked when the command starts: it imports matplotlib (half a second) while
this process reads and checks the inputs, then draws what it is asked to (with
its own fork pool when worth it). It may be handed charts *ahead* of the
checks (:meth:`ChartServer.prefetch`, from unchecked inputs); a drawing made
ahead is only ever used when the checked page asks for the very same Chart
value, so a wrong guess costs time, never bytes. Either way
:func:`render_charts` returns, for every chart, exactly what
:func:`.drawing.draw` returns for it.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from importlib import import_module
from pathlib import Path
from typing import Iterable, Sequence, Union

from .chart_cache import ChartCache, chart_key
from .charts import CALIBRATION, FAMILIES, Q_FINAL, Chart

# Below this much drawing (in reliability diagrams, about 65 ms each), worker processes cost more than they save.
PARALLEL_MIN_COST = 8.0


def worker_count() -> int:
    """Cores this process may use (affinity-aware), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def cost(chart: Chart) -> float:
    """Rough drawing time in reliability diagrams (longest first balances the workers)."""
    if chart.kind == Q_FINAL:
        return 0.15 * len(chart.data)
    if chart.kind == FAMILIES:
        families, rows = chart.data
        return 0.06 * len(families) * len(rows)
    return 1.0 if chart.kind == CALIBRATION else 0.0


def _draw(chart: Chart) -> str:
    from .drawing import draw

    return draw(chart)


def draw_all(charts: Sequence[Chart], workers: int | None = None) -> list[str]:
    """Each chart's SVG, in order: in a fork pool of ``workers`` (default: every core), longest first, when
    there are two or more and they cost at least PARALLEL_MIN_COST together, else here."""
    workers = worker_count() if workers is None else workers
    if len(charts) < 2 or sum(map(cost, charts)) < PARALLEL_MIN_COST or workers < 2 or not can_fork():
        return [_draw(chart) for chart in charts]
    import_module(f"{__package__}.drawing")  # imported once, before the fork, not in every worker

    order = sorted(range(len(charts)), key=lambda i: -cost(charts[i]))
    svgs: list[str] = [""] * len(charts)
    with multiprocessing.get_context("fork").Pool(min(workers, len(charts)), initializer=_worker_signals) as pool:
        for index, svg in pool.imap_unordered(_draw_indexed, [(i, charts[i]) for i in order]):
            svgs[index] = svg
    return svgs


def _draw_indexed(job: tuple[int, Chart]) -> tuple[int, str]:
    return job[0], _draw(job[1])


def _worker_signals() -> None:
    """A pool worker leaves Ctrl-C to the process that started the pool, and dies at once on SIGTERM
    (when that process stops the pool)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _exit_now(signum: int, frame: object) -> None:
    raise SystemExit(0)


class LocalRenderer:
    """Draws in this process (see :func:`draw_all`)."""

    def digest(self) -> str:
        from .drawing import renderer_digest

        return renderer_digest()

    def prefetch(self, charts: Iterable[Chart], cache_root: Path | None) -> None:
        """Nothing to do ahead here."""

    def draw_many(self, charts: Sequence[Chart]) -> list[str]:
        return draw_all(charts)

    def close(self) -> None:
        pass


def _serve(requests, replies, parent_ends) -> None:  # pragma: no cover - runs in the forked server
    """The server's loop: send the renderer digest, then answer ("prefetch", charts) and ("draw", charts).

    It closes its copies of the parent's pipe ends first, so the parent's exit ends the loop (EOF). It
    leaves Ctrl-C to the parent, which stops it with SIGTERM: that exits through Python, so a pool it
    is using is terminated and its workers reaped on the way out.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_now)
    for end in parent_ends:
        end.close()
    from .drawing import renderer_digest

    digest = renderer_digest()
    replies.send(digest)
    drawn: dict[Chart, str] = {}
    while True:
        try:
            kind, charts, cache_root = requests.recv()
        except (EOFError, OSError):
            return
        todo = [chart for chart in dict.fromkeys(charts) if chart not in drawn]
        if cache_root is not None:  # a prefetch: what the cache holds needs no drawing
            cache = ChartCache(cache_root)
            todo = [chart for chart in todo if cache.get(chart_key(chart, digest)) is None]
        drawn.update(zip(todo, draw_all(todo)))
        if kind == "draw":
            replies.send([drawn[chart] for chart in charts])


class ChartServer:
    """A forked process that imports matplotlib at once and draws on request (see the module docstring)."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("fork")
        server_requests, self._requests = context.Pipe(duplex=False)
        self._replies, server_replies = context.Pipe(duplex=False)
        self._process = context.Process(target=_serve, args=(server_requests, server_replies,
                                                             (self._requests, self._replies)),
                                        daemon=False, name="rgbench-chart-server")
        self._process.start()
        server_requests.close()
        server_replies.close()
        self._digest: str | None = None
        self._fallback: LocalRenderer | None = None

    def digest(self) -> str:
        if self._digest is None:
            try:
                self._digest = self._replies.recv()
            except (EOFError, OSError):  # the server died: draw here instead
                self._fallback = LocalRenderer()
                self._digest = self._fallback.digest()
        return self._digest

    def prefetch(self, charts: Iterable[Chart], cache_root: Path | None) -> None:
        """Start drawing those of ``charts`` not in the cache of ``cache_root`` (None: no cache) now, in the
        server, without waiting for it; :meth:`draw_many` answers from them when asked for the same values."""
        if self._fallback is None:
            try:
                self._requests.send(("prefetch", list(charts), cache_root))
            except OSError:
                self._fallback = LocalRenderer()

    def draw_many(self, charts: Sequence[Chart]) -> list[str]:
        self.digest()
        if self._fallback is None:
            try:
                self._requests.send(("draw", list(charts), None))
                return self._replies.recv()
            except (EOFError, OSError):
                self._fallback = LocalRenderer()
        return self._fallback.draw_many(charts)

    def close(self) -> None:
        """Stop the server: at once (it may still be importing or drawing ahead for nothing)."""
        self._requests.close()
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._replies.close()


ChartRenderer = Union[LocalRenderer, ChartServer]


def start_renderer() -> ChartRenderer:
    """A ChartServer when this machine has several cores and can fork, else a LocalRenderer."""
    if worker_count() > 1 and can_fork():
        try:
            return ChartServer()
        except OSError:
            pass
    return LocalRenderer()


def render_charts(charts: Sequence[Chart], cache: ChartCache, renderer: ChartRenderer
                  ) -> tuple[dict[Chart, str], dict[str, str], list[str]]:
    """(chart -> SVG, newly drawn key -> SVG for the cache, every key used), unchanged charts from ``cache``."""
    if not charts:
        return {}, {}, []
    digest = renderer.digest() if cache.enabled else ""
    keys = {chart: chart_key(chart, digest) for chart in charts} if cache.enabled else {}
    svgs: dict[Chart, str] = {}
    for chart in charts:
        svg = cache.get(keys[chart]) if cache.enabled else None
        if svg is not None:
            svgs[chart] = svg
    missing = [chart for chart in dict.fromkeys(charts) if chart not in svgs]
    fresh = dict(zip(missing, renderer.draw_many(missing))) if missing else {}
    svgs.update(fresh)
    drawn = {keys[chart]: svg for chart, svg in fresh.items()} if cache.enabled else {}
    return svgs, drawn, list(keys.values())


def prefetch_charts(charts: Sequence[Chart], cache: ChartCache, renderer: ChartRenderer) -> None:
    """Have the renderer start drawing those of ``charts`` the cache lacks, if it can do so in parallel."""
    renderer.prefetch(charts, cache.root if cache.enabled else None)
