"""A ready federation on the two-modality digits ([P09] setting as we rebuild it): Dirichlet label skew, a
modality-imbalance knob and heterogeneous (or identical) client architectures."""

from __future__ import annotations

import numpy as np

from icml26.common.validation import int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.mfedpba._client import Client, mlp_encoder
from icml26.papers.mfedpba._data import assign_modalities, dirichlet_partition, multimodal_digits

__all__ = ["ARCHITECTURES", "SHARED_ARCHITECTURE", "make_digit_federation"]

#: (width, depth, output dim) of the encoders, cycled over clients and modalities in the heterogeneous setting
ARCHITECTURES: tuple[tuple[int, int, int], ...] = (
    (32, 1, 16), (64, 2, 32), (128, 1, 48), (64, 1, 24), (128, 2, 64), (32, 2, 32),
)
#: the encoder every client uses in the same-architecture setting (the only one where FedAvg applies)
SHARED_ARCHITECTURE: tuple[int, int, int] = (64, 1, 32)


def make_digit_federation(*, n_clients: int = 10, alpha: float = 0.5, unimodal_fraction: float = 0.5,
                          heterogeneous: bool = True, noise: float = 0.3, train_fraction: float = 0.5,
                          proj_dim: int = 32, seed: int) -> list[Client]:
    """``n_clients`` [P09] clients on :func:`multimodal_digits`, each with its own train/test split.

    Labels are split with :func:`dirichlet_partition` (``alpha``); a ``unimodal_fraction`` of the clients holds one
    modality (:func:`assign_modalities`); each client's samples are split at random into ``train_fraction`` for
    training and the rest for its held-out test set (so the test set follows the client's own label skew and
    modalities). Encoders cycle through :data:`ARCHITECTURES` (``heterogeneous``) or all use
    :data:`SHARED_ARCHITECTURE`. Everything random is drawn from ``seed``.
    """
    n_clients = int_at_least(n_clients, "n_clients", 2)
    alpha = real(alpha, "alpha", lo=0.0, lo_open=True)
    unimodal_fraction = real(unimodal_fraction, "unimodal_fraction", lo=0.0, hi=1.0)
    noise = real(noise, "noise", lo=0.0)
    if not isinstance(heterogeneous, bool):
        raise TypeError(f"heterogeneous must be a bool, got {type(heterogeneous).__name__}")
    train_fraction = real(train_fraction, "train_fraction", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    proj_dim = positive_int(proj_dim, "proj_dim")
    seed = check_seed(seed)
    seeds = np.random.SeedSequence(seed).spawn(3)
    data = multimodal_digits(noise=noise, seed=int(seeds[0].generate_state(1)[0]))
    parts = dirichlet_partition(data.y, n_clients=n_clients, alpha=alpha, min_size=10,
                                seed=int(seeds[1].generate_state(1)[0]))
    mods = assign_modalities(n_clients, unimodal_fraction=unimodal_fraction)
    g = np.random.default_rng(seeds[2])
    clients = []
    for k, (idx, held) in enumerate(zip(parts, mods)):
        idx = g.permutation(idx)
        n_train = max(1, min(idx.size - 1, int(round(train_fraction * idx.size))))
        tr, te = idx[:n_train], idx[n_train:]
        encoders = {}
        for j, m in enumerate(held):
            width, depth, out = ARCHITECTURES[(k + 3 * j) % len(ARCHITECTURES)] if heterogeneous \
                else SHARED_ARCHITECTURE
            encoders[m] = mlp_encoder(data.x[m].shape[1], width=width, depth=depth, out_dim=out,
                                      seed=int(g.integers(2**31)))
        clients.append(Client(encoders, {m: data.x[m][tr] for m in held}, data.y[tr], n_classes=data.n_classes,
                              proj_dim=proj_dim, seed=int(g.integers(2**31)),
                              x_test={m: data.x[m][te] for m in held}, y_test=data.y[te]))
    return clients
