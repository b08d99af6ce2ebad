"""[P05] end to end on a pretrained transformers decoder: Wanda-prune every linear layer of its blocks (calibration
activations from real text), store them in the MACKO format, and compare the result with the pruned dense model.

:func:`wanda_prune_model` prunes in place with Wanda's per-row score (the embeddings and the output head are left dense,
as in Wanda and MACKO); :func:`to_macko` swaps the pruned ``nn.Linear`` layers of the blocks for
:class:`~icml26.papers.macko._torch.MackoLinear` (or, for the fair dense baseline, ``DenseFp16Linear``); both work on
any model whose blocks are ``model.model.layers`` (Llama, SmolLM2, Qwen2, Mistral...). Torch is imported lazily.
"""

from __future__ import annotations

import math
from typing import Any

from icml26.common.validation import int_array, positive_int, real

__all__ = ["block_linears", "perplexity", "to_macko", "wanda_prune_model"]


def _token_ids(model: Any, x: Any, name: str, *, min_len: int = 1) -> Any:
    """``x`` as (batch, T) int64 token ids inside ``model``'s vocabulary."""
    import torch

    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    ids = int_array(x, name, ndim=2)
    vocab = int(model.get_input_embeddings().num_embeddings)
    if ids.shape[1] < min_len:
        raise ValueError(f"{name} must hold at least {min_len} tokens per row, got shape {ids.shape}")
    if ids.min() < 0 or ids.max() >= vocab:
        raise ValueError(f"{name} has token ids outside the model's vocabulary [0, {vocab})")
    return torch.from_numpy(ids)


def block_linears(model: Any) -> dict[str, Any]:
    """``{name: nn.Linear}`` of every linear layer inside ``model.model.layers``: what [P05]'s end-to-end setting
    prunes and stores in the MACKO format (the blocks; no embeddings, no head)."""
    import torch

    layers = getattr(getattr(model, "model", None), "layers", None)
    if not isinstance(model, torch.nn.Module) or layers is None:
        raise TypeError(f"model must be a transformers decoder with model.model.layers, got {type(model).__name__}")
    return {f"model.layers.{i}.{n}": m for i, layer in enumerate(layers) for n, m in layer.named_modules()
            if isinstance(m, torch.nn.Linear)}


def wanda_prune_model(model: Any, calibration_ids: Any, *, sparsity: float) -> dict[str, float]:
    """Prune the block linears of ``model`` in place with Wanda, the pruning of [P05]'s end-to-end claim
    (``S_ij = |W_ij|·‖X_j‖₂``, per output row), ``X`` the layer inputs on ``calibration_ids`` ((batch, T) token ids)
    gathered in one forward pass. The embeddings and the output head stay dense. Returns each layer's sparsity."""
    import torch

    from icml26.papers.macko._wanda import wanda_prune

    sparsity = real(sparsity, "sparsity", lo=0.0, hi=1.0)
    linears = block_linears(model)
    ids = _token_ids(model, calibration_ids, "calibration_ids")
    inputs: dict[str, Any] = {}
    hooks = [m.register_forward_hook(lambda _m, a, _o, n=n: inputs.__setitem__(n, a[0].detach().reshape(
        -1, a[0].shape[-1]))) for n, m in linears.items()]
    try:
        with torch.no_grad():
            model(input_ids=ids, use_cache=False)
    finally:
        for h in hooks:
            h.remove()
    out = {}
    with torch.no_grad():
        for n, m in linears.items():
            w = wanda_prune(m.weight.detach(), inputs[n].to(m.weight.dtype), sparsity=sparsity)
            m.weight.copy_(w)
            out[n] = float((w == 0).float().mean())
    return out


def to_macko(model: Any, *, kind: str = "macko", threads: int = 1) -> dict[str, int]:
    """Swap the block linears of ``model`` (in place) for ``"macko"`` (:class:`MackoLinear`, the MACKO format of
    [P05], Sec. 3) or ``"dense16"`` (:class:`DenseFp16Linear`, the dense fp16 baseline) layers; returns each layer's
    stored weight bytes."""
    from icml26.papers.macko._torch import DenseFp16Linear, MackoLinear

    if kind not in ("macko", "dense16"):
        raise ValueError(f"kind must be 'macko' or 'dense16', got {kind!r}")
    threads = positive_int(threads, "threads")
    sizes = {}
    for name, lin in block_linears(model).items():
        bias = None if lin.bias is None else lin.bias.detach()
        layer = (MackoLinear(lin.weight.detach(), bias, threads=threads) if kind == "macko"
                 else DenseFp16Linear(lin.weight.detach(), bias, threads=threads))
        parent, attr = name.rsplit(".", 1)
        setattr(model.get_submodule(parent), attr, layer)
        sizes[name] = int(layer.weight_nbytes)
    return sizes


def perplexity(model: Any, ids: Any) -> float:
    """exp(mean next-token cross-entropy) of ``model`` on the (batch, T) token ids ``ids`` (how [P05]'s Wanda-pruned
    models are compared with the dense ones)."""
    import torch

    ids = _token_ids(model, ids, "ids", min_len=2)
    with torch.no_grad():
        logits = model(input_ids=ids, use_cache=False).logits[:, :-1].float()
    nll = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
    return math.exp(float(nll))
