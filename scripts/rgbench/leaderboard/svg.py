"""Byte-deterministic SVG from matplotlib, ready to inline in an HTML page.

Determinism: figures are :class:`matplotlib.figure.Figure` objects (no pyplot
state) drawn once by the SVG backend's canvas (``print_svg``, which computes a
constrained layout at the start of that draw; ``savefig`` would compute it in a
first draw to nothing, then draw again: the same bytes, one pass more) inside an
``rc_context`` that fixes the hash salt used for
element ids, draws text as paths in DejaVu Sans (the copy bundled with
matplotlib, so the glyphs do not depend on the machine's fonts), turns mathtext
off (a ``$`` in a subject's name stays a dollar sign) and drops the date and
the creator (which carries the matplotlib version) from the metadata.

Inlining: the XML prolog, the metadata and the comments are dropped, and every
``id`` is prefixed with a scope unique to the chart, so several charts on one
page never share an id (matplotlib reuses ids like ``DejaVuSans-30`` and
``patch_1`` in every file).
"""

from __future__ import annotations

import html
import io
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")  # never open a window, never need a display

from matplotlib import rc_context  # noqa: E402  (after choosing the backend)
from matplotlib.backends.backend_svg import FigureCanvasSVG  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "rgbench-leaderboard",
    "svg.fonttype": "path",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 9.0,
    "text.parse_math": False,
    "axes.unicode_minus": True,
    "figure.dpi": 72.0,
    "path.simplify": True,
}
METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}

_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)
_COMMENT = re.compile(r"\s*<!--.*?-->", re.S)
_ID_OR_REFERENCE = re.compile(r'(\bid="|href="#|url\(#)')
_MISSING_GLYPH = r"Glyph .* missing from font"


@contextmanager
def chart_style() -> Iterator[None]:
    """The fixed rcParams; glyphs missing from DejaVu Sans (rare scripts in a name) draw as boxes, silently."""
    with rc_context(RC), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_MISSING_GLYPH, category=UserWarning)
        yield


def new_figure(width: float, height: float, *, margins: dict[str, float] | None = None) -> Figure:
    """A figure of ``width`` x ``height`` inches, not registered with pyplot (no global state).

    Without ``margins`` the layout is computed to fit the labels (constrained
    layout); with them (``left``, ``right``, ``bottom``, ``top`` as fractions)
    it is fixed, which is faster for many small charts of one shape.
    """
    if margins is None:
        return Figure(figsize=(width, height), layout="constrained")
    figure = Figure(figsize=(width, height))
    figure.subplots_adjust(**margins)
    return figure


def scope_ids(svg: str, scope: str) -> str:
    """Prefix every id defined in ``svg`` (and every ``#id`` / ``url(#id)`` reference, each to an id the same
    file defines) with ``scope-`` (one of the charts' own names: lowercase letters, digits and '-')."""
    return _ID_OR_REFERENCE.sub(rf"\1{scope}-", svg)


def figure_svg(fig: Figure, *, scope: str, title: str) -> str:
    """Render ``fig`` to an inline-ready ``<svg>`` element with ids scoped and an accessible ``<title>``.

    The same figure always gives the same text (no dates, fixed salt, fixed font).
    """
    buffer = io.StringIO()
    FigureCanvasSVG(fig).print_svg(buffer, metadata=METADATA)
    svg = buffer.getvalue()
    svg = _PROLOG.sub("", svg, count=1)
    svg = _METADATA.sub("", svg, count=1)
    svg = _COMMENT.sub("", svg)
    svg = scope_ids(svg, scope)
    head, _, rest = svg.partition(">")
    opening = f'{head} class="chart" role="img" aria-labelledby="{scope}-title">'
    svg = f'{opening}\n <title id="{scope}-title">{html.escape(title)}</title>{rest}'
    return svg.rstrip("\n") + "\n"
