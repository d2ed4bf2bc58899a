"""Crash-safe result files: single files written atomically, sets of files published as one transaction,
and bounded reads of regular files only.

Single files
------------
Every result the package writes goes through :func:`atomic_write_bytes`: the
data is written to a temporary file in the destination folder, flushed and
``fsync``-ed, then moved over the destination with :func:`os.replace`, which is
atomic on POSIX and Windows. A crash therefore leaves either the old file or
the new one, never a truncated file. Any ``OSError`` names the destination.

Sets of files
-------------
A result set whose files must agree with each other (an experiment's
``summary.csv``, figures and ``headline.json``; ``report.md`` with
``report.html``) is published with :func:`publishing`: the files are written
into a fresh hidden staging folder, then a manifest (``published.json``) naming
the set's generation and each file's SHA-256 is written atomically — the commit
point — and only then are the staged files renamed into place. A kill before
the commit leaves the old set as it was (the abandoned staging folder is
removed by the next publication); a kill after it leaves a committed set whose
renames the next reader or writer completes (:func:`read_publication`). A
reader therefore sees the old set or the new one, never a mix, and a file
changed after its publication is detected by its hash. Publications of one
folder are serialized by a file lock.

Reads
-----
:func:`read_regular` reads only regular files (a FIFO, a device or a folder is
refused at once instead of blocking or reading without end) of at most a given
size; :func:`read_json` reads JSON through it and refuses ``NaN`` and
``Infinity``, which are not JSON and never a valid result.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import shutil
import stat
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from filelock import FileLock, Timeout

from lejepa_wm.schema import read

__all__ = [
    "PUBLISHED_FILE", "atomic_write_bytes", "atomic_write_text", "atomic_write_json", "atomic_torch_save",
    "NotRegularFile", "read_regular", "read_json", "read_named_json", "PublicationError", "Publication", "Stage",
    "read_publication", "publishing"
]

_JSON_LIMIT = 64 * 2**20
"""The largest JSON result file read (bytes)."""
PUBLISHED_FILE = "published.json"
_LOCK_FILE = ".publish.lock"
_LOCK_TIMEOUT_S = 300.0


@contextlib.contextmanager
def _naming(path: str | os.PathLike[str]) -> Iterator[None]:
    """Raise an ``OSError`` that has no file name of its own (a full disk, a quota) again, naming ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; create parent folders; return the path.

    An ``OSError`` without a file name of its own (a full disk, a quota) is raised again naming ``path``.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # a fresh name, created exclusively with the usual permissions (0666 less the umask: results are shared files)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    with _naming(target):
        try:
            with open(tmp, "xb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
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


_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}
"""What a file that is not a regular file is, in words, by its type (:func:`stat.S_IFMT`)."""


class NotRegularFile(ValueError):
    """A file to be read is a folder, a FIFO, a device or a socket, or is larger than allowed."""


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    :class:`NotRegularFile` (a ``ValueError``) names ``path`` when it is a
    folder, a FIFO, a device or a socket (opened without blocking, so a FIFO
    never hangs the reader) or holds more than ``limit`` bytes; ``FileNotFoundError`` when it does not exist;
    any other ``OSError`` names it too.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    with _naming(path):
        fd = os.open(path, flags)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
                raise NotRegularFile(f"{path} is {kind}, not a regular file")
            if info.st_size > limit:
                raise NotRegularFile(f"{path} holds {info.st_size} bytes, more than the {limit} allowed")
            with open(fd, "rb", closefd=False) as handle:
                data = handle.read(limit + 1)
        finally:
            os.close(fd)
    if len(data) > limit:
        raise NotRegularFile(f"{path} holds more than the {limit} bytes allowed")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value (results must be finite numbers or null)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a float (results must be finite numbers or null)")
    return value


def read_json(path: str | os.PathLike[str], limit: int = _JSON_LIMIT) -> Any:
    """Read a JSON file written by :func:`atomic_write_json` (a regular file of at most ``limit`` bytes).

    ``ValueError`` names ``path`` for a file that is not UTF-8 JSON or holds ``NaN``, ``Infinity`` or a
    number too large for a float.
    """
    data = read_regular(path, limit)
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite_float)
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, a constant
        raise ValueError(f"{path}: {exc}") from None


def read_named_json(path: Path, label: str) -> Any:
    """The JSON data of ``path`` (:func:`read_json`); one ``ValueError`` naming the file as ``label`` if it cannot
    be read or parsed."""
    try:
        return read_json(path)
    except (NotRegularFile, OSError) as exc:  # NotRegularFile: a folder, FIFO or device, which has no strerror
        raise ValueError(f"{label} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{label} is not valid JSON: {exc}") from None


# --- result sets --------------------------------------------------------------------------------------------


class PublicationError(ValueError):
    """A published result set that cannot be read as one: its manifest is damaged, or a file differs from it."""


@dataclass(frozen=True)
class Publication:
    """A committed result set, as its manifest records it: the generation, each file's SHA-256 and the labels it
    was published with (the manifest also records when, ``published_at``)."""

    generation: str
    files: dict[str, str]
    labels: dict[str, Any] = field(default_factory=dict)


@dataclass
class Stage:
    """The staging folder of a publication in progress (``path``); ``published`` is filled once it is committed."""

    path: Path
    published: tuple[Path, ...] = ()


def _digest(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _stage_dir(folder: Path, manifest: str, generation: str) -> Path:
    """The staging folder of a generation (``*``: the pattern of them all)."""
    return folder / f".{manifest}.{generation}.stage"


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the folder's publication lock (``OSError`` naming it if it cannot be had in time)."""
    try:
        with FileLock(str(folder / _LOCK_FILE), timeout=_LOCK_TIMEOUT_S):
            yield
    except Timeout:
        raise OSError(f"{folder / _LOCK_FILE} is held by another process for more than {_LOCK_TIMEOUT_S:.0f} s "
                      "(a publication still running elsewhere?)") from None


def _read_manifest(folder: Path, manifest: str) -> Publication | None:
    """The folder's committed manifest (``None`` if there is none); ``PublicationError`` if it is damaged."""
    path = folder / manifest
    try:
        publication = read(Publication, read_json(path), str(path))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise PublicationError(f"{path} is damaged ({exc})") from None
    bad = [name for name in publication.files if not name or name != Path(name).name or name.startswith(".")]
    if bad:
        raise PublicationError(f"{path} names {bad[0]!r}, which is not a plain file name in its folder")
    return publication


def _finish(folder: Path, manifest: str, publication: Publication | None) -> None:
    """Complete a committed publication (if any): move its staged files into place, then remove abandoned stages.

    Called with the folder's lock held. Idempotent: a file already in place is left alone.
    """
    stage = None if publication is None else _stage_dir(folder, manifest, publication.generation)
    if stage is not None and stage.is_dir():
        for name in publication.files:
            staged = stage / name
            if staged.is_file():
                os.replace(staged, folder / name)
        with contextlib.suppress(OSError):  # make the renames durable (where folders can be opened)
            fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    for leftover in folder.glob(_stage_dir(folder, manifest, "*").name):
        shutil.rmtree(leftover, ignore_errors=True)


def _mismatch(folder: Path, publication: Publication) -> str | None:
    """The first file of the set in ``folder`` that is missing or differs from its manifest entry, in words;
    ``None`` if none."""
    for name, digest in sorted(publication.files.items()):
        path = folder / name
        try:
            if not stat.S_ISREG(path.stat().st_mode):
                return f"{name} is not a regular file"
            if _digest(path) != digest:
                return f"{name} differs from the one published"
        except FileNotFoundError:
            return f"{name} is missing"
    return None


def read_publication(folder: str | os.PathLike[str], manifest: str = PUBLISHED_FILE) -> Publication | None:
    """The set published in ``folder`` (``None`` if it has no ``manifest``), checked file by file.

    A committed publication whose renames were interrupted is completed first
    (under the folder's lock). ``PublicationError`` names the manifest and the
    first file that is missing or differs from it (changed after publication).
    """
    folder = Path(folder)
    publication = _read_manifest(folder, manifest)
    if publication is None or (_mismatch(folder, publication) is None
                               and not _stage_dir(folder, manifest, publication.generation).exists()):
        return publication
    with _locked(folder):
        publication = _read_manifest(folder, manifest)
        if publication is None:
            return None
        _finish(folder, manifest, publication)
        problem = _mismatch(folder, publication)
    if problem is not None:
        raise PublicationError(f"{folder / manifest} (generation {publication.generation}): {problem}; the set was "
                               "changed after it was published: publish it again")
    return publication


@contextlib.contextmanager
def publishing(folder: str | os.PathLike[str], labels: Mapping[str, Any] | None = None,
               manifest: str = PUBLISHED_FILE) -> Iterator[Stage]:
    """Publish the files written into the yielded stage's ``path`` into ``folder`` as one set.

    The block writes every file of the set into ``stage.path`` (an empty hidden
    folder inside ``folder``); when it ends normally the set is committed
    (``manifest``, with ``labels``) and moved into place, files of the previous
    set that the new one lacks are removed, and ``stage.published`` lists the
    new files. If the block raises, nothing is published and the previous set
    stays as it was. Only plain files directly in the stage are published.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        try:
            previous = _read_manifest(folder, manifest)
        except PublicationError:
            previous = None
        _finish(folder, manifest, previous)
        generation = uuid.uuid4().hex
        stage = Stage(_stage_dir(folder, manifest, generation))
        stage.path.mkdir()
        try:
            yield stage
            names = sorted(p.name for p in stage.path.iterdir() if p.is_file() and not p.name.startswith("."))
            publication = Publication(generation, {name: _digest(stage.path / name) for name in names},
                                      dict(labels or {}))
            atomic_write_json(folder / manifest, {**asdict(publication), "published_at": time.time()})
        except BaseException:
            shutil.rmtree(stage.path, ignore_errors=True)
            raise
        _finish(folder, manifest, publication)
        for name in sorted(set(previous.files if previous else ()) - set(publication.files)):
            (folder / name).unlink(missing_ok=True)
    stage.published = tuple(folder / name for name in sorted(publication.files))
