"""Load: files on disk -> validated records and problems.

- ``safe_read``: regular files only, no symbolic links on the way, strict reading.
- ``parsing``: strict JSON and YAML (duplicate keys, NaN, overflow refused), canonical JSON.
- ``gold_markdown``: a gold file's data block, its last ```json block (CommonMark).
- ``spec``: ``system/`` read and checked: ids, families, rubric, thresholds, alpha, schemas.
- ``validation``: the one JSON Schema engine (jsonschema-rs) and its messages; the schemas of ``benchmark.yaml``
  and ``config.yaml`` (``load/schemas/``) with a message for each key.
- ``system_check``: ``system/`` as a whole: the schemas agree with ``benchmark.yaml`` (pure checks).
- ``extract``: per file, independent of every other: parse, validate, keep the fields that matter; every
  file of a tree, one after the other.
- ``parallel``: the cores this process may use (the statistics' and charts' pools).
- ``registry``: ``subjects/registry.yaml``, the one reader.
- ``reviewers``: ``subjects/reviewers.yaml``: who may grade, a person or an LLM judge.
- ``loader``: the tree's file layout (``gold_rel``, ``response_rel``, ``scoring_rel``) and the cross-file
  checks (ids vs paths, golds, versions, catalog, response digests, one scoring per run) -> a
  :class:`records.Tree` or every problem.
- ``records``: the typed records of validated inputs.
- ``scale``: the score scale of ``benchmark.yaml`` (range, sum or mean, direction) and exact score text.
- ``config``: the statistics parameters of ``config.yaml`` (confidence level, resamples, weights, seed,
  min_case_coverage, consolidation policy), read exactly, with their defaults.
- ``consolidate``: one scoring per run from several, by a declared policy (median-v1, mean-v1) or an adjudicator.
- ``multi_scoring``: the several-reviewers folder (``scoring_multi/``), read with the loader's listing and checks.
"""
