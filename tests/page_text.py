"""A page's prose as a reader gets it, for the tests that hold the leaderboard's words: the text outside tables,
charts, scripts and styles (``prose``), its paragraphs' words before the Methods section (``words_before``) and
its sentences (``sentences``)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

SKIP = {"table", "svg", "script", "style", "title", "head"}
BLOCKS = {"p", "h1", "h2", "h3", "h4", "li", "dt", "dd", "figcaption", "summary", "div", "section", "header",
          "footer", "ul", "dl", "details", "label", "select", "option", "figure", "br"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skip = 0
        self.blocks: list[list[str]] = [[]]
        self.paragraph_words: list[int] = []   # words of each <p>, in page order, until the Methods section
        self.in_p = 0
        self.before_methods = True

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in SKIP:
            self.skip += 1
        if tag == "section" and ("id", "methods") in attrs:
            self.before_methods = False
        if tag in BLOCKS:
            self.blocks.append([])
        if tag == "p" and not self.skip:
            self.in_p = len(self.blocks)

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIP:
            self.skip -= 1
        if tag == "p" and self.in_p:
            if self.before_methods:
                self.paragraph_words.append(len(" ".join(self.blocks[self.in_p - 1]).split()))
            self.in_p = 0
        if tag in BLOCKS:
            self.blocks.append([])

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.blocks[-1].append(data)


def parse(html: str) -> _Text:
    parser = _Text()
    parser.feed(html)
    return parser


def paragraphs(html: str) -> list[str]:
    """The page's blocks of text (whitespace collapsed), tables, charts and scripts left out."""
    return [text for text in (" ".join("".join(block).split()) for block in parse(html).blocks) if text]


def prose(html: str) -> str:
    return " ".join(paragraphs(html))


def words_before_methods(html: str) -> int:
    """The words of the page's paragraphs (``<p>`` outside tables) before ``<section id="methods">``."""
    return sum(parse(html).paragraph_words)


def sentences(text: str) -> list[str]:
    """Sentences of three words or more (split after ``.``, ``!`` or ``?`` before a capital)."""
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z#])", text) if len(s.split()) >= 3]
