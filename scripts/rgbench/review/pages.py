"""The grading page's HTML: the queue and a run's page. Pure functions of their inputs; every value is escaped.

Markdown (the gold, the response, the rubric's cells) is rendered by markdown-it-py with raw HTML
disabled, so an untrusted response cannot inject markup; the page's Content-Security-Policy
(server.py) forbids inline scripts besides.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from html import escape
from urllib.parse import urlencode

from markdown_it import MarkdownIt

from ..load.scale import SUM, score_text
from ..load.spec import Spec
from ..load.system_check import CORRECTNESS_DECIMALS
from .runs import SECOND, QueuedRun

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_LEVEL = re.compile(r"^\s*(\d+)")
MAX_CHOICES = 11   # a criterion with at most this many possible scores is graded with radio buttons


def render_markdown(text: str) -> str:
    """HTML of ``text`` (CommonMark and tables, raw HTML shown as text)."""
    return _MD.render(text)


EMPTY_ANSWER = "(empty answer)"


def response_html(text: str) -> str:
    """The response pane's HTML: ``text`` rendered (:func:`render_markdown`), or ``(empty answer)`` when it is empty
    or only whitespace (an answer like any other: it is graded)."""
    if not text.strip():
        return f"<p class=\"empty-answer\"><em>{EMPTY_ANSWER}</em></p>\n"
    return render_markdown(text)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def rubric_levels(rubric_md: str, criteria: Sequence[str]) -> dict[str, dict[int, str]]:
    """What each level of each criterion means, from the rubric's table whose first column names the
    criteria (header cells start with the level, e.g. ``2 — complete``); {} for a criterion not found."""
    levels: dict[str, dict[int, str]] = {}
    header: list[str] = []
    for line in rubric_md.splitlines():
        if not line.lstrip().startswith("|"):
            header = []
            continue
        cells = _cells(line)
        name = cells[0].strip("`") if cells else ""
        if name in criteria and header:
            levels[name] = {int(m.group(1)): text for head, text in zip(header[1:], cells[1:])
                            if (m := _LEVEL.match(head))}
        elif not header and not set("".join(cells)) <= set("-: "):
            header = cells
    return levels


@dataclass(frozen=True)
class Fail:
    """A catalog entry as the page lists it."""

    code: str
    severity: str
    title: str
    description: str


def _page(title: str, body: str, token: str) -> str:
    q = escape(urlencode({"token": token}))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><meta name=\"referrer\" content=\"no-referrer\">"
            f"<link rel=\"stylesheet\" href=\"/static/app.css?{q}\"></head>\n<body>\n{body}\n"
            f"<script src=\"/static/app.js?{q}\"></script>\n</body></html>\n")


def link(path: str, token: str, filters: Mapping[str, str] | None = None) -> str:
    """``path`` with the token and the non-empty filters as its query."""
    query = {"token": token, **{k: v for k, v in sorted((filters or {}).items()) if v}}
    return f"{path}?{urlencode(query)}"


def _select(name: str, label: str, options: Sequence[str], chosen: str) -> str:
    items = "".join(f"<option value=\"{escape(o)}\"{' selected' if o == chosen else ''}>{escape(o) or 'any'}</option>"
                    for o in ("", *options))
    return f"<label>{escape(label)} <select name=\"{name}\">{items}</select></label>"


def queue_page(*, reviewer: str, blind: bool, token: str, queue: Sequence[QueuedRun], shown: Sequence[QueuedRun],
               filters: Mapping[str, str], families: Sequence[str], notice: str = "",
               has_difficulty: bool = True, has_case_type: bool = True) -> str:
    """The runs still to grade (``shown``: after the filters), with the filter form and the next run; a difficulty
    or case type the benchmark does not record has neither a filter nor a column."""
    difficulties = sorted({str(r.difficulty) for r in queue}, key=int) if has_difficulty else []
    case_types = sorted({str(r.case_type) for r in queue}) if has_case_type else []
    form = ("<form id=\"filters\" method=\"get\" action=\"/\">"
            f"<input type=\"hidden\" name=\"token\" value=\"{escape(token)}\">"
            + _select("family", "Family", families, filters.get("family", ""))
            + (_select("difficulty", "Difficulty", difficulties, filters.get("difficulty", "")) if has_difficulty else "")
            + (_select("case_type", "Case type", case_types, filters.get("case_type", "")) if has_case_type else "")
            + "<button type=\"submit\">Filter</button></form>")
    if shown:
        start = (f"<p><a id=\"next\" class=\"button\" accesskey=\"n\" "
                 f"href=\"{escape(link('/run/' + shown[0].handle, token, filters))}\">Grade the next run (n)</a></p>")
    else:
        start = "<p id=\"done\">Nothing left to grade with these filters.</p>"
    rows = "".join(
        f"<tr><td>{i}</td><td><a href=\"{escape(link('/run/' + r.handle, token, filters))}\">{escape(r.case_id)}</a></td>"
        f"<td>{escape(r.run_id)}</td><td>{escape(r.family)}</td>"
        + (f"<td>{r.difficulty}</td>" if has_difficulty else "")
        + (f"<td>{escape(str(r.case_type))}</td>" if has_case_type else "")
        + f"<td>{'second grade' if r.role == SECOND else 'first grade'}</td></tr>"
        for i, r in enumerate(shown, 1))
    mode = "blind" if blind else "<strong>unblinded</strong>"
    body = (f"<header><h1>Runs to grade</h1><p>Reviewer <code>{escape(reviewer)}</code> · {mode} · "
            f"{len(shown)} of {len(queue)} shown</p></header>\n"
            + (f"<p class=\"notice\">{escape(notice)}</p>" if notice else "")
            + form + start
            + "<table id=\"queue\"><thead><tr><th>#</th><th>Case</th><th>Run</th><th>Family</th>"
            + ("<th>Difficulty</th>" if has_difficulty else "") + ("<th>Case type</th>" if has_case_type else "")
            + f"<th>Grade</th></tr></thead><tbody>{rows}</tbody></table>")
    return _page("Runs to grade", body, token)


def run_page(*, spec: Spec, run: QueuedRun, reviewer: str, token: str, csrf: str, filters: Mapping[str, str],
             gold_md: str, response_text: str, levels: Mapping[str, Mapping[int, str]],
             criterion_help: Mapping[str, str], fails: Sequence[Fail], left: int,
             identity: str | None) -> str:
    """A run's page: gold, response, rubric and the grading form. ``identity`` is shown only unblinded."""
    criteria_html = []
    choices = score_choices(spec)
    for index, name in enumerate(spec.criteria):
        legend = (f"<legend>{index + 1}. <code>{escape(name)}</code> "
                  f"<small>{escape(criterion_help.get(name, ''))}</small></legend>")
        if choices is None:   # a decimal scale: one number field, within range, at the schema's step
            step = "any" if spec.criterion_step is None else score_text(spec.criterion_step)
            low, high = score_text(spec.criterion_min), score_text(spec.criterion_max)
            criteria_html.append(
                f"<fieldset class=\"criterion decimal\" data-criterion=\"{escape(name)}\" id=\"crit-{escape(name)}\">"
                + legend + f"<label class=\"score\"><input type=\"number\" name=\"c-{escape(name)}\" min=\"{low}\" "
                f"max=\"{high}\" step=\"{step}\" inputmode=\"decimal\"> <span>{low}\u2013{high}"
                + ("" if spec.criterion_step is None else f", step {step}") + "</span></label></fieldset>")
            continue
        options = []
        for level in choices:
            meaning = levels.get(name, {}).get(int(level), "") if level.denominator == 1 else ""
            text = score_text(level)
            options.append(
                f"<label class=\"level\"><input type=\"radio\" name=\"c-{escape(name)}\" value=\"{text}\" tabindex=\"-1\">"
                f"<b>{text}</b> <span>{_MD.renderInline(meaning)}</span></label>")
        criteria_html.append(
            f"<fieldset class=\"criterion\" tabindex=\"0\" data-criterion=\"{escape(name)}\" id=\"crit-{escape(name)}\">"
            + legend + "".join(options) + "</fieldset>")
    correctness = correctness_fieldset(spec)
    fail_items = "".join(
        f"<div class=\"fail {escape(f.severity)}\"><label><input type=\"checkbox\" name=\"fail\" value=\"{escape(f.code)}\">"
        f" <code>{escape(f.code)}</code> <em>{escape(f.severity)}</em> {escape(f.title)}</label>"
        f"<details><summary>description</summary><p>{escape(f.description)}</p></details>"
        f"<textarea name=\"evidence-{escape(f.code)}\" data-evidence-for=\"{escape(f.code)}\" rows=\"2\" "
        f"placeholder=\"Evidence: quote the words of the response that trigger it\" hidden></textarea></div>"
        for f in fails)
    who = (f"<p class=\"identity\" id=\"identity\">Unblinded: {escape(identity)}</p>" if identity is not None
           else "<p class=\"identity\">Blind: the subject is hidden.</p>")
    role = "second grade (goes to scoring_multi/)" if run.role == SECOND else "first grade (goes to scoring/)"
    body = (
        f"<header><a href=\"{escape(link('/', token, filters))}\" accesskey=\"q\">← queue (q)</a> · "
        f"<h1>{escape(run.case_id)} · run {escape(run.run_id)}</h1> · {escape(role)} · {left} left · "
        f"reviewer <code>{escape(reviewer)}</code>{who}</header>\n"
        "<main><section id=\"gold\" class=\"pane\"><h2>Gold</h2>" + render_markdown(gold_md) + "</section>\n"
        "<section id=\"response\" class=\"pane\"><h2>Response</h2>" + response_html(response_text) + "</section>\n"
        f"<section id=\"grading\" class=\"pane\"><h2>Grade</h2>"
        f"<p class=\"keys\">Tab / Shift+Tab between criteria · digit sets the focused one · Ctrl+Enter saves and opens "
        f"the next run</p><p class=\"scale\" id=\"scale\">{escape(scale_sentence(spec))}</p>"
        f"<form id=\"grade\" data-handle=\"{escape(run.handle)}\" data-csrf=\"{escape(csrf)}\" "
        f"data-queue=\"{escape(link('/', token, filters))}\" data-filters=\"{escape(urlencode(sorted(filters.items())))}\">"
        + "".join(criteria_html) + correctness
        + f"<fieldset id=\"fails\"><legend>Automatic fails</legend>{fail_items}</fieldset>"
        + "<label for=\"comments\">Comments</label><textarea id=\"comments\" name=\"comments\" rows=\"4\"></textarea>"
        + "<ul id=\"messages\" role=\"alert\"></ul>"
        + "<button type=\"submit\" id=\"save\">Save and next (Ctrl+Enter)</button>"
        + "<p id=\"saved\" role=\"status\"></p></form></section></main>")
    return _page(f"{run.case_id} {run.run_id}", body, token)


def score_choices(spec: Spec) -> list[Fraction] | None:
    """The scores a criterion can take, best first (the radio buttons), when they are few (at most
    MAX_CHOICES on the schema's step); None for a decimal scale with more (a number field instead)."""
    low, high, step = spec.criterion_min, spec.criterion_max, spec.criterion_step
    if step is None or (high - low) / step >= MAX_CHOICES:
        return None
    levels = [low + i * step for i in range(int((high - low) / step) + 1)]
    return levels[::-1] if spec.higher_is_better else levels


def scale_sentence(spec: Spec) -> str:
    """What a score means on this benchmark, e.g. ``Each criterion 0-2 (whole numbers), higher is better; a run's
    total is their sum (0-12).``"""
    step = spec.criterion_step
    grain = ("any decimal" if step is None else "whole numbers" if step == 1 else f"in steps of {score_text(step)}")
    how = "sum" if spec.score_total == SUM else "mean"
    scale = spec.scale
    named = f" ({spec.score_name})" if spec.score_name else ""
    return (f"Each criterion {score_text(spec.criterion_min)}\u2013{score_text(spec.criterion_max)} ({grain}), "
            f"{scale.direction_text}; a run's total{named} is their {how} "
            f"({score_text(scale.low)}\u2013{score_text(scale.high)}).")
# What each correctness value means on the seed's scale {0, 0.5, 1}; another enum's values are labelled by
# position (wrong, partly right, right).
_SEED_MEANINGS = {"1": "canonical diagnosis", "0.5": "acceptable alternative or partly right", "0": "wrong"}


def _written(value: Fraction) -> str:
    """A correctness value as a reviewer writes it: 0, 0.25, 1."""
    return str(value.numerator) if value.denominator == 1 else str(float(value))


def correctness_fieldset(spec: Spec) -> str:
    """The correctness input of the grading form: one radio per value of the schema's enum (highest first; keys
    0, 1 and 5 for 0.5 where those values exist), a number field from 0 to 1 for a schema without an enum, and
    nothing for a benchmark that records no correctness."""
    if not spec.has_correctness:
        return ""
    if not spec.correctness_values:
        step = 10 ** -CORRECTNESS_DECIMALS
        return ("<fieldset id=\"correctness\"><legend>Correctness <small>(a number from 0, wrong, to 1, right; at "
                f"most {CORRECTNESS_DECIMALS} decimals)</small></legend><input type=\"number\" name=\"correctness\" "
                f"min=\"0\" max=\"1\" step=\"{step:g}\" aria-label=\"correctness\"></fieldset>")
    values = [_written(v) for v in reversed(spec.correctness_values)]
    seed = set(values) == set(_SEED_MEANINGS)

    def meaning(index: int, value: str) -> str:
        if seed:
            return _SEED_MEANINGS[value]
        return "right" if index == 0 else "wrong" if index == len(values) - 1 else "partly right"
    keys = [key for key, value in (("0", "0"), ("5 for 0.5", "0.5"), ("1", "1")) if value in values]
    hint = f" <small>(keys {', '.join(keys)})</small>" if keys else ""
    return ("<fieldset class=\"criterion\" tabindex=\"0\" id=\"correctness\" data-correctness=\"1\">"
            f"<legend>Correctness{hint}</legend>"
            + "".join(f"<label class=\"level\"><input type=\"radio\" name=\"correctness\" value=\"{v}\" "
                      f"tabindex=\"-1\"><b>{v}</b> {meaning(i, v)}</label>" for i, v in enumerate(values))
            + "</fieldset>")


def error_page(status: str, message: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(status)}</title></head>"
            f"<body><h1>{escape(status)}</h1><p>{escape(message)}</p></body></html>\n")
