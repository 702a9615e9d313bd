"""The leaderboard's templates: escaped like ``esc`` (the page's bytes), no undefined name, every template loads."""

from __future__ import annotations

import jinja2
import pytest
from markupsafe import Markup

from rgbench.leaderboard.html_tables import TABLES, scroll_table
from rgbench.leaderboard.templating import ENVIRONMENT, TEMPLATES, esc, render

HOSTILE = "<script>alert('x')</script> & \"quoted\""


def test_templates_escape_values_as_esc_does_and_keep_markup():
    assert esc(HOSTILE) == "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quoted&quot;"
    assert str(TABLES.codes([HOSTILE, 7])) == f"<code>{esc(HOSTILE)}</code>, <code>7</code>"
    assert str(TABLES.rel_tag("")) == ""
    table = scroll_table('id="t"', "<th>h</th>", ["<tr><td>1</td></tr>", "<tr><td>2</td></tr>"])
    assert table == ('<div class="scroll"><table id="t"><thead><tr><th>h</th></tr></thead><tbody>\n'
                     "<tr><td>1</td></tr>\n<tr><td>2</td></tr>\n</tbody></table></div>")
    template = ENVIRONMENT.from_string('<p title="{{ value }}">{{ value }}{{ markup }}</p>')
    assert template.render(value=HOSTILE, markup=Markup("<br>")) == f'<p title="{esc(HOSTILE)}">{esc(HOSTILE)}<br></p>'


def test_an_undefined_name_is_an_error_not_an_empty_string():
    with pytest.raises(jinja2.UndefinedError, match="is undefined"):
        render("page.html.j2")
    with pytest.raises(jinja2.UndefinedError):
        ENVIRONMENT.from_string("{{ entry.missing }}").render(entry=object())


@pytest.mark.parametrize("name", sorted(p.name for p in TEMPLATES.glob("*.html.j2")))
def test_every_template_compiles(name):
    assert ENVIRONMENT.get_template(name).name == name
