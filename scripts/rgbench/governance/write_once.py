"""Write-once publication: a file or a folder appears complete, or not at all, and never replaces anything.

``atomic.py`` replaces files (results are regenerated); this module is for
things that must never be overwritten: a reviewer's new scoring and a dated
snapshot. A folder that cannot be written (read-only, full disk) raises
:class:`rgbench.atomic.OutputError` with the project's message, after removing
what was written; a kill leaves at most a temporary ``.<name>.<random>.tmp``
beside the target, which every reader skips (safe_read.walk_files) and git ignores.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..atomic import output_error, sync_folder, write_temp_beside


def write_new_file(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data``; FileExistsError if it exists, OutputError if it cannot be written
    (nothing is written then).

    The bytes go to a temporary file in the same folder, which is then
    hard-linked to ``path``: linking fails when the name exists, so a file that
    appears meanwhile is not replaced either.
    """
    path = Path(path)
    if os.path.lexists(path):
        raise FileExistsError(str(path))
    try:
        tmp = write_temp_beside(path, data)
    except OSError as exc:
        raise output_error(path, exc) from None
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError as exc:
        raise output_error(path, exc) from None
    finally:
        os.unlink(tmp)
    _sync_quietly(path.parent)


def publish_new_folder(path: Path, files: dict[str, bytes]) -> None:
    """Create folder ``path`` holding ``files`` (name -> bytes); FileExistsError if it exists, OutputError
    if it cannot be written (nothing is left then).

    Everything is written into a hidden temporary folder beside it, then renamed
    into place in one step, so a crash never leaves a partial folder under the
    final name.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise output_error(path.parent, exc) from None
    if os.path.lexists(path):
        raise FileExistsError(str(path))
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    except OSError as exc:
        raise output_error(path, exc) from None
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
        sync_folder(tmp)
        if os.path.lexists(path):
            raise FileExistsError(str(path))
        os.rename(tmp, path)
    except FileExistsError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise output_error(path, exc) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _sync_quietly(path.parent)


def _sync_quietly(folder: Path) -> None:
    """Make the new name durable; once it is in place, a failure here changes nothing the caller can act on."""
    try:
        sync_folder(folder)
    except OSError:
        pass
