"""Text that ships with Python: the docstrings of standard-library modules, read from the installed sources (never
imported, never downloaded). [P27] collects its retain statistics on Wikipedia; here the retain corpus and the
held-out perplexity text are docstrings of two disjoint sets of stdlib modules."""

from __future__ import annotations

import ast
import hashlib
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["HELDOUT_MODULES", "RETAIN_MODULES", "corpus_digest", "docstrings", "passages"]

#: modules whose docstrings make the retain corpus (files present in every CPython >= 3.11)
RETAIN_MODULES = ("argparse.py", "dataclasses.py", "functools.py", "inspect.py", "shutil.py", "subprocess.py",
                  "textwrap.py", "typing.py", "csv.py", "tarfile.py", "logging/__init__.py", "collections/__init__.py",
                  "json/__init__.py", "unittest/case.py", "threading.py", "socket.py")
#: modules whose docstrings make the held-out text for perplexity
HELDOUT_MODULES = ("statistics.py", "fractions.py", "heapq.py", "calendar.py", "random.py", "difflib.py",
                   "pprint.py", "string.py", "bisect.py", "codecs.py", "locale.py", "gettext.py")


def _stdlib() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def docstrings(modules: Sequence[str]) -> list[str]:
    """[P27] retain / held-out text: the docstrings of at least 8 words (module, classes, functions; breadth-first) of the given stdlib files,
    cleaned of indentation, each once; a file this Python lacks is skipped."""
    out = []
    for rel in modules:
        path = _stdlib() / rel
        if not path.is_file():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=True)
                if doc and len(doc.split()) >= 8:  # prose, not a one-word stub
                    out.append(doc)
    return list(dict.fromkeys(out))


def passages(tokenizer: Any, texts: Sequence[str], *, length: int, count: int) -> list[list[int]]:
    """[P27] passages: up to ``count`` consecutive windows of ``length`` tokens over the texts joined by blank lines."""
    ids: list[int] = []
    for t in texts:
        ids.extend(tokenizer("\n\n" + t if ids else t, add_special_tokens=False)["input_ids"])
        if len(ids) >= length * count:
            break
    return [ids[i:i + length] for i in range(0, min(len(ids), length * count) - length + 1, length)]


def corpus_digest(texts: Sequence[str]) -> str:
    """sha256 of the texts (a cache key: another Python's stdlib gives another corpus)."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()
