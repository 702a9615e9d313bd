"""Write-once publication: a file or a folder appears complete, or not at all, and never replaces anything.

``atomic.py`` replaces files (results are regenerated); this module is for
things that must never be overwritten: a reviewer's new scoring template and a
dated snapshot.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..atomic import write_temp_beside


def write_new_file(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data``; FileExistsError if it exists (nothing is written then).

    The bytes go to a temporary file in the same folder, which is then
    hard-linked to ``path``: linking fails when the name exists, so a file that
    appears meanwhile is not replaced either.
    """
    path = Path(path)
    if os.path.lexists(path):
        raise FileExistsError(str(path))
    tmp = write_temp_beside(path, data)
    try:
        os.link(tmp, path)
    finally:
        os.unlink(tmp)


def publish_new_folder(path: Path, files: dict[str, bytes]) -> None:
    """Create folder ``path`` holding ``files`` (name -> bytes); FileExistsError if it exists.

    Everything is written into a hidden temporary folder beside it, then renamed
    into place in one step, so a crash never leaves a partial folder under the
    final name.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(path):
        raise FileExistsError(str(path))
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        for name in sorted(files):
            target = tmp / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(files[name])
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(target, 0o644)
        os.chmod(tmp, 0o755)
        if os.path.lexists(path):
            raise FileExistsError(str(path))
        os.rename(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
