"""HTML escaping and the Jinja2 templates of the leaderboard page (``templates/*.html.j2``, shipped as package
data); the grading page's templates (``review/templates``) load through :func:`environment` too.

One escaping rule for every page: :func:`esc` is ``html.escape`` with quotes (``'`` becomes ``&#x27;``),
for text and quoted attributes alike. The templates autoescape with the same rule (the environment's
``finalize`` escapes every value that is not already :class:`~markupsafe.Markup`, so the page keeps its bytes),
and refer to no undefined name (``StrictUndefined``). Markup passed to a template is HTML some other function
built with :func:`esc`: the wording the page shares with the Markdown leaderboard, the charts' SVG, the
page's own CSS and script.
"""

from __future__ import annotations

import html
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

TEMPLATES = Path(__file__).resolve().parent / "templates"


def esc(value: object) -> str:
    """HTML-escape any value for text or a quoted attribute."""
    return html.escape(str(value), quote=True)


def _escaped(value: object) -> object:
    """Every value a template prints, escaped by :func:`esc` unless it is Markup already."""
    return value if hasattr(value, "__html__") else Markup(esc(value))


def environment(folder: Path) -> Environment:
    """The templates in ``folder``: autoescaped by :func:`esc`, no undefined name, a block tag's own line left out
    of the output (``trim_blocks``, ``lstrip_blocks``), a template's last newline kept."""
    return Environment(loader=FileSystemLoader(folder), autoescape=True, undefined=StrictUndefined, finalize=_escaped,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, auto_reload=False)


ENVIRONMENT = environment(TEMPLATES)


def render(template: str, **values: object) -> str:
    """``templates/<template>`` rendered with ``values`` (escaped unless Markup)."""
    return ENVIRONMENT.get_template(template).render(**values)
