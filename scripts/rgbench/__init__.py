"""rgbench: the shared library behind the scripts of a reviewer-graded benchmark.

Data flows one way: safe reading -> strict parsing -> schema validation ->
cross-file loading (records + problems) -> per-run derivation -> aggregate
metrics -> deterministic writers. Each step is one module.
"""
