"""The leaderboard: results tables -> leaderboard.csv, leaderboard.html, leaderboard.md.

One concept per module, in the order data flows:

* ``results_tables`` parses per_run.csv, metrics_per_subject.csv, metrics_per_family.csv, pairwise.csv,
  rank_sets.csv, rank_stability.csv and alpha_sensitivity.csv exactly (typed cells over the one strict CSV
  reader, :mod:`rgbench.results_csv`); ``lab_tables`` reads the lab views' tables (breakdowns, cost,
  explorer, pass@k, difficulty) as text;
* ``registry``, ``manifest`` and ``critical_fails`` read the registry, the provenance and the evidence
  behind each disqualification; ``consistency`` cross-checks them all against per_run.csv;
  ``inputs`` ties the reading together and returns every problem at once;
* ``reliability`` (labels from distinct cases), ``intervals`` (optional uncertainty columns) and
  ``rank_ranges`` (rank ranges, alpha statement) are pure rules, like the ranking itself
  (:mod:`rgbench.compute.ranking`, shared with the statistics); ``board`` assembles one
  :class:`~rgbench.leaderboard.board.Board`;
* ``leaderboard_csv``, ``markdown``, ``html_tables`` + ``html_page`` (with ``page.css``, ``page.js``),
  ``display``, ``significance_text`` and ``calibration_text`` format a Board; ``explorer`` writes the
  page's lab views and ``reviewers_section`` its Reviewers section (from reviewers.csv and
  judge_agreement.csv); ``charts`` (a ``Chart`` value each) and ``lab_charts`` say what each chart shows
  and draw it with matplotlib (``svg``: deterministic, inline-ready SVG); ``page_charts`` draws all of a
  page's charts as one batch, on every core when there are many;
* ``readme`` embeds the Markdown table in README.md between two markers.

``scripts/build_leaderboard.py`` renders every file and writes them.
"""
