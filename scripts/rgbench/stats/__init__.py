"""Statistics on top of the core metrics (issue 5): one concept per module, pure functions, exact where rational.

- ``case_summary``: each subject's runs summed per case, the unit of every interval, test and rank set.
- ``seeds``: each subject's input digest and the random streams seeded from it.
- ``bootstrap``: the case bootstrap and its BCa interval, the seeded case draw and the ratio interval.
- ``intervals``: BCa intervals of P, s_bar, BS, ECE, Q_final (and of any proportion over cases).
- ``wilson``: Wilson score interval, for a proportion at 0 or 1 counted over cases.
- ``run_columns``: the scored runs read once into integer arrays.
- ``brier_decomposition``: reliability, resolution, uncertainty (and the within-bin term).
- ``pairwise``: the case-level paired comparison (sign-flip test, BCa of the differences), Holm, power.
- ``rank_sets``: simultaneous and marginal confidence sets for ranks (Mogstad et al. 2024).
- ``eligibility``: Ranked only with scored runs on at least ``min_case_coverage`` of the cases.
- ``pass_at_k``: unbiased pass@k and pass^k over repeated runs.
- ``difficulty``: pass rate per difficulty, difficulty-weighted P.
- ``difficulty_trend``: one case-level test that the difficulty labels mean something (Kendall tau-b, separation).
- ``alpha_sensitivity``: Q_final and rank for alpha = 0, 0.1, ..., 1.
- ``agreement``: Krippendorff's alpha, weighted kappa, percent agreement, reviewer deviation.
- ``agreement_bootstrap``: the agreement statistics as functions of unit weights, with BCa intervals.
- ``judge_assisted``: the judge-assisted, human-anchored mean (PPI++ with inverse-probability weights, the case as
  the unit), its case-bootstrap interval, paired differences and the stratified human draw (issue 28; not wired yet).
- ``consolidated_board``: the consolidated grade of every run from the grades that count, and the board on them.
- ``outputs`` / ``agreement_outputs``: the tables and file bytes these produce.

The formulas are stated in ``system/metrics/v1.0/aggregate_metrics.md``, each naming the function production
calls for it; the straightforward one-at-a-time references the tests check against are in ``tests/reference_stats.py``.
Their parameters (``config.yaml``), the consolidation policies and the several-reviewers folder are read in
:mod:`rgbench.load` (``config``, ``consolidate``, ``multi_scoring``).
"""
