"""The grading page's HTML: the queue and a run's page. Pure functions of their inputs; every value is escaped.

The markup is ``templates/*.html.j2`` (autoescaped, :mod:`..leaderboard.templating`); Markup passed in is the
rendered Markdown and the correctness fieldset, which holds numbers and fixed words only.

Markdown (the gold, the response, the rubric's cells) is rendered by markdown-it-py with raw HTML
disabled, so an untrusted response cannot inject markup; the page's Content-Security-Policy
(server.py) forbids inline scripts besides.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from urllib.parse import urlencode

from markdown_it import MarkdownIt
from markupsafe import Markup

from ..leaderboard.templating import environment
from ..load.scale import SUM, score_text
from ..load.spec import Spec
from ..load.system_check import CORRECTNESS_DECIMALS
from .runs import SECOND, QueuedRun

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_LEVEL = re.compile(r"^\s*(\d+)")
MAX_CHOICES = 11   # a criterion with at most this many possible scores is graded with radio buttons
_TEMPLATES = environment(Path(__file__).resolve().parent / "templates")


def render(template: str, **values: object) -> str:
    """``templates/<template>`` rendered with ``values``, escaped unless Markup (:mod:`..leaderboard.templating`)."""
    return _TEMPLATES.get_template(template).render(**values)


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


def link(path: str, token: str, filters: Mapping[str, str] | None = None) -> str:
    """``path`` with the token and the non-empty filters as its query."""
    query = {"token": token, **{k: v for k, v in sorted((filters or {}).items()) if v}}
    return f"{path}?{urlencode(query)}"


def queue_page(*, reviewer: str, blind: bool, token: str, queue: Sequence[QueuedRun], shown: Sequence[QueuedRun],
               filters: Mapping[str, str], families: Sequence[str], notice: str = "",
               has_difficulty: bool = True, has_case_type: bool = True) -> str:
    """The runs still to grade (``shown``: after the filters), with the filter form and the next run; a difficulty
    or case type the benchmark does not record has neither a filter nor a column."""
    selects = [("family", "Family", families)]
    if has_difficulty:
        selects.append(("difficulty", "Difficulty", sorted({str(r.difficulty) for r in queue}, key=int)))
    if has_case_type:
        selects.append(("case_type", "Case type", sorted({str(r.case_type) for r in queue})))
    return render("queue.html.j2", title="Runs to grade", query=urlencode({"token": token}), token=token,
                  reviewer=reviewer, blind=blind, notice=notice, queued=len(queue), second=SECOND,
                  selects=[(name, label, ["", *options], filters.get(name, "")) for name, label, options in selects],
                  rows=[(r, link("/run/" + r.handle, token, filters)) for r in shown],
                  has_difficulty=has_difficulty, has_case_type=has_case_type)


def run_page(*, spec: Spec, run: QueuedRun, reviewer: str, token: str, csrf: str, filters: Mapping[str, str],
             gold_md: str, response_text: str, levels: Mapping[str, Mapping[int, str]],
             criterion_help: Mapping[str, str], fails: Sequence[Fail], left: int,
             identity: str | None) -> str:
    """A run's page: gold, response, rubric and the grading form. ``identity`` is shown only unblinded. Each
    criterion is graded with one radio per possible score (with its rubric meaning) or, on a decimal scale,
    a number field within range at the schema's step."""
    choices = score_choices(spec)

    def meanings(name: str) -> list[tuple[str, Markup]] | None:
        if choices is None:
            return None
        return [(score_text(level), Markup(_MD.renderInline(
            levels.get(name, {}).get(int(level), "") if level.denominator == 1 else ""))) for level in choices]

    step = "any" if spec.criterion_step is None else score_text(spec.criterion_step)
    role = "second grade (goes to scoring_multi/)" if run.role == SECOND else "first grade (goes to scoring/)"
    return render("run.html.j2", title=f"{run.case_id} {run.run_id}", query=urlencode({"token": token}), run=run,
                  reviewer=reviewer, csrf=csrf, left=left, identity=identity, role=role,
                  queue_href=link("/", token, filters), filters=urlencode(sorted(filters.items())),
                  scale=scale_sentence(spec), criterion_help=criterion_help, fails=fails,
                  criteria=[(name, meanings(name)) for name in spec.criteria], step=step,
                  low=score_text(spec.criterion_min), high=score_text(spec.criterion_max),
                  gold_html=Markup(render_markdown(gold_md)), response_html=Markup(response_html(response_text)),
                  correctness_html=Markup(correctness_fieldset(spec)))


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


def written(value: Fraction) -> str:
    """A correctness value as a reviewer writes it: 0, 0.25, 1."""
    return str(value.numerator) if value.denominator == 1 else str(float(value))


def correctness_keys(values: Sequence[str]) -> list[str]:
    """The keys that set correctness, of those values it can take: ``0``, ``5 for 0.5``, ``1``."""
    return [key for key, value in (("0", "0"), ("5 for 0.5", "0.5"), ("1", "1")) if value in values]


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
    values = [written(v) for v in reversed(spec.correctness_values)]
    seed = set(values) == set(_SEED_MEANINGS)

    def meaning(index: int, value: str) -> str:
        if seed:
            return _SEED_MEANINGS[value]
        return "right" if index == 0 else "wrong" if index == len(values) - 1 else "partly right"
    keys = correctness_keys(values)
    hint = f" <small>(keys {', '.join(keys)})</small>" if keys else ""
    return ("<fieldset class=\"criterion\" tabindex=\"0\" id=\"correctness\" data-correctness=\"1\">"
            f"<legend>Correctness{hint}</legend>"
            + "".join(f"<label class=\"level\"><input type=\"radio\" name=\"correctness\" value=\"{v}\" "
                      f"tabindex=\"-1\"><b>{v}</b> {meaning(i, v)}</label>" for i, v in enumerate(values))
            + "</fieldset>")


def error_page(status: str, message: str, back: str = "") -> str:
    """The page of an error answer: its status, message and, when given, the link ``back`` to the queue."""
    return render("error.html.j2", title=status, status=status, message=message, back=back, query=back.partition("?")[2])
