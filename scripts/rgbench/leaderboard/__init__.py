"""The leaderboard: results tables -> leaderboard.csv, leaderboard.html, leaderboard.md.

In the order data flows: reading (``results_tables``, ``lab_tables``, ``registry``, ``manifest``,
``critical_fails``), cross-checking (``consistency``) and both tied together (``inputs``); pure rules
(``reliability``, ``intervals``, ``rank_ranges``; the ranking itself is :mod:`rgbench.compute.ranking`) and
one :class:`~rgbench.leaderboard.board.Board` (``board``); writers of a Board (``leaderboard_csv``,
``markdown``, ``html_page`` with ``html_tables``, ``explorer``, ``reviewers_section``, ``page.css`` and
``page.js``), the sentences both the Markdown and the page show (``*_text``, ``display``), the charts
(``charts``, ``lab_charts``, drawn by ``page_charts`` through ``svg``) and ``readme``.
``scripts/build_leaderboard.py`` renders every file and writes them.
"""
