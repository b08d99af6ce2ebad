"""Seeding. Library code never touches global RNGs; only the runner calls :func:`seed_everything`."""

from __future__ import annotations

import random
import sys
from typing import Any

import numpy as np

__all__ = ["seed_everything", "rng", "spawn_seeds", "torch_generator"]


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's legacy and (if already imported) torch's global RNGs. Runner use only."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)


def rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A numpy ``Generator`` from an int seed, ``None`` (fresh entropy) or an existing generator (returned as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool)):
        raise TypeError(f"seed must be an int, a numpy Generator or None, got {type(seed).__name__}")
    if seed is not None and seed < 0:
        raise ValueError(f"seed must be >= 0 (numpy seeds are non-negative), got {seed}")
    return np.random.default_rng(seed)


def spawn_seeds(seed: int, n: int) -> list[int]:
    """``n`` independent 32-bit seeds derived from ``seed`` via ``SeedSequence.spawn`` (for sub-streams)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(n)]


def torch_generator(seed: int) -> Any:  # a torch.Generator (torch imported lazily, so not named in the hint)
    """A CPU ``torch.Generator`` seeded with ``seed``."""
    import torch

    return torch.Generator().manual_seed(int(seed))
