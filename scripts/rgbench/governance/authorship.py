"""Authorship: what a pull request's author may add, by the BASE branch's registries.

The gate knows a pull request's author only as a code-host login (GitHub's
``github.event.pull_request.user.login``, passed to ``check_pr_paths.py --author``). Two registries say
what that login may answer for:

* ``subjects/registry.yaml``: a subject's ``answered_by`` lists the logins that may add its responses;
* ``subjects/reviewers.yaml``: a reviewer's ``handles`` lists the logins that grade as that reviewer id,
  and ``adjudicator: true`` marks the reviewers who may file adjudications (``adjudication-<id>``).

Both are read as git blobs of the base revision, never from the pull request: a pull request cannot add
its author to a registry and use the entry in the same change (changing a registry entry or the reviewers
is a maintainer's change anyway). A subject that is not on the base's registry has no one to answer for
it: a new subject is a registration, a maintainer's change.

Logins compare ignoring case, as GitHub's do. A login is GitHub's alphabet: ASCII letters, digits and
``-``, not first, at most 39 characters (:data:`LOGIN_PATTERN`, the schemas' ``pattern`` too).

The rules, each a function of one added path (:func:`authorship_problem`):

* a new response ``responses/<version>/<subject>/<file>`` only when the subject is on the base's registry
  and its ``answered_by`` names the author;
* a new scoring ``scoring/<version>/<subject>/<case>__<run>__eval-<id>.json`` (and in ``scoring_multi/``,
  also ``adjudication-<id>``) only when reviewer ``<id>`` is on the base's reviewers and its ``handles``
  name the author; an adjudication only when that reviewer is also an adjudicator. The JSON's own
  ``reviewer_id`` must equal the file name's (the loader's rule, checked by ``validate.py`` next).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..load.loader import scoring_name
from ..load.multi_scoring import ADJUDICATION
from ..load.parsing import ParseError, decode_utf8, loads_yaml_strict
from ..load.registry import REGISTRY_FILE
from ..load.reviewers import REVIEWERS_FILE

LOGIN_PATTERN = "^[A-Za-z0-9][A-Za-z0-9-]{0,38}$"
_LOGIN = re.compile(LOGIN_PATTERN)
SCORING_PREFIXES = {"scoring": ("eval-",), "scoring_multi": ("eval-", ADJUDICATION)}


def is_login(text: str) -> bool:
    """True for a code-host login in GitHub's alphabet (see :data:`LOGIN_PATTERN`)."""
    return _LOGIN.fullmatch(text) is not None


def login_key(login: str) -> str:
    """What makes two logins the same: case ignored (GitHub's logins are ASCII)."""
    return login.lower()


@dataclass(frozen=True)
class Authority:
    """Who may add what, from the base's registries: logins as written, by subject id (``answered_by``) and by
    reviewer id (``handles``), and the reviewer ids marked ``adjudicator: true``."""

    answered_by: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    handles: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    adjudicators: frozenset[str] = frozenset()


def _items(data: bytes | None, key: str) -> list[dict[str, Any]]:
    if data is None:
        return []
    try:
        document = loads_yaml_strict(decode_utf8(data))
    except ParseError:
        return []
    items = document.get(key) if isinstance(document, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _logins(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str) and is_login(v)) if isinstance(value, list) else ()


def authority_from_blobs(registry: bytes | None, reviewers: bytes | None) -> Authority:
    """The :class:`Authority` that the base's ``subjects/registry.yaml`` and ``subjects/reviewers.yaml``
    bytes grant (None: the file is absent there). The base's files passed their own gate; what does not
    parse, or an entry without the fields, grants nothing (so needs a maintainer), never more."""
    answered_by: dict[str, tuple[str, ...]] = {}
    for item in _items(registry, "subjects"):
        sid = item.get("subject_id")
        if isinstance(sid, str):
            answered_by.setdefault(sid, _logins(item.get("answered_by")))
    handles: dict[str, tuple[str, ...]] = {}
    adjudicators = set()
    for item in _items(reviewers, "reviewers"):
        rid = item.get("id")
        if isinstance(rid, str) and rid not in handles:
            handles[rid] = _logins(item.get("handles"))
            if item.get("adjudicator") is True:
                adjudicators.add(rid)
    return Authority(answered_by, handles, frozenset(adjudicators))


def scoring_reviewer(path: str) -> tuple[str, str] | None:
    """(prefix, reviewer id) that a scoring's file name declares, e.g. ``("eval-", "rev-a")``; None when the
    name is not ``<case_id>__<run_id>__<prefix><reviewer_id>.json`` with a prefix its folder takes."""
    parts = path.split("/")
    prefixes = SCORING_PREFIXES.get(parts[0])
    named = scoring_name(parts[3], prefixes) if prefixes is not None and len(parts) == 4 else None
    return None if named is None else (named[2], named[3])


def _named(logins: tuple[str, ...], author: str) -> bool:
    return login_key(author) in {login_key(login) for login in logins}


def _listing(logins: tuple[str, ...]) -> str:
    return ", ".join(logins) if logins else "nobody"


def registration_message(subject_ids: set[str], author: str) -> str:
    """Why a registry addition needs a maintainer once the author is known."""
    what = f"registers {', '.join(sorted(subject_ids))}" if subject_ids else "adds registry entries"
    return f"{what}: {_registration(author)}"


def _registration(author: str) -> str:
    return (f"a new subject is a registration, a maintainer's change (ask a maintainer to register it with "
            f"answered_by naming {author!r}; then add its responses)")


def authorship_problem(path: str, author: str, authority: Authority) -> str | None:
    """Why ``author`` may not add the file ``path`` (an added response or scoring), naming the rule and the
    fix; None when the base's registries let the author add it, or when ``path`` is neither."""
    parts = path.split("/")
    if parts[0] == "responses" and len(parts) == 4:
        sid = parts[2]
        if sid not in authority.answered_by:
            return f"a new response of {sid!r}, a subject not in {REGISTRY_FILE} at the base: {_registration(author)}"
        logins = authority.answered_by[sid]
        if _named(logins, author):
            return None
        return (f"a new response of {sid!r}, whose answered_by in {REGISTRY_FILE} at the base does not name "
                f"{author!r} (it names {_listing(logins)}): a pull request adds responses only of subjects whose "
                "answered_by names its author (ask a maintainer to add your login there, or to make this change)")
    if parts[0] not in SCORING_PREFIXES or len(parts) < 4:
        return None
    found = scoring_reviewer(path)
    if found is None:
        names = " or ".join(f"<case_id>__<run_id>__{p}<reviewer_id>.json" for p in SCORING_PREFIXES[parts[0]])
        return (f"a scoring not named {names}: its reviewer id cannot be told, so it cannot be tied to "
                f"{author!r} (rename it)")
    prefix, rid = found
    what = "an adjudication" if prefix == ADJUDICATION else "a new scoring"
    if rid not in authority.handles:
        return (f"{what} under reviewer id {rid!r}, not registered in {REVIEWERS_FILE} at the base: a pull request "
                "adds scorings only under reviewer ids whose handles name its author (ask a maintainer to register "
                f"you, with {author!r} in handles)")
    logins = authority.handles[rid]
    if not _named(logins, author):
        return (f"{what} under reviewer id {rid!r}, whose handles in {REVIEWERS_FILE} at the base do not name "
                f"{author!r} (they name {_listing(logins)}): a pull request adds scorings only under reviewer ids "
                "whose handles name its author (grade under your own reviewer id, or ask a maintainer)")
    if prefix == ADJUDICATION and rid not in authority.adjudicators:
        return (f"an adjudication under reviewer id {rid!r}, who is not an adjudicator (adjudicator: true) in "
                f"{REVIEWERS_FILE} at the base: only an adjudicator adds adjudications (file a second grade, "
                f"<case_id>__<run_id>__eval-{rid}.json, or ask a maintainer)")
    return None
