"""A checked cache folder: built once, verified on every use, rebuilt when damaged or stale.

Papers cache what is expensive to rebuild (a converted pretrained model, a trained checkpoint, generations) under the
cache folder: ``cache_dir`` when given, else ``$ICML26_CACHE_DIR`` (``icml26 reproduce`` sets it inside its ``--out``
folder; ``0``/``off`` means none). :func:`materialise` keys a folder by everything that determines its content (the
config, the seed, the source's version) and checks every file's size and sha256 before it is used.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["CACHE_ENV", "MANIFEST", "cache_root", "cached_value", "file_digest", "key_digest", "materialise"]

log = logging.getLogger(__name__)

CACHE_ENV = "ICML26_CACHE_DIR"
MANIFEST = "icml26-manifest.json"
_ORPHAN_AGE_S = 24 * 3600  # a build folder of unknown owner this old is left over (no build of ours runs a day)


def file_digest(path: Path) -> str:
    """sha256 of a file, read in 4 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
    return h.hexdigest()


def _as_json(key: Mapping[str, Any]) -> Any:
    """``key`` as its manifest stores it (tuples become lists), so that a stored key compares equal to its source."""
    return json.loads(json.dumps(dict(key)))


def _verified(folder: Path, key: Mapping[str, Any]) -> bool:
    """Whether ``folder`` holds a manifest for ``key`` whose every file is there with its size and sha256."""
    try:
        man = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = man["files"]
        if man.get("key") != _as_json(key) or not files:
            return False
        return all((folder / f).stat().st_size == v["size"] and file_digest(folder / f) == v["sha256"]
                   for f, v in files.items())
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _host() -> str:
    return "".join(c if c.isalnum() else "_" for c in socket.gethostname()) or "host"


def _build_prefix(folder: Path) -> str:
    """The name prefix of this process's build folders beside ``folder``: ``.<name>-<host>-<pid>-``."""
    return f".{folder.name}-{_host()}-{os.getpid()}-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists but is not ours to signal
        return True
    return True


def _sweep_orphans(folder: Path) -> None:
    """Remove build folders of ``folder`` left by killed builders: those of this host whose process is gone, and any
    of unknown owner older than a day. A build in progress (a live process, here or elsewhere) is never touched."""
    host = _host()
    for sib in folder.parent.glob(f".{folder.name}-*"):
        rest = sib.name[len(folder.name) + 2:].split("-")
        try:
            if len(rest) == 3 and rest[1].isdigit():
                if rest[0] != host or _alive(int(rest[1])):
                    continue
            elif len(rest) != 1 or time.time() - sib.stat().st_mtime < _ORPHAN_AGE_S:
                continue  # another folder's build (a longer name), or one of unknown owner that may still run
        except OSError:
            continue
        log.info("removing %s, left by a build that did not finish", sib)
        shutil.rmtree(sib, ignore_errors=True)


def materialise(folder: str | os.PathLike[str], *, key: Mapping[str, Any], build: Callable[[Path], None]) -> Path:
    """``folder`` built once by ``build(tmp)`` and checked on every call (``key``: what determines its content).

    A manifest (``key`` and the size and sha256 of every file ``build`` wrote) is written last. A folder whose
    manifest is missing, whose ``key`` differs (stale) or whose files do not match it (damaged) is rebuilt: into a
    fresh folder beside it, renamed into place, so that an interrupted build never leaves a half cache; the build
    folders of killed builders are swept before a build.
    """
    folder = Path(folder)
    if _verified(folder, key):
        return folder
    log.info("building %s (missing, stale or damaged)", folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    _sweep_orphans(folder)
    tmp = Path(tempfile.mkdtemp(prefix=_build_prefix(folder), dir=folder.parent))
    try:
        build(tmp)
        files = {p.relative_to(tmp).as_posix(): {"size": p.stat().st_size, "sha256": file_digest(p)}
                 for p in sorted(tmp.rglob("*")) if p.is_file()}
        (tmp / MANIFEST).write_text(json.dumps({"key": _as_json(key), "files": files}, indent=1), encoding="utf-8")
        tmp.chmod(0o755)  # mkdtemp's 0700 would hide the cache from the other users of a shared folder
        if folder.exists():
            shutil.rmtree(folder)
        try:
            tmp.rename(folder)
        except OSError:  # another process put its build in place meanwhile: keep it if it checks out
            if not _verified(folder, key):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """The cache folder: ``cache_dir``, else ``$ICML26_CACHE_DIR``, else ``None`` (no caching)."""
    if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
        raise TypeError(f"cache_dir must be a path or None, got {type(cache_dir).__name__}")
    raw = os.fspath(cache_dir) if cache_dir is not None else os.environ.get(CACHE_ENV, "")
    if cache_dir is None and raw.lower() in ("0", "off", "false"):  # as for the other caches of the package
        raw = ""
    return Path(raw).expanduser().resolve() if raw else None


def key_digest(key: Mapping[str, Any]) -> str:
    """A short stable digest of a cache key (JSON with sorted keys; other objects by ``str``)."""
    return hashlib.sha256(json.dumps(dict(key), sort_keys=True, default=str).encode()).hexdigest()[:16]


def cached_value(area: str, key: Mapping[str, Any], name: str, compute: Callable[[], Any]) -> Any:
    """``compute()``, stored once as the file ``name`` in a :func:`materialise` folder ``<cache>/<area>/<what>-<digest>``
    and read back from it afterwards (``key["what"]`` names the kind of value). ``name`` ending in ``.pt`` stores with
    ``torch.save`` and loads with ``weights_only=True``; any other name stores JSON. Without a cache folder (no
    ``$ICML26_CACHE_DIR``), ``compute()`` runs every time and nothing is written."""
    root = cache_root(None)
    if root is None:
        return compute()
    torch_file = name.endswith(".pt")

    def build(folder: Path) -> None:
        value = compute()
        if torch_file:
            import torch

            torch.save(value, folder / name)
        else:
            (folder / name).write_text(json.dumps(value), encoding="utf-8")

    folder = materialise(root / area / f"{key.get('what', 'value')}-{key_digest(key)}", key=key, build=build)
    if torch_file:
        import io

        import torch

        return torch.load(io.BytesIO((folder / name).read_bytes()), weights_only=True)
    return json.loads((folder / name).read_text(encoding="utf-8"))
