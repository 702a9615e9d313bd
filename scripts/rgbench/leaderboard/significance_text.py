"""The sentences that explain rank ranges and the alpha sensitivity, shared by the Markdown and the page.

Each function takes ``name`` (subject_id -> the subject's display name, already
escaped for the target format) and ``esc`` (escapes the fixed text for the
target format: identity for Markdown, ``html.escape`` for the page), so the
wording is written once and every data string is escaped by its writer.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction

from ..load.scale import ScoreScale, difference_text, score_text
from .board import Board, BoardEntry
from .display import short_decimal
from .long_lists import capped, joined
from .rank_ranges import AlphaSpan, AlphaStatement, Significance, outside_range

Text = Callable[[str], str]  # a writer's escaping: identity for Markdown, html.escape for the page
ALPHA_FILE_NAME = "results/alpha_sensitivity.csv"
PAIRWISE_WHERE = "results/pairwise.csv, column significantly_better"
RANK_SETS_FILE_NAME = "results/rank_sets.csv"
ORDER_FILE_NAME = "results/rank_stability.csv"


# How each pairwise_correction reads in a sentence (config.yaml; aggregate_metrics.md §20).
CORRECTION_TEXT = {"holm": "Holm-adjusted",
                   "benjamini-hochberg": "Benjamini-Hochberg-adjusted (a false discovery rate, not a family-wise error)"}
CORRECTION_NAME = {"holm": "Holm", "benjamini-hochberg": "Benjamini-Hochberg"}

def range_text(rank_range: tuple[int, int]) -> str:
    """``(best, worst)`` -> ``"best–worst"`` (an en dash; ``"4–4"`` when the rank is established)."""
    return f"{rank_range[0]}\u2013{rank_range[1]}"


def above_text(entry: BoardEntry, ranked: Sequence[BoardEntry]) -> str:
    """The ranks of the ``ranked`` entries ``entry`` is significantly above (``entry.above``): ``3, 4``, three or
    more consecutive ranks as ``3–6``; a rank several rows share (a tie on every ranking key) of which it is above
    only some as ``2 (1 of 2)``; ``""`` for none."""
    rows = Counter(e.rank for e in ranked if e.rank is not None)
    beaten = Counter(e.rank for e in ranked if e.metrics.subject_id in entry.above)
    parts: list[str] = []
    run: list[int] = []

    def close() -> None:
        parts.extend([f"{run[0]}\u2013{run[-1]}"] if len(run) > 2 else map(str, run))
        run.clear()
    for rank in rows:
        if beaten[rank] == rows[rank]:
            run.append(rank)
            continue
        close()
        if beaten[rank]:
            parts.append(f"{rank} ({beaten[rank]} of {rows[rank]})")
    close()
    return ", ".join(parts)


def ties_legend(sig: Significance | None) -> str:
    """What the Tie group and Significantly above columns mean (unescaped); ``""`` without them."""
    if sig is None:
        return ""
    return ("Tie group: rows with the same letter have overlapping 95% rank ranges, directly or through a chain of "
            "them; the data do not establish the order of two rows whose ranges overlap. Sig. above: the ranks of the "
            "rows a row is significantly above in the pairwise test of Q_final "
            f"({CORRECTION_NAME[sig.correction]}-adjusted p < {short_decimal(sig.level)}).")


def _names(ids: Sequence[str], name: Text, esc: Text) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    return joined([name(sid) for sid in ids], esc)


def rank_range_method(sig: Significance, esc: Text) -> str:
    """What a rank range is and what it rests on (one paragraph); ``sig.ranges`` has one entry per ranked subject."""
    level = short_decimal(sig.level)
    text = ("Rank range (in parentheses with each rank): with 95% confidence, every ranked subject's true rank "
            "- its rank on the whole population of cases this sample stands for - lies in its range, for all "
            "subjects at once (simultaneous confidence sets for ranks, Mogstad, Romano, Shaikh and Wilhelm 2024, "
            "from a bootstrap over cases; results/rank_sets.csv). Ranks inside a range are not established. ")
    if len(sig.ranges) < 2:
        text += "Only one subject is ranked, so no pair is compared."
    elif sig.n_pairs == 0:
        text += "No two ranked subjects share a case, so no pair is compared."
    else:
        pairs = "pair" if sig.n_pairs == 1 else "pairs"
        text += (f"A difference is significant when the case-level sign-flip test of the Q_final difference over "
                 f"the cases both subjects answered, {CORRECTION_TEXT[sig.correction]} over the {sig.n_pairs} "
                 f"{pairs} of ranked subjects, gives p < {level} (pairs with a disqualified, incomplete or unscored "
                 f"subject are tested apart and not counted).")
    return esc(text)


def power_sentence(sig: Significance, esc: Text, scale: ScoreScale | None = None, alpha: Fraction | None = None) -> str:
    """How small a difference the board's own test resolves, so "not significant" reads "not resolved".

    ``sig.q_mde`` is the span over the pairs of ranked subjects of
    :func:`rgbench.stats.pairwise.minimum_detectable_difference` at ``pairs`` = ``sig.n_pairs`` (m): the true
    difference in Q_final that the sign-flip test finds at level/m with 80% power. level/m is the strictest
    step of Holm's adjustment and of Benjamini-Hochberg's (``sig.correction``): both declare significant every
    pair that step declares, so the claim is "at least 80%" through either (docs/statistics_check.md measures the
    power at level/m and through Holm against it). The test is on Q_final alone: nothing is said about P, which no
    test on the page compares.

    Differences are written by :func:`rgbench.load.scale.difference_text` (two significant digits, never 0.00
    for a difference that is not zero). On a benchmark's own scale (``scale`` not the seed's kind, alpha < 1)
    the Q_final difference is also given as the difference in s_bar alone that makes it, on s_bar's scale:
    Δs̄ = ΔQ_final · (score_max − score_min) / (1 − alpha), which is within the scale only up to ΔQ_final =
    1 − alpha (the sentence says so for the pairs that need more). A difference in Q_final is at most 1: when every
    pair's figure is 1 or more (too few cases) the sentence says no difference is resolved, and when some are it
    says so after the span of the others. ``""`` without a figure, and when no pair can reach the level at all
    (:func:`unresolved_sentence` already says so, with the reason).
    """
    if sig.q_mde is None or sig.n_pairs < 1 or sig.unresolved == sig.n_pairs:
        return ""
    level = short_decimal(sig.level)
    m = sig.n_pairs
    test = (f"the sign-flip test at level {level}" if m == 1 else
            f"the sign-flip test at level {level}/{m}, the strictest step of the {CORRECTION_NAME[sig.correction]} "
            f"adjustment over the {m} pairs of ranked subjects")
    resolved = ("Smaller differences are not resolved by this benchmark: \"not significant\" means \"not resolved\", "
                "not \"equal\".")
    if sig.q_mde[0] >= 1:
        return esc(f"Power: with these cases no true difference in Q_final (at most 1) between two ranked subjects is "
                   f"found significant with 80% power (computed for {test}, from each pair's observed case-to-case "
                   "spread; checked by simulation in docs/statistics_check.md): \"not significant\" means \"not "
                   "resolved\", not \"equal\".")
    low, high = sig.q_mde
    some = high >= 1
    shown = (low, low) if some else (low, high)

    def span(pair: tuple[Fraction | float, Fraction | float], factor: Fraction = Fraction(1)) -> str:
        a, b = (difference_text(Fraction(v) * factor) for v in pair)
        return a if a == b else f"{a}-{b}"
    figure = span(shown) + (" (for the pairs that resolve one; the others resolve no difference)" if some else "")
    on_scale = ""
    if scale is not None and not scale.is_default and alpha is not None and alpha < 1:
        # s_bar alone moves Q_final by at most 1 - alpha: a pair needing more is resolved by no difference in s_bar
        within = [v for v in shown if v <= 1 - alpha]
        scale_text = f"on its {score_text(scale.low)}\u2013{score_text(scale.high)} scale"
        factor = scale.span / (1 - alpha)
        if len(within) == 2:
            on_scale = f" (with P equal: a difference in {scale.label} of {span(shown, factor)} {scale_text})"
        elif within:
            on_scale = (f" (with P equal: a difference in {scale.label} of {span((within[0], within[0]), factor)} "
                        f"{scale_text} for the most precise pairs; for the least precise, none within the scale)")
        else:
            on_scale = f" (with P equal: no difference in {scale.label} {scale_text} is enough)"
    return esc(f"Power: with these cases, a true difference in Q_final of {figure}{on_scale} between two ranked "
               f"subjects is found significant at least 80% of the time (computed for {test}, from each pair's "
               f"observed case-to-case spread; checked by simulation in docs/statistics_check.md). {resolved}")


def significant_differences(sig: Significance, name: Text, esc: Text) -> str:
    """``Significant differences: A above B and C; D above E.`` in leaderboard order, or that there is none;
    beyond :data:`~.long_lists.LIST_LIMIT` pairs, their count and the first pairs (:func:`~.long_lists.capped`)."""
    unresolved = unresolved_sentence(sig)
    if not sig.above:
        if sig.n_pairs and sig.unresolved == sig.n_pairs:
            return esc("No ranked subject is shown significantly above another, and that does not mean they are "
                       "equal. " + unresolved)
        return esc("No ranked subject is significantly above another." + (" " + unresolved if unresolved else ""))

    def render(pairs: Sequence[tuple[str, str]]) -> str:
        groups: dict[str, list[str]] = {}
        for better, worse in pairs:
            groups.setdefault(better, []).append(worse)
        return esc("; ").join(f"{name(better)}{esc(' above ')}{_names(worse, name, esc)}"
                              for better, worse in groups.items())
    return (esc("Significant differences: ") + capped(sig.above, render, noun="pair", where=PAIRWISE_WHERE, esc=esc)
            + esc(".") + (esc(" " + unresolved) if unresolved else ""))


def unresolved_sentence(sig: Significance) -> str:
    """Why some pairs could not be significant whatever their difference (unescaped), or ``""`` when the test
    can resolve every pair: with k shared cases that differ the sign-flip test's smallest p is 2 / 2^k, and the
    adjustment over n_pairs pairs asks for p below level / n_pairs first (:func:`rgbench.stats.pairwise.unresolvable`)."""
    if not sig.unresolved:
        return ""
    m, level = sig.n_pairs, short_decimal(sig.level)
    every = sig.unresolved == m
    share = "any pair of ranked subjects" if every else f"{sig.unresolved} of the {m} pairs of ranked subjects"
    which = "every pair" if every else "each of these"
    if m == 1:
        reason, bound = f"too few shared cases for a test at level {level}", f"the level {level}"
    else:
        reason = "too few shared cases for that many pairs"
        bound = f"{level}/{m}, the first threshold of the {CORRECTION_NAME[sig.correction]} adjustment over {m} pairs"
    return (f"The test could not resolve {share} whatever the difference: {reason} (the smallest p the sign-flip "
            f"test can give a pair is 2/2^k, k the shared cases on which the two differ; for {which} it is above "
            f"{bound}).")


def outside_note(board: Board, name: Text, esc: Text) -> str:
    """A sentence for ranked subjects whose rank lies outside their range (unequal run sets), else ``""``."""
    odd = [e.metrics.subject_id for e in board.ranked if outside_range(e.rank, e.rank_range)]
    if not odd:
        return ""
    listed = capped(odd, lambda ids: _names(ids, name, esc), noun="subject", where=RANK_SETS_FILE_NAME, esc=esc)
    return (esc("The ranking uses every scored run, the paired tests only the runs two subjects share, and here they "
                "disagree: the rank lies outside the range for ") + listed + esc("."))


def _leaders(top: Sequence[tuple[int, str]], name: Text, esc: Text) -> str:
    return esc(", ").join(esc(f"#{rank} ") + name(sid) for rank, sid in top)


def _grid_text(grid: Sequence[Fraction]) -> str:
    """``from 0 to 1 in steps of 0.1`` for an even grid, else the alphas listed."""
    steps = {b - a for a, b in zip(grid, grid[1:])}
    if len(grid) > 2 and len(steps) == 1:
        return f"from {short_decimal(grid[0])} to {short_decimal(grid[-1])} in steps of {short_decimal(steps.pop())}"
    return "of " + ", ".join(short_decimal(a) for a in grid)


def _span_text(span: AlphaSpan) -> str:
    first, last = short_decimal(span.alphas[0]), short_decimal(span.alphas[-1])
    return f"alpha {first}" if len(span.alphas) == 1 else f"alpha {first} to {last}"


def alpha_sentence(statement: AlphaStatement, alpha: Fraction | None, name: Text, esc: Text) -> str:
    """Whether ranks 1..top depend on alpha; the subjects holding them, per stretch of the alpha grid when they
    do (with the ``alpha`` these results use, when given)."""
    subject = "The first place" if statement.top == 1 else f"The top {statement.top}"
    if not statement.depends:
        verb = "is" if statement.top == 1 else "are"
        return (esc(f"{subject} (") + _leaders(statement.spans[0].top, name, esc)
                + esc(f") {verb} the same for every alpha {_grid_text(statement.grid)} ({ALPHA_FILE_NAME})."))
    verb = "depends" if statement.top == 1 else "depend"
    stretches = capped(statement.spans, lambda spans: esc("; ").join(
        _leaders(span.top, name, esc) + esc(f" for {_span_text(span)}") for span in spans),
        noun="alpha range", where=ALPHA_FILE_NAME, esc=esc)
    used = "" if alpha is None else f"; this leaderboard uses alpha {short_decimal(alpha)}"
    return esc(f"{subject} {verb} on alpha ({ALPHA_FILE_NAME}{used}): ") + stretches + esc(".")


def order_sentence(board: Board, name: Text, esc: Text) -> str:
    """Which ranked pairs change order for some alpha in [0, 1] (rank_stability.csv), and how often adjacent
    ranks swap in the bootstrap replicates; ``""`` without the file."""
    if not board.order:
        return ""
    crossing = [r for r in board.order if r.alpha_crossing is not None]
    if not board.shown.pass_rule:   # no P: alpha weighs nothing, nothing crosses
        text = ""
    elif crossing:
        parts = capped(crossing, lambda rows: esc("; ").join(
            name(r.subject_a) + esc(" and ") + name(r.subject_b) + esc(f" swap at alpha {float(r.alpha_crossing):.2f}")
            for r in rows), noun="pair", where=ORDER_FILE_NAME, esc=esc)
        text = esc("Pairs whose order changes for some alpha from 0 to 1: ") + parts + esc(". ")
    else:
        text = esc("No two ranked subjects change order for any alpha from 0 to 1 (results/rank_stability.csv). ")
    adjacent = [r for r in board.order if r.adjacent and r.swap_share is not None]
    if adjacent:
        parts = capped(adjacent, lambda rows: esc("; ").join(
            esc(f"#{r.rank_a} ") + name(r.subject_a) + esc(f" and #{r.rank_b} ") + name(r.subject_b)
            + esc(f" in {share_text(r.swap_share)}") for r in rows), noun="pair", where=ORDER_FILE_NAME, esc=esc)
        text += (esc("Neighbouring ranks swap in this share of bootstrap replicates of the cases (near 50%: the data "
                     "cannot order them): ") + parts + esc("."))
    return text


def share_text(share: Fraction) -> str:
    """A share as a whole percentage, halves rounded up, that never rounds a rare event away: ``under 1%`` above 0,
    ``over 99%`` below 1."""
    if 0 < share < Fraction(1, 200):
        return "under 1%"
    if Fraction(199, 200) <= share < 1:
        return "over 99%"
    return f"{math.floor(100 * share + Fraction(1, 2))}%"


def rank_notes(board: Board, name: Text, esc: Text) -> tuple[str, str, str]:
    """(what the rank ranges rest on, the significant differences with any rank outside its range, the alpha
    sentence), each ``""`` when the results do not carry what it describes."""
    method = differences = alpha = ""
    if board.significance is not None and board.ranked:
        method = rank_range_method(board.significance, esc)
    if board.significance is not None and len(board.ranked) > 1:
        outside = outside_note(board, name, esc)
        differences = significant_differences(board.significance, name, esc) + (" " + outside if outside else "")
        power = power_sentence(board.significance, esc, board.scale, board.alpha)
        differences += (" " + power) if power else ""
    if board.alpha_statement is not None:
        alpha = alpha_sentence(board.alpha_statement, board.alpha, name, esc)
    order = order_sentence(board, name, esc)
    if order:
        alpha = (alpha + " " + order) if alpha else order
    return method, differences, alpha
