"""Wanda pruning (the pruning used by [P05]) and the swap of torch ``nn.Linear`` layers for MACKO-backed ones."""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.common.validation import choice, positive_int, real, real_array

__all__ = ["sparsify_linear", "wanda_prune"]


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch")


def wanda_prune(weight: Any, activations: Any | None, *, sparsity: float) -> Any:
    """Prune ``weight`` with Wanda's score ``S_ij = |W_ij| · ‖X_j‖₂``, per output row (the pruning used by [P05]).

    In every row ``i`` the ``floor(sparsity · C)`` entries of lowest score are set to zero (ties broken by column
    order, deterministically). With ``activations=None`` the norms are all 1 (magnitude pruning).

    Args:
        weight: ``W``, shape ``(R, C)`` = (out_features, in_features); numpy array or torch tensor.
        activations: ``X``, calibration inputs of the layer, shape ``(N, C)`` (or ``(..., C)``), or None.
        sparsity: fraction of zeros per row, in ``[0, 1]``.

    Returns:
        The pruned copy of ``weight``, same type, dtype and device.
    """
    sparsity = real(sparsity, "sparsity", lo=0.0, hi=1.0)
    torch_in = _is_torch(weight)
    W = weight.detach().cpu().float().numpy() if torch_in else weight
    if not isinstance(W, np.ndarray) or W.dtype.kind != "f":
        got = f"dtype {W.dtype}" if isinstance(W, np.ndarray) else type(W).__name__
        raise TypeError(f"weight must be a floating numpy array or torch tensor, got {got}")
    W = real_array(W, "weight", ndim=2, dtype=W.dtype)  # finite, non-empty
    r, c = W.shape
    if activations is None:
        norms = np.ones(c, dtype=np.float64)
    else:
        X = activations.detach().cpu().double().numpy() if _is_torch(activations) else activations
        # a NaN or inf input has no Wanda score (a NaN norm would sort last and keep its whole column)
        X = real_array(X, "activations")
        if X.ndim < 1 or X.shape[-1] != c:
            raise ValueError(f"activations must have last dimension C = {c}, got shape {X.shape}")
        norms = np.sqrt(np.square(X.reshape(-1, c)).sum(axis=0))
    score = np.abs(W.astype(np.float64)) * norms[None, :]
    k = int(np.floor(sparsity * c))
    keep = np.ones((r, c), dtype=bool)
    if k > 0 and r > 0:
        idx = np.argsort(score, axis=1, kind="stable")[:, :k]  # k lowest scores of each row
        np.put_along_axis(keep, idx, False, axis=1)
    if torch_in:
        import torch

        return weight.detach() * torch.from_numpy(keep).to(device=weight.device, dtype=weight.dtype)
    return np.where(keep, W, np.zeros((), dtype=W.dtype))


def sparsify_linear(module: Any, *, sparsity: float | None = None, activations: Any | None = None,
                    threads: int = 1, device: str = "cpu") -> Any:
    """Replace torch ``nn.Linear`` layers by MACKO-backed inference layers (weights stored as in the MACKO format of [P05]).

    Args:
        module: an ``nn.Linear`` (a new :class:`~icml26.papers.macko._torch.MackoLinear` is returned) or any
            ``nn.Module`` (its ``nn.Linear`` descendants are replaced in place and the module is returned).
        sparsity: when given, prune each weight first with :func:`wanda_prune` at this sparsity; None keeps the
            weights' own zeros.
        activations: calibration inputs for Wanda (only for a single ``nn.Linear``); None = magnitude pruning.
        threads: CPU threads used by each layer's SpMV.
        device: ``"cpu"`` (C++ kernel, :class:`~icml26.papers.macko._torch.MackoLinear`) or ``"cuda"`` (Triton
            kernel, :class:`~icml26.papers.macko._torch.TritonMackoLinear`; needs triton and a GPU).
    """
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - torch is in the [torch] extra
        raise ImportError("sparsify_linear needs torch: pip install 'icml26[torch]'") from exc
    from icml26.papers.macko._torch import MackoLinear, TritonMackoLinear

    device = choice(device, "device", ("cpu", "cuda"))
    threads = positive_int(threads, "threads")
    if sparsity is not None:
        sparsity = real(sparsity, "sparsity", lo=0.0, hi=1.0)
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    if isinstance(module, torch.nn.Linear):
        w = module.weight.detach()
        if sparsity is not None:
            w = wanda_prune(w, activations, sparsity=sparsity)
        bias = None if module.bias is None else module.bias.detach()
        return TritonMackoLinear(w, bias) if device == "cuda" else MackoLinear(w, bias, threads=threads)
    if activations is not None:
        raise ValueError("activations can only be given for a single nn.Linear; prune containers layer by layer")
    for name, child in list(module.named_children()):
        setattr(module, name, sparsify_linear(child, sparsity=sparsity, threads=threads, device=device))
    return module
