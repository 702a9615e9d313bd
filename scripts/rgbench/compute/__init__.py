"""Compute: a validated tree -> exact result tables -> result file bytes.

- ``derive``: one scored run -> one row of per_run.csv (raw and clipped score, fails, classification).
- ``metrics``: the formulas of ``aggregate_metrics.md`` §4-§10 over per-run rows (P, s_bar, BS, ECE,
  Q_final, the critical-fail gate, family metrics), exact.
- ``metric_registry``: every single-number metric with its function, range, direction, undefined value.
- ``ranking``: the one ranking rule (Q_final, then P, s_bar, BS; ties share a rank).
- ``tables``: ``compute_results`` (derive, aggregate, statistics) and ``render_results`` (the writers,
  the only place that rounds).
- ``numfmt``: the fixed decimal format of every written number.
"""
