"""A reviewer's scoring template: ids, version and the pins (response and gold sha256) filled in, grades left
for the reviewer.

The grades are placeholders that the evaluation schema refuses (``null``
criterion scores and correctness), so an unfilled template fails
``make validate`` and CI and cannot be merged by mistake. Pure functions:
the script checks the tree and writes the file once.
"""

from __future__ import annotations

from typing import Any

from ..load.spec import Spec, schema_errors

# The fields a reviewer fills in; a schema error there is expected in a fresh template.
PLACEHOLDER_PATHS = ("$.criterion_scores.", "$.correctness")


def template(spec: Spec, *, subject_id: str, subject_version: str, case_id: str, run_id: str,
             reviewer_id: str, response_sha256: str, gold_sha256: str) -> dict[str, Any]:
    """The template document: every criterion of ``system/benchmark.yaml`` listed with a null score (and a null
    correctness, when the evaluation schema records correctness: otherwise no such key), and the pins: the
    sha256 of the response graded and of the gold it is graded against."""
    return {
        "automatic_fails_triggered": [],
        "case_id": case_id,
        "comments": "",
        **({"correctness": None} if spec.has_correctness else {}),
        "criterion_scores": {name: None for name in spec.criteria},
        "gold_sha256": gold_sha256,
        "response_sha256": response_sha256,
        "reviewer_id": reviewer_id,
        "run_id": run_id,
        "schema_version": spec.schema_version,
        "subject_id": subject_id,
        "subject_version": subject_version,
    }


def id_errors(spec: Spec, document: dict[str, Any]) -> list[str]:
    """Schema errors of a template other than its placeholders: a bad id or version shows here."""
    return [error for error in schema_errors(spec.validators["evaluation"], document)
            if not error.startswith(PLACEHOLDER_PATHS)]
