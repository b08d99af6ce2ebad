"""Thread limits for claim checks: tiny models and small BLAS calls run fastest on one thread, and a shared machine
with oversubscribed cores slows them 10-40x."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["single_thread"]


@contextlib.contextmanager
def single_thread() -> Iterator[None]:
    """Inside the block: one BLAS/OpenMP thread (threadpoolctl) and, if torch is imported, one torch intra-op thread.

    The previous settings are restored on exit.
    """
    from threadpoolctl import threadpool_limits

    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    try:
        with threadpool_limits(1):
            if torch is not None:
                torch.set_num_threads(1)
            yield
    finally:
        if torch is not None and before is not None:
            torch.set_num_threads(before)
