"""Compute: validated records -> per-run rows -> exact metrics and the ranking (below the statistics).

- ``derive``: one scored run -> one row of per_run.csv (raw and clipped score, fails, classification).
- ``metrics``: the formulas of ``aggregate_metrics.md`` §4-§10 over per-run rows (P, s_bar, BS, ECE,
  Q_final, the critical-fail gate, family metrics), exact; ``bin_sums``, the per-bin calibration sums that ECE,
  calibration_bins.csv, the reliability diagrams, the Brier decomposition and the case summaries read.
- ``exact_sums``: the exact integer bincount of every per-bin, per-case and per-subject array sum.
- ``ranking``: the one ranking rule (Q_final, then P, s_bar, BS; ties share a rank).
- ``input_groups``: how results/manifest.json records the inputs (one digest per subject folder).

The tables that join these with the statistics are :mod:`rgbench.results`; the score scale is
:mod:`rgbench.load.scale`, the number format :mod:`rgbench.numfmt`.
"""
