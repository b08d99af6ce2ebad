"""A [P09] client: any torch encoder per modality, a projection encoder into the shared space, a classifier head.

Per modality m the client maps x_m ↦ h_m = E_m(x_m) ∈ R^{d_k,m} (its own architecture: widths, depths, output
dimensions may differ between clients and modalities) ↦ z_m = normalize(P_m h_m) ∈ R^{d_s} (the projection encoder,
into the space shared by all clients) ↦ logits_m = W z_m + b; a multimodal sample's logits are the mean over its
modalities (late fusion). Feature prototypes live in the shared space, logit prototypes in R^C.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.validation import int_at_least, positive_int
from icml26.common.validation import seed as check_seed
from icml26.papers.mfedpba._tensors import as_labels, as_tensor

__all__ = ["Client", "ClientModel", "mlp_encoder"]


def _linear(n_in: int, n_out: int, g: torch.Generator) -> nn.Linear:
    """A Linear layer with PyTorch's default initialisation drawn from ``g``: built without initialising
    (``skip_init``), so the global RNG is neither read nor advanced."""
    layer: nn.Linear = nn.utils.skip_init(nn.Linear, n_in, n_out)  # type: ignore[assignment]
    bound = 1.0 / math.sqrt(n_in)
    with torch.no_grad():
        layer.weight.uniform_(-bound, bound, generator=g)
        layer.bias.uniform_(-bound, bound, generator=g)
    return layer


def mlp_encoder(in_dim: int, *, width: int, depth: int, out_dim: int, seed: int) -> nn.Sequential:
    """An MLP encoder for a [P09] client (``depth`` hidden ReLU layers of ``width``, then a linear map to
    ``out_dim``): the heterogeneous client architectures of our test bed. Initialised from ``seed``."""
    in_dim = positive_int(in_dim, "in_dim")
    width = positive_int(width, "width")
    depth = int_at_least(depth, "depth", 0)
    out_dim = positive_int(out_dim, "out_dim")
    g = torch.Generator().manual_seed(check_seed(seed))
    dims = [in_dim] + [width] * depth
    layers: list[nn.Module] = []
    for a, b in zip(dims[:-1], dims[1:]):
        layers += [_linear(a, b, g), nn.ReLU()]
    layers.append(_linear(dims[-1], out_dim, g))
    return nn.Sequential(*layers)


class ClientModel(nn.Module):
    """The trainable part of a [P09] client: encoders E_m, projections P_m (to ``proj_dim``), one head (module
    docstring). ``forward`` returns the normalised shared-space features per modality and the fused logits."""

    def __init__(self, encoders: Mapping[str, nn.Module], feature_dims: Mapping[str, int], *, proj_dim: int,
                 n_classes: int, generator: torch.Generator) -> None:
        super().__init__()
        self.encoders = nn.ModuleDict(dict(encoders))
        self.projections = nn.ModuleDict({m: _linear(feature_dims[m], proj_dim, generator) for m in sorted(encoders)})
        self.head = _linear(proj_dim, n_classes, generator)

    def forward(self, x: Mapping[str, Tensor]) -> tuple[dict[str, Tensor], Tensor]:
        z = {m: F.normalize(self.projections[m](self.encoders[m](x[m])), dim=1) for m in sorted(self.encoders)}
        logits = torch.stack([self.head(v) for v in z.values()]).mean(0)
        return z, logits


def _modal_inputs(x: Any, modalities: tuple[str, ...], name: str) -> dict[str, Tensor]:
    if not isinstance(x, Mapping):
        raise TypeError(f"{name} must be a mapping modality -> array, got {type(x).__name__}")
    if set(x) != set(modalities):
        raise ValueError(f"{name} must hold exactly the client's modalities {list(modalities)}, got {sorted(x)}")
    out = {m: as_tensor(x[m], f"{name}[{m!r}]", ndim=2) for m in modalities}
    rows = {m: v.shape[0] for m, v in out.items()}
    if len(set(rows.values())) != 1:
        raise ValueError(f"{name}: every modality needs one row per sample, got rows {rows}")
    return {m: v.detach().float() for m, v in out.items()}


class Client:
    """One client of [P09] (Alg. of the paper as we reconstruct it; see the package docstring).

    Args:
        encoders: modality name -> any ``torch.nn.Module`` mapping (n, d_m) inputs to (n, h_m) features; the
            modalities a client holds are these keys (one or several: modality imbalance).
        x: modality name -> (n, d_m) training inputs, paired row by row across modalities.
        y: (n,) training labels in [0, n_classes).
        n_classes: C, shared by the federation.
        proj_dim: d_s, the dimension of the shared space (the same for every client of a federation).
        seed: initialises the projections and the head.
        x_test, y_test: optional held-out data of this client (same modalities), for :meth:`accuracy`.

    Trained in place by :func:`federate`; picklable, so a mapper may train it in another process.
    """

    def __init__(self, encoders: Mapping[str, nn.Module], x: Mapping[str, Any], y: Any, *, n_classes: int,
                 proj_dim: int = 32, seed: int, x_test: Mapping[str, Any] | None = None, y_test: Any = None) -> None:
        if not isinstance(encoders, Mapping) or not encoders:
            raise TypeError("encoders must be a non-empty mapping modality -> torch.nn.Module")
        bad = [m for m, e in encoders.items() if not (isinstance(m, str) and isinstance(e, nn.Module))]
        if bad:
            raise TypeError(f"encoders must map modality names (str) to torch.nn.Module, got bad entries {bad}")
        self.modalities: tuple[str, ...] = tuple(sorted(encoders))
        self.n_classes = int_at_least(n_classes, "n_classes", 2)
        self.proj_dim = positive_int(proj_dim, "proj_dim")
        self.x = _modal_inputs(x, self.modalities, "x")
        self.y = as_labels(y, "y", n=self.n_samples, n_classes=self.n_classes)
        self.x_test: dict[str, Tensor] | None = None
        self.y_test: Tensor | None = None
        if (x_test is None) != (y_test is None):
            raise ValueError("x_test and y_test go together: give both or neither")
        if x_test is not None:
            self.x_test = _modal_inputs(x_test, self.modalities, "x_test")
            n_test = next(iter(self.x_test.values())).shape[0]
            self.y_test = as_labels(y_test, "y_test", n=n_test, n_classes=self.n_classes)
        dims = {m: self._feature_dim(m, encoders[m]) for m in self.modalities}
        g = torch.Generator().manual_seed(check_seed(seed))
        self.model = ClientModel(encoders, dims, proj_dim=self.proj_dim, n_classes=self.n_classes, generator=g)

    def _feature_dim(self, m: str, enc: nn.Module) -> int:
        was = enc.training
        enc.eval()
        try:
            with torch.no_grad():
                h = enc(self.x[m][:2])
        except Exception as exc:  # noqa: BLE001 - any failure of the user's module is reported with its modality
            raise ValueError(f"encoders[{m!r}] fails on x[{m!r}] rows of shape {tuple(self.x[m].shape[1:])}: {exc}"
                             ) from exc
        finally:
            enc.train(was)
        if not isinstance(h, Tensor) or h.ndim != 2 or h.shape[0] != min(2, self.n_samples):
            raise ValueError(f"encoders[{m!r}] must map (n, d) inputs to (n, h) features")
        return int(h.shape[1])

    @property
    def n_samples(self) -> int:
        """Training samples held by this client."""
        return int(next(iter(self.x.values())).shape[0])

    def class_counts(self) -> np.ndarray:
        """(C,) training samples per class n_k^c."""
        return np.bincount(self.y.numpy(), minlength=self.n_classes).astype(np.float64)

    def logits(self, x: Mapping[str, Any]) -> np.ndarray:
        """(n, C) fused logits of inputs ``x`` (modality -> array, this client's modalities), no gradient."""
        xt = _modal_inputs(x, self.modalities, "x")
        self.model.eval()
        with torch.no_grad():
            out = self.model(xt)[1].numpy()
        self.model.train()
        return out

    def accuracy(self) -> float:
        """Accuracy of this client's model on its held-out data (NaN without ``x_test``)."""
        if self.x_test is None or self.y_test is None:
            return float("nan")
        return float((self.logits(self.x_test).argmax(1) == self.y_test.numpy()).mean())

    def local_knowledge(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What this client uploads in [P09]: feature prototypes p_k^c (C, d_s; the mean of its normalised
        shared-space features over the class's samples and the client's modalities), logit prototypes l_k^c
        (C, C; mean fused logits) and counts n_k^c (C,). Rows of classes it lacks are zero."""
        self.model.eval()
        with torch.no_grad():
            z, logits = self.model(self.x)
        self.model.train()
        onehot = F.one_hot(self.y, self.n_classes).to(logits.dtype)  # (n, C)
        counts = onehot.sum(0)
        denom = counts.clamp(min=1.0)[:, None]
        feat = torch.stack(list(z.values())).mean(0)
        protos = (onehot.T @ feat) / denom
        lprotos = (onehot.T @ logits) / denom
        return protos.numpy().astype(np.float64), lprotos.numpy().astype(np.float64), counts.numpy().astype(np.float64)
