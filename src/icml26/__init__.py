"""icml26: the methods of ICML 2026 papers as a library, and their headline claims as checks you can run.

>>> import icml26
>>> [p.slug for p in icml26.list_papers()][:1]  # doctest: +SKIP
['hankel']

Importing this package imports neither torch nor any paper; use ``icml26.papers.<slug>`` for a paper's API.
"""

from __future__ import annotations

import logging

from icml26.registry import PaperInfo, get_paper, list_papers

# a library logs, the application decides where it goes (no "last resort" printing to stderr)
logging.getLogger(__name__).addHandler(logging.NullHandler())

__version__ = "0.1.0"

__all__ = ["PaperInfo", "__version__", "get_paper", "list_papers"]
