"""Governance: reviewers' pull requests, CI proofs, snapshots and history (git plumbing read-only).

- ``gitio``: git through subprocess with list arguments, NUL-separated paths.
- ``pr_paths``: the pre-flight of a pull request's paths and the role it needs, from git's objects alone.
- ``changeset``: which problems concern a change (``validate.py --changed``).
- ``annotations``: problems as GitHub Actions annotations.
- ``provenance``: commit by commit and over the range, results follow inputs and history only grows.
- ``snapshot`` / ``history``: dated, append-only snapshots of results/ and a subject across them.
- ``registry_history``: the registry's record of earlier versions against the snapshots.
- ``results_diff``: what a change does to the leaderboard.
- ``scoring_template``: a reviewer's scoring template.
- ``write_once``: publication that never replaces anything.
"""
