"""One federation run of the [P09] claims: the digits test bed, one method, one seed -> one row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.papers.mfedpba._federate import Mapper, federate
from icml26.papers.mfedpba._testbed import make_digit_federation

__all__ = ["Federation", "RunTask", "run_federation"]


@dataclass(frozen=True)
class Federation:
    """The test bed and training protocol shared by the [P09] claims (fixed before the runs).

    ``per_client``: train each federation with ``mapper=ctx.map`` (one client per worker, for a Ray cluster)
    instead of one whole federation per worker.
    """

    n_clients: int = 10
    alpha: float = 0.5
    noise: float = 0.1
    train_fraction: float = 0.5
    proj_dim: int = 32
    rounds: int = 20
    local_epochs: int = 2
    batch_size: int = 32
    lr: float = 1e-2
    per_client: bool = False


@dataclass(frozen=True)
class RunTask:
    """One federation of the claims: the protocol, the setting (architectures, unimodal fraction), method, seed."""

    fed: Federation
    heterogeneous: bool
    fraction: float
    method: str
    seed: int


def run_federation(task: RunTask, mapper: Mapper | None = None) -> dict[str, Any]:
    """Build the federation of ``task`` from its seed, train it with its method, return one row (module-level: it
    runs in a ``ctx.map`` worker). The same seed gives every method the same split, modalities and initial models."""
    f = task.fed
    clients = make_digit_federation(n_clients=f.n_clients, alpha=f.alpha, unimodal_fraction=task.fraction,
                                    heterogeneous=task.heterogeneous, noise=f.noise, train_fraction=f.train_fraction,
                                    proj_dim=f.proj_dim, seed=task.seed)
    res = federate(clients, method=task.method, rounds=f.rounds, seed=task.seed, local_epochs=f.local_epochs,
                   batch_size=f.batch_size, lr=f.lr, mapper=mapper)
    curve = np.nanmean(res.accuracy, axis=1)
    return {"setting": "heterogeneous" if task.heterogeneous else "same_architecture", "fraction": task.fraction,
            "method": task.method, "seed": task.seed, "accuracy": res.final_accuracy,
            "unimodal_accuracy": float(np.nanmean([c.accuracy() for c in clients if len(c.modalities) == 1]))
            if any(len(c.modalities) == 1 for c in clients) else float("nan"),
            "curve": [float(v) for v in curve]}
