"""The federation loop of [P09]: local updates (one module-level function per client, so a mapper may run each
client in its own worker), then the server's aggregation, for MFedPBA, its ablations and the baselines.

One round (our reconstruction of the paper's algorithm from its abstract):
  1. every client k trains ``local_epochs`` epochs on
     ℓ_k = CE(fused logits, y) + λ_con · InfoNCE(z, g; τ) + β · GW(D_k^batch, D_g) + λ_kd · T² KL(softmax(L^y/T) ‖ softmax(logits/T))
     (the three alignment terms only once a global knowledge exists, i.e. from the second round on);
  2. it uploads its feature prototypes, logit prototypes and class counts;
  3. the server aggregates them (count-weighted feature prototypes, entropy-weighted logit prototypes).
D_k^batch are the distances between the batch's class means of the shared-space features, D_g those between the
global prototypes of the same classes. The baselines change only the local objective (``local``: CE only;
``fedproto``: CE + λ‖z − g_y‖²; ``logit_avg``: CE + distillation towards uniformly averaged logit prototypes) or
average parameters (``fedavg``: same-architecture clients only).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch
from torch import Tensor
from torch.nn import functional as F

from icml26.common.validation import choice, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.mfedpba._client import Client
from icml26.papers.mfedpba._losses import distill_unchecked, gw_unchecked, infonce_unchecked
from icml26.papers.mfedpba._server import WEIGHTINGS, GlobalKnowledge, Server

__all__ = ["METHODS", "Alignment", "ClientReport", "ClientTask", "FederationResult", "client_update", "federate"]

Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


@dataclass(frozen=True)
class Alignment:
    """The local objective and aggregation of one method of [P09] (module docstring; weights of our choosing).

    Attributes:
        contrastive: λ_con, prototype InfoNCE (feature level).
        gw: β, Gromov-Wasserstein between class geometries (feature level).
        distill: λ_kd, distillation towards the global logit prototypes (decision level).
        proto_mse: λ of FedProto's ‖z − g_y‖² (0 for MFedPBA).
        weighting: logit-prototype weighting at the server (``entropy``, ``uniform``, ``count``).
        average_params: FedAvg (parameters averaged per name over the clients holding them).
        tau: τ of the InfoNCE. kd_temperature: T of the distillation. entropy_temperature: T_w of the weights.
    """

    contrastive: float = 1.0
    gw: float = 1.0
    distill: float = 1.0
    proto_mse: float = 0.0
    weighting: str = "entropy"
    average_params: bool = False
    tau: float = 0.1
    kd_temperature: float = 2.0
    entropy_temperature: float = 1.0

    def __post_init__(self) -> None:
        for name in ("contrastive", "gw", "distill", "proto_mse"):
            real(getattr(self, name), name, lo=0.0)
        for name in ("tau", "kd_temperature", "entropy_temperature"):
            real(getattr(self, name), name, lo=0.0, lo_open=True)
        choice(self.weighting, "weighting", WEIGHTINGS)
        if not isinstance(self.average_params, bool):
            raise TypeError(f"average_params must be a bool, got {type(self.average_params).__name__}")


_NONE = Alignment(contrastive=0.0, gw=0.0, distill=0.0)
#: method name -> its local objective and aggregation
METHODS: dict[str, Alignment] = {
    "mfedpba": Alignment(),
    "mfedpba_no_gw": Alignment(gw=0.0),
    "mfedpba_uniform": Alignment(weighting="uniform"),
    "local": _NONE,
    "fedproto": replace(_NONE, proto_mse=1.0),
    "logit_avg": replace(_NONE, distill=1.0, weighting="uniform"),
    "fedavg": replace(_NONE, average_params=True),
}


@dataclass(frozen=True)
class ClientTask:
    """One client's work in one round of [P09] (what a mapper ships to a worker)."""

    client: Client
    knowledge: GlobalKnowledge | None
    alignment: Alignment
    epochs: int
    batch_size: int
    lr: float
    seed: int


@dataclass(frozen=True)
class ClientReport:
    """What a client sends back after a round of [P09]: its new weights and its uploads."""

    state: dict[str, Tensor]
    protos: np.ndarray
    logit_protos: np.ndarray
    counts: np.ndarray
    loss: float


def _gw_term(feat: Tensor, yb: Tensor, g: Tensor, present: Tensor) -> Tensor | None:
    """GW between the batch's class means (shared space) and the global prototypes of the same classes."""
    onehot = F.one_hot(yb, g.shape[0]).to(feat.dtype)  # (n, C)
    counts = onehot.sum(0)
    classes = torch.nonzero((counts > 0) & present).flatten()
    if classes.numel() < 2:
        return None
    means = (onehot[:, classes].T @ feat) / counts[classes, None]
    return gw_unchecked(torch.cdist(means, means), torch.cdist(g[classes], g[classes]))


def _local_loss(model: torch.nn.Module, xb: dict[str, Tensor], yb: Tensor, know: _Knowledge | None,
                a: Alignment) -> Tensor:
    z, logits = model(xb)
    loss = F.cross_entropy(logits, yb)
    if know is None:
        return loss
    g, present = know.protos, know.present
    if a.contrastive > 0:
        loss = loss + a.contrastive * sum(infonce_unchecked(v, yb, g, a.tau, present) for v in z.values()) / len(z)
    if a.proto_mse > 0:
        keep = present[yb]
        if bool(keep.any()):
            mse = sum(((v[keep] - g[yb[keep]]) ** 2).sum(1).mean() for v in z.values()) / len(z)
            loss = loss + a.proto_mse * mse
    if a.gw > 0:
        gw = _gw_term(torch.stack(list(z.values())).mean(0), yb, g, present)
        if gw is not None:
            loss = loss + a.gw * gw
    if a.distill > 0:
        loss = loss + a.distill * distill_unchecked(logits, yb, know.logit_protos, a.kd_temperature, present)
    return loss


@dataclass(frozen=True)
class _Knowledge:
    """The broadcast knowledge as tensors (converted once per client and round)."""

    protos: Tensor
    logit_protos: Tensor
    present: Tensor

    @classmethod
    def of(cls, k: GlobalKnowledge) -> _Knowledge:
        return cls(torch.from_numpy(k.protos), torch.from_numpy(k.logit_protos), torch.from_numpy(k.present))


def client_update(task: ClientTask) -> ClientReport:
    """One client's local update in one round of [P09] (step 1-2 of the module docstring).

    Module-level, so that ``federate(..., mapper=ctx.map)`` (or a process pool's / Ray's map) runs one client per
    worker; the batches are drawn from ``task.seed``, so a worker's result equals a serial run's.
    """
    c, a = task.client, task.alignment
    model = c.model
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=task.lr, foreach=True)
    g = torch.Generator().manual_seed(task.seed)
    n = c.n_samples
    know = None if task.knowledge is None else _Knowledge.of(task.knowledge)
    losses: list[float] = []
    for _ in range(task.epochs):
        perm = torch.randperm(n, generator=g)
        for i in range(0, n, task.batch_size):
            idx = perm[i:i + task.batch_size]
            loss = _local_loss(model, {m: v[idx] for m, v in c.x.items()}, c.y[idx], know, a)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
    protos, lprotos, counts = c.local_knowledge()
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return ClientReport(state=state, protos=protos, logit_protos=lprotos, counts=counts,
                        loss=float(np.mean(losses)) if losses else float("nan"))


@dataclass(frozen=True)
class FederationResult:
    """The outcome of :func:`federate` ([P09]): ``accuracy`` (rounds, K) each client's held-out accuracy after each
    round's local update (NaN for a client without test data), ``loss`` (rounds, K) mean local loss, the last
    ``knowledge`` the server broadcast (``None`` for ``local``/``fedavg``), the ``method``."""

    accuracy: np.ndarray
    loss: np.ndarray
    knowledge: GlobalKnowledge | None
    method: str

    @property
    def final_accuracy(self) -> float:
        """Mean over clients (with test data) of the last round's accuracy."""
        last = self.accuracy[-1]
        return float(np.nanmean(last)) if np.isfinite(last).any() else float("nan")


def _average_states(clients: Sequence[Client], states: Sequence[dict[str, Tensor]]) -> dict[str, Tensor]:
    """FedAvg: each parameter averaged over the clients that hold it, weighted by their sample counts."""
    out: dict[str, Tensor] = {}
    for key in sorted({k for s in states for k in s}):
        held = [(c.n_samples, s[key]) for c, s in zip(clients, states) if key in s]
        shapes = {tuple(t.shape) for _, t in held}
        if len(shapes) > 1:
            raise ValueError(f"clients: fedavg needs same-architecture clients; {key!r} has shapes {sorted(shapes)}")
        tot = sum(w for w, _ in held)
        out[key] = sum(w * t.float() for w, t in held) / tot  # type: ignore[assignment]
    return out


def _broadcast(clients: Sequence[Client], state: dict[str, Tensor]) -> None:
    for c in clients:
        own = c.model.state_dict()
        c.model.load_state_dict({k: state[k].to(v.dtype) for k, v in own.items()})


def _check_clients(clients: Any) -> list[Client]:
    if isinstance(clients, Client) or not isinstance(clients, Sequence) or not clients:
        raise TypeError("clients must be a non-empty sequence of Client")
    if not all(isinstance(c, Client) for c in clients):
        raise TypeError("clients must hold Client objects only")
    for attr in ("n_classes", "proj_dim"):
        vals = {getattr(c, attr) for c in clients}
        if len(vals) > 1:
            raise ValueError(f"clients disagree on {attr}: {sorted(vals)} (one shared space and label set)")
    return list(clients)


def federate(clients: Sequence[Client], *, method: str = "mfedpba", rounds: int, seed: int, local_epochs: int = 2,
             batch_size: int = 32, lr: float = 1e-2, alignment: Alignment | None = None,
             mapper: Mapper | None = None) -> FederationResult:
    """Run a federation of [P09] (module docstring): ``rounds`` rounds of local updates and aggregation.

    The clients are trained in place. ``method`` picks the objective from :data:`METHODS` (``alignment`` overrides
    it). ``mapper(fn, items)`` runs the clients' updates of a round (``ctx.map`` of a claim, a process pool's or Ray's
    map): the function is the module-level :func:`client_update` and each item one client, so the clients may train
    in separate workers; every update is seeded from (``seed``, round, client), so the result equals a serial run's.
    """
    cs = _check_clients(clients)
    method = choice(method, "method", tuple(METHODS))
    rounds = positive_int(rounds, "rounds")
    seed = check_seed(seed)
    epochs, bs = positive_int(local_epochs, "local_epochs"), positive_int(batch_size, "batch_size")
    lr = real(lr, "lr", lo=0.0, lo_open=True)
    if alignment is not None and not isinstance(alignment, Alignment):
        raise TypeError(f"alignment must be an Alignment or None, got {type(alignment).__name__}")
    if mapper is not None and not callable(mapper):
        raise TypeError("mapper must be callable as mapper(fn, items) or None")
    a = alignment or METHODS[method]
    server = Server(cs[0].n_classes, weighting=a.weighting, temperature=a.entropy_temperature)
    if a.average_params:  # one common start: each parameter from the first client that holds it
        states = [c.model.state_dict() for c in cs]
        _average_states(cs, states)  # refuses mismatched architectures before any training
        _broadcast(cs, {k: s[k] for s in reversed(states) for k in s})
    run = mapper or (lambda fn, items: [fn(x) for x in items])
    uses_knowledge = (a.contrastive + a.gw + a.distill + a.proto_mse) > 0
    know: GlobalKnowledge | None = None
    acc = np.full((rounds, len(cs)), np.nan)
    loss = np.full((rounds, len(cs)), np.nan)
    for r in range(rounds):
        tasks = [ClientTask(client=c, knowledge=know, alignment=a, epochs=epochs, batch_size=bs, lr=lr,
                            seed=int(np.random.SeedSequence([seed, r, k]).generate_state(1)[0]))
                 for k, c in enumerate(cs)]
        reports = list(run(client_update, tasks))
        for c, rep in zip(cs, reports):
            c.model.load_state_dict(rep.state)
        acc[r] = [c.accuracy() for c in cs]
        loss[r] = [rep.loss for rep in reports]
        if a.average_params and r < rounds - 1:
            _broadcast(cs, _average_states(cs, [rep.state for rep in reports]))
        elif uses_knowledge:
            know = server.aggregate(np.stack([rep.protos for rep in reports]),
                                    np.stack([rep.logit_protos for rep in reports]),
                                    np.stack([rep.counts for rep in reports]))
    return FederationResult(accuracy=acc, loss=loss, knowledge=know, method=method)
