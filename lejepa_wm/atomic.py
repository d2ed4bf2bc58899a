"""Crash-safe result files.

Every result the package writes goes through :func:`atomic_write_bytes`: the
data is written to a temporary file in the destination folder, flushed and
``fsync``-ed, then moved over the destination with :func:`os.replace`, which is
atomic on POSIX and Windows. A crash therefore leaves either the old file or
the new one, never a truncated file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def _current_umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; create parent folders; return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_current_umask())  # mkstemp creates 0600; results are shared files
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike[str], obj: Any) -> Path:
    """Write ``obj`` as indented JSON atomically (NaN/inf are rejected: results must be finite or null)."""
    return atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, allow_nan=False) + "\n")


def atomic_torch_save(path: str | os.PathLike[str], obj: Any) -> Path:
    """``torch.save`` ``obj`` to ``path`` atomically (for checkpoints)."""
    import io

    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return atomic_write_bytes(path, buffer.getvalue())


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read a JSON file written by :func:`atomic_write_json`."""
    return json.loads(Path(path).read_text(encoding="utf-8"))
