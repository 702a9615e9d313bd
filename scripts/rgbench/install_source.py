"""Where the running toolkit came from, as the requirement line that installs it again (``rgbench init``).

A new benchmark repository's requirements.txt must install the toolkit that wrote it, on a fresh machine,
with no option given. The answer is read from the toolkit's installation record (PEP 610: the
``direct_url.json`` an installer writes into the distribution's dist-info, read through importlib.metadata):

- no ``direct_url.json``: installed from a package index           -> ``rgbench==<version>``
- ``archive_info`` (a wheel or an sdist, a local file or a URL)      -> ``rgbench @ <url>#sha256=<hash>``
  (the recorded hash pins the very bytes that were installed)
- ``dir_info`` (a directory)                                       -> ``rgbench @ file:///<dir>``;
  installed editable (``pip install -e``)                          -> ``-e file:///<dir>``
- ``vcs_info`` (e.g. git)                                          -> ``rgbench @ git+<url>@<commit_id>``
- no installed distribution holds the running package: a source checkout run with scripts/ on sys.path
  (``python scripts/init_benchmark.py``)                           -> ``rgbench @ file:///<checkout>``
  when the checkout is a project root (its pyproject.toml names the project rgbench); else the
  version pin, as for an index.

A distribution counts only when it holds the package that is running (its dist-info lies beside the
running ``rgbench/__init__.py``, or it is an editable install of the directory the running package lies
in): an rgbench installed elsewhere on the path while a checkout runs is not the toolkit that runs.
Pure but for reading the installation record and pyproject.toml; never raises on a malformed record
(the version pin, with the reason in :attr:`ToolkitSource.origin`).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

from . import __version__

DIST_NAME = "rgbench"
RECORD = "direct_url.json"


@dataclass(frozen=True)
class ToolkitSource:
    """The requirement line that installs the running toolkit, and where it installs it from.

    ``origin`` is a short phrase for messages ("the package index", "the wheel /x/rgbench-0.1.0-...whl",
    ...); ``path`` is the local file or directory the line names (None for an index or a remote URL): it
    installs on this machine only, so a repository shared with CI needs another line (``--requirement``).
    """

    requirement: str
    origin: str
    path: Path | None = None


def index_pin(version: str = __version__, why: str = "") -> ToolkitSource:
    """``rgbench==<version>``, from the package index (``why``: the reason when it is a fallback)."""
    return ToolkitSource(f"{DIST_NAME}=={version}", "the package index" + (f" ({why})" if why else ""))


def file_url_path(url: str) -> Path | None:
    """The local path of a ``file:`` URL (percent-decoded), else None."""
    parts = urlsplit(url)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    return Path(url2pathname(parts.path))


def _fragment(record: dict, *pieces: str) -> str:
    """The URL fragment: the archive's hash (``pieces``) and the project's ``subdirectory``, if any."""
    subdirectory = record.get("subdirectory")
    found = [p for p in pieces if p]
    if isinstance(subdirectory, str) and subdirectory:
        found.append(f"subdirectory={subdirectory}")
    return "#" + "&".join(found) if found else ""


def _archive_hash(info: dict) -> str:
    """``alg=hex`` of an archive_info: the ``hashes`` mapping (sha256 preferred), else the legacy ``hash``."""
    hashes = info.get("hashes")
    if isinstance(hashes, dict) and hashes:
        alg = "sha256" if "sha256" in hashes else sorted(hashes)[0]
        return f"{alg}={hashes[alg]}" if isinstance(hashes[alg], str) else ""
    legacy = info.get("hash")
    return legacy if isinstance(legacy, str) and "=" in legacy else ""


def source_from_record(record: object, version: str = __version__) -> ToolkitSource:
    """The requirement that reinstalls a distribution whose PEP 610 record is ``record`` (the parsed
    ``direct_url.json``; None when the distribution has none, i.e. it came from a package index)."""
    if record is None:
        return index_pin(version)
    url = record.get("url") if isinstance(record, dict) else None
    if not isinstance(record, dict) or not isinstance(url, str) or not url:
        return index_pin(version, f"its installation record {RECORD} names no url")
    if any(char <= " " or char == "\x7f" for char in url):
        return index_pin(version, f"its installation record {RECORD} has a url with a space or control character")
    local = file_url_path(url)
    if isinstance(record.get("vcs_info"), dict):
        info = record["vcs_info"]
        vcs, commit = info.get("vcs"), info.get("commit_id")
        if not isinstance(vcs, str) or not isinstance(commit, str):
            return index_pin(version, f"its installation record {RECORD} names no vcs or commit_id")
        base = url if url.startswith(f"{vcs}+") else f"{vcs}+{url}"
        return ToolkitSource(f"{DIST_NAME} @ {base}@{commit}{_fragment(record)}", f"{base} at commit {commit}", local)
    if isinstance(record.get("archive_info"), dict):
        kind = "the wheel" if url.endswith(".whl") else "the archive"
        return ToolkitSource(f"{DIST_NAME} @ {url}{_fragment(record, _archive_hash(record['archive_info']))}",
                             f"{kind} {local if local is not None else url}", local)
    if isinstance(record.get("dir_info"), dict):
        where = local if local is not None else url
        if record["dir_info"].get("editable") is True:
            return ToolkitSource(f"-e {url}{_fragment(record)}", f"the editable directory {where}", local)
        return ToolkitSource(f"{DIST_NAME} @ {url}{_fragment(record)}", f"the directory {where}", local)
    return index_pin(version, f"its installation record {RECORD} is of no known kind")


def read_record(dist: metadata.Distribution) -> tuple[object, str]:
    """(the parsed direct_url.json or None when absent, "") or (None, why it is unreadable)."""
    try:
        text = dist.read_text(RECORD)
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"its installation record {RECORD} cannot be read: {exc}"
    if text is None:
        return None, ""
    try:
        return json.loads(text), ""
    except ValueError:
        return None, f"its installation record {RECORD} is not JSON"


def _holds(dist: metadata.Distribution, package_init: Path, record: object) -> bool:
    """Does ``dist`` hold the running package: installed beside it, or an editable install of the
    directory it lies in?"""
    try:
        if Path(str(dist.locate_file(f"{DIST_NAME}/__init__.py"))).resolve() == package_init:
            return True
    except (OSError, NotImplementedError):
        pass
    if isinstance(record, dict) and isinstance(record.get("dir_info"), dict) and record["dir_info"].get("editable"):
        root = file_url_path(str(record.get("url", "")))
        return root is not None and package_init.is_relative_to(root.resolve())
    return False


def checkout_root(package_init: Path) -> Path | None:
    """The source checkout the running package lies in (``<root>/scripts/rgbench/__init__.py``) when
    ``<root>`` is a project root: its pyproject.toml names the project rgbench; else None."""
    root = package_init.parent.parent.parent
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return root if isinstance(project, dict) and project.get("name") == DIST_NAME else None


def toolkit_source(package_init: Path | None = None, path: list[str] | None = None,
                   version: str = __version__) -> ToolkitSource:
    """The requirement that installs the toolkit running now (see the module's docstring).

    ``package_init``: the running ``rgbench/__init__.py`` (default: this package's); ``path``: where
    installed distributions are looked for (default: sys.path)."""
    here = Path(package_init or Path(__file__).with_name("__init__.py")).resolve()
    found = (metadata.distributions(name=DIST_NAME) if path is None
             else metadata.distributions(name=DIST_NAME, path=path))
    for dist in found:
        record, why = read_record(dist)
        if _holds(dist, here, record):
            return index_pin(dist.version or version, why) if why else source_from_record(record, dist.version or version)
    root = checkout_root(here)
    if root is not None:
        return ToolkitSource(f"{DIST_NAME} @ {root.as_uri()}", f"the source checkout {root}", root)
    return index_pin(version)
