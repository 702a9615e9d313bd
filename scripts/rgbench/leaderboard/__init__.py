"""The leaderboard: results tables -> leaderboard.csv, leaderboard.html, leaderboard.md.

One concept per module, in the order data flows:

* ``results_tables`` parses per_run.csv, metrics_per_subject.csv, metrics_per_family.csv, pairwise.csv and
  alpha_sensitivity.csv exactly (typed cells over the one strict CSV reader, :mod:`rgbench.results_csv`);
* ``registry``, ``manifest`` and ``critical_fails`` read the registry, the provenance and the evidence
  behind each disqualification; ``consistency`` cross-checks them all against per_run.csv;
  ``inputs`` ties the reading together and returns every problem at once;
* ``reliability`` (labels from distinct cases), ``intervals`` (optional uncertainty columns) and
  ``rank_ranges`` (rank ranges, alpha statement) are pure rules, like the ranking itself
  (:mod:`rgbench.compute.ranking`, shared with the statistics); ``board`` assembles one
  :class:`~rgbench.leaderboard.board.Board`;
* ``leaderboard_csv``, ``markdown``, ``html_tables`` + ``html_page`` (with ``page.css``, ``page.js``),
  ``display`` and ``significance_text`` format a Board; ``charts`` says what each chart shows (a
  ``Chart`` value) and draws it with matplotlib (``svg``: deterministic, inline-ready SVG);
* ``readme`` embeds the Markdown table in README.md between two markers.

``scripts/build_leaderboard.py`` renders every file and writes them.
"""
