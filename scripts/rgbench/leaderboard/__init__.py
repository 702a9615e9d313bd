"""The leaderboard: results tables -> leaderboard.csv, leaderboard.html, leaderboard.md.

In the order data flows: the one results set, in memory or read back (``results_tables``), and everything the
board shows taken from it (``inputs``, with ``lab_tables``, ``registry``, ``manifest``, ``critical_fails``); pure rules
(``reliability``, ``intervals``, ``rank_ranges``; the ranking itself is :mod:`rgbench.compute.ranking`) and
one :class:`~rgbench.leaderboard.board.Board` (``board``); writers of a Board (``leaderboard_csv``,
``markdown``, ``html_page`` with ``html_tables``, ``explorer``, ``reviewers_section``, ``page.css`` and
``page.js``), the sentences both the Markdown and the page show (``*_text``, ``display``), the charts
(``charts``, ``lab_charts``, drawn by ``page_charts`` through ``svg``) and ``readme``.
``rgbench metrics`` and ``rgbench leaderboard`` (:mod:`rgbench.commands.leaderboard`) render every file and write them.
"""
