"""Statistics on top of the core metrics (issue 5): one concept per module, pure functions, exact where rational.

- ``config``: the statistics parameters of ``config.yaml`` (confidence level, resamples, weights).
- ``wilson``: Wilson score interval for P and P_family.
- ``bootstrap``: seeds from the input digest, case resampling, exact percentile intervals (one quantity).
- ``case_draws``: the master stream of case picks and each case set's draw from it (shared draws).
- ``exact_products`` / ``batch_percentiles``: exact integer products and percentiles of many quantities at once.
- ``run_columns``: the scored runs read once into integer arrays, for the tables below.
- ``intervals_table``: bootstrap intervals of s_bar, BS, ECE and Q_final of every subject at once.
- ``brier_decomposition``: reliability, resolution, uncertainty (and the within-bin term).
- ``pairwise`` / ``pairwise_batch``: exact McNemar, Holm, paired bootstrap of the Q_final difference, rank
  ranges; the batch of every pair at once.
- ``pass_at_k``: unbiased pass@k and pass^k over repeated runs.
- ``difficulty``: pass rate per difficulty, difficulty-weighted P.
- ``difficulty_trend``: one case-level test that the difficulty labels mean something (Kendall tau-b, separation).
- ``alpha_sensitivity``: Q_final and rank for alpha = 0, 0.1, ..., 1.
- ``agreement``: Krippendorff's alpha, weighted kappa, percent agreement, reviewer deviation.
- ``consolidate``: one scoring per run from several, by a declared policy or an adjudicator.
- ``multi_scoring``: the several-reviewers folder (``scoring_multi/``), read with the loader's listing and checks.
- ``outputs`` / ``agreement_outputs``: the tables and file bytes these produce.

The formulas are stated in ``system/metrics/v1.0/aggregate_metrics.md``, each naming the function production
calls for it; the straightforward one-at-a-time references the tests check against are in ``tests/reference_stats.py``.
"""
