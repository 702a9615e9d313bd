"""Results: the metrics and the statistics joined into the result tables, and those tables as file bytes.

- ``tables``: ``compute_results`` (derive, aggregate, statistics) and ``publish`` (the writers,
  the only place that rounds, through :mod:`rgbench.numfmt`).
- ``breakdowns``: what a lab reads beyond the ranking (criterion, tag, case type, cost, metadata, explorer).

Above :mod:`rgbench.compute` and :mod:`rgbench.stats`, which it joins; below the leaderboard.
"""
