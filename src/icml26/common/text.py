"""English prose that ships with the interpreter: the docstrings of standard-library modules.

Papers that need real text offline (calibration activations, held-out perplexity, context/query pairs, a corpus to
train a tokenizer on) read it here, so every such text is built the same way and never downloaded.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence

__all__ = ["stdlib_docstrings"]


def stdlib_docstrings(modules: Sequence[str], *, members: bool = True) -> list[str]:
    """The cleaned docstrings (``inspect.getdoc``) of the standard-library ``modules``, in the order given: each
    module's own, then (``members``) those of its public classes and functions in name order. A missing docstring is
    an empty string, so the list has one entry per module and member."""
    if isinstance(modules, str) or not all(isinstance(m, str) for m in modules):
        raise TypeError("modules must be a sequence of module names (str)")
    out: list[str] = []
    for name in modules:
        mod = importlib.import_module(name)
        out.append(inspect.getdoc(mod) or "")
        if members:
            for attr in sorted(vars(mod)):
                obj = getattr(mod, attr)
                if not attr.startswith("_") and (inspect.isclass(obj) or inspect.isfunction(obj)):
                    out.append(inspect.getdoc(obj) or "")
    return out
