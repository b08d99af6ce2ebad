"""The MoE routers of a model and the additive router-logit vectors δ^(l) of [P34] (Fig. 1a), as forward hooks.

Supported routers (found by class, never by name guessing):

- transformers' softmax-then-top-k routers that return ``(logits, top-k weights, top-k indices)``: OLMoE
  (``OlmoeTopKRouter``), Qwen2-MoE and Qwen3-MoE (same routing rule), Mixtral (``MixtralTopKRouter``: the top-k
  weights always renormalised, kept in float32). Their forward computes the logits and the top-k choice in one call,
  so the hook takes the logits it returned, adds δ, and redoes that router's own top-k rule on the sum;
- :class:`icml26.common.nn.MoE` of TinyGPT, whose router is a plain ``nn.Linear``: the hook adds δ to its output.

With δ = 0 every hook returns exactly what the router computed (x + 0 = x in floating point, and the same ops redo
the same top-k), so a model with zero biases is bitwise the model without them (tests/papers/moe_tta).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from icml26.common.nn import MoE, blocks_of
from icml26.common.validation import int_array, positive_int

__all__ = ["SUPPORTED_ROUTERS", "MoELayer", "RouterBias", "moe_layers"]

#: router class name -> the routing rule its forward applies after the logits
SUPPORTED_ROUTERS: dict[str, str] = {
    "OlmoeTopKRouter": "softmax_topk",
    "Qwen2MoeTopKRouter": "softmax_topk",
    "Qwen3MoeTopKRouter": "softmax_topk",
    "MixtralTopKRouter": "softmax_topk_renorm",
}
_LAYER = re.compile(r"(?:^|\.)layers\.(\d+)\.")


@dataclass(frozen=True)
class MoELayer:
    """[P34] one MoE layer: its decoder-layer index, its router module, the routing rule, E and top-k."""

    index: int
    router: nn.Module
    kind: str  # "linear" (TinyGPT), "softmax_topk" or "softmax_topk_renorm" (transformers)
    n_experts: int
    top_k: int


def _tinygpt_layers(model: nn.Module) -> list[MoELayer]:
    out = []
    for i, blk in enumerate(blocks_of(model)):
        if isinstance(blk.mlp, MoE):
            out.append(MoELayer(i, blk.mlp.router, "linear", blk.mlp.router.out_features, blk.mlp.top_k))
    return out


def _hf_layers(model: nn.Module) -> list[MoELayer]:
    out, unknown = [], []
    for name, mod in model.named_modules():
        cls = type(mod).__name__
        if cls in SUPPORTED_ROUTERS:
            m = _LAYER.search(name)
            if m is None:
                raise TypeError(f"model: cannot tell the decoder layer of router {name!r}")
            out.append(MoELayer(int(m.group(1)), mod, SUPPORTED_ROUTERS[cls], int(getattr(mod, "num_experts")),
                                int(getattr(mod, "top_k"))))
        elif cls.endswith(("Router", "TopKRouter")) or "SparseMoe" in cls:
            unknown.append(cls)
    if not out and unknown:
        raise TypeError(f"model: its MoE routers ({sorted(set(unknown))[0]}) are not supported; supported: "
                        f"{sorted(SUPPORTED_ROUTERS)} and TinyGPT's MoE")
    return sorted(out, key=lambda layer: layer.index)


def moe_layers(model: nn.Module) -> list[MoELayer]:
    """[P34] §Method: the MoE layers of ``model`` (TinyGPT with experts, or a supported transformers MoE LM).

    Raises:
        TypeError: ``model`` is not an ``nn.Module``, or its MoE routers are of an unsupported class.
        ValueError: ``model`` has no MoE layer (a dense model).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch nn.Module, got {type(model).__name__}")
    blocks = getattr(model, "blocks", None)
    layers = _tinygpt_layers(model) if isinstance(blocks, nn.ModuleList) else _hf_layers(model)
    if not layers:
        raise ValueError(f"model: {type(model).__name__} has no MoE layers (no router of {sorted(SUPPORTED_ROUTERS)}"
                         " and no TinyGPT MoE): rerouting needs a mixture-of-experts model")
    return layers


def _check_layers(layers: Any, available: Sequence[int]) -> tuple[int, ...]:
    if isinstance(layers, (list, tuple, range)) and len(layers) == 0:
        raise ValueError("layers must not be empty (None means every MoE layer)")
    arr = int_array(layers, "layers", ndim=1)
    bad = sorted({int(v) for v in arr} - set(available))
    if bad:
        raise ValueError(f"layers: {bad} are not MoE layers of this model (MoE layers: {list(available)})")
    if len(set(arr.tolist())) != arr.size:
        raise ValueError(f"layers: repeated layer indices in {arr.tolist()}")
    return tuple(sorted(int(v) for v in arr))


def _softmax_topk(logits: Tensor, top_k: int, *, renorm: bool, cast: torch.dtype | None) -> tuple[Tensor, Tensor]:
    probs = torch.softmax(logits, dim=-1, dtype=torch.float)
    top, idx = torch.topk(probs, top_k, dim=-1)
    if renorm:
        top = top / top.sum(dim=-1, keepdim=True)
    return (top if cast is None else top.to(cast)), idx


class RouterBias:
    """[P34] Fig. 1a: additive vectors δ^(l) ∈ R^E on the router logits of the selected MoE layers l ∈ 𝓛.

    ``RouterBias(model, layers=[1, 3])`` holds ``delta``, a float32 ``nn.Parameter`` of shape (|𝓛|, E) (or
    (batch, |𝓛|, E) with ``batch``: one δ per sequence of a batch, optimised independently), initialised at zero.
    ``attach()`` (or ``with bias:``) hooks the routers so that every forward routes with g_l(x) =
    TopK(softmax(W_r^(l) x + δ^(l))); ``remove()`` restores the model. ``mask`` (batch, |𝓛|) of 0/1 switches δ off
    per (sequence, layer): a per-sequence layer selection within one batch. ``layers=None`` means every MoE layer.
    """

    def __init__(self, model: nn.Module, *, layers: Sequence[int] | None = None, batch: int | None = None,
                 mask: Tensor | None = None) -> None:
        all_layers = moe_layers(model)
        by_index = {layer.index: layer for layer in all_layers}
        chosen = tuple(by_index) if layers is None else _check_layers(layers, tuple(by_index))
        self.model = model
        self.layers: tuple[MoELayer, ...] = tuple(by_index[i] for i in chosen)
        n_exp = {layer.n_experts for layer in self.layers}
        if len(n_exp) != 1:
            raise ValueError(f"layers: the chosen MoE layers have different expert counts {sorted(n_exp)}")
        self.n_experts = n_exp.pop()
        self.batch = None if batch is None else positive_int(batch, "batch")
        shape = (len(self.layers), self.n_experts) if self.batch is None else (self.batch, len(self.layers),
                                                                               self.n_experts)
        self.delta = nn.Parameter(torch.zeros(shape, dtype=torch.float32))
        self.mask = self._check_mask(mask)
        self._handles: list[Any] = []
        self._seen_batch: int | None = None  # batch of the model's current forward (its input ids)

    def _check_mask(self, mask: Tensor | None) -> Tensor | None:
        if mask is None:
            return None
        if self.batch is None:
            raise ValueError("mask: a per-sequence mask needs batch")
        m = torch.as_tensor(mask, dtype=torch.float32)
        if tuple(m.shape) != (self.batch, len(self.layers)) or not bool(((m == 0) | (m == 1)).all()):
            raise ValueError(f"mask must be 0/1 of shape ({self.batch}, {len(self.layers)}), got {tuple(m.shape)}")
        return m

    @property
    def indices(self) -> tuple[int, ...]:
        """The decoder-layer indices that carry a δ."""
        return tuple(layer.index for layer in self.layers)

    def vector(self, j: int) -> Tensor:
        """The effective δ of the j-th biased layer: (E,), or (batch, E) with the mask applied."""
        if self.batch is None:
            return self.delta[j]
        d = self.delta[:, j]
        return d if self.mask is None else d * self.mask[:, j : j + 1]

    def sq_norm(self) -> Tensor:
        """‖δ‖² over the layers: a scalar, or one value per sequence (batch,)."""
        if self.batch is None:
            return (self.delta**2).sum()
        d = self.delta if self.mask is None else self.delta * self.mask[..., None]
        return (d**2).sum(dim=(1, 2))

    def reset(self) -> None:
        """δ ← 0 (the unadapted router)."""
        with torch.no_grad():
            self.delta.zero_()

    def _add(self, logits: Tensor, j: int, flat: bool) -> Tensor:
        d = self.vector(j).to(logits.dtype)
        if self.batch is None:
            return logits + d
        if not flat:  # TinyGPT: (B, T, E)
            if logits.shape[0] != self.batch:
                raise ValueError(f"ids: batch {logits.shape[0]} differs from the bias batch {self.batch}")
            return logits + d[:, None, :]
        n = logits.shape[0]
        if self._seen_batch is not None and self._seen_batch != self.batch:
            raise ValueError(f"ids: batch {self._seen_batch} differs from the bias batch {self.batch}")
        if n % self.batch:
            raise ValueError(f"ids: {n} routed tokens do not split into the bias batch {self.batch}")
        return (logits.view(self.batch, n // self.batch, -1) + d[:, None, :]).view(n, -1)

    def _hook(self, j: int, layer: MoELayer) -> Callable[..., Any]:
        if layer.kind == "linear":
            return lambda _mod, _args, out: self._add(out, j, flat=False)
        renorm_always = layer.kind == "softmax_topk_renorm"

        def hook(mod: nn.Module, _args: Any, out: Any) -> Any:
            logits = out[0]
            biased = self._add(logits, j, flat=True)
            renorm = renorm_always or bool(getattr(mod, "norm_topk_prob", False))
            top, idx = _softmax_topk(biased, layer.top_k, renorm=renorm,
                                     cast=None if renorm_always else logits.dtype)
            return (biased.to(logits.dtype), top, idx)

        return hook

    def _see_batch(self, _mod: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        ids = kwargs.get("input_ids", args[0] if args else None)
        self._seen_batch = int(ids.shape[0]) if isinstance(ids, Tensor) and ids.ndim == 2 else None

    def attach(self) -> RouterBias:
        """Hook the routers (idempotent); returns ``self``."""
        if not self._handles:
            self._handles = [self.model.register_forward_pre_hook(self._see_batch, with_kwargs=True)]
            self._handles += [layer.router.register_forward_hook(self._hook(j, layer))
                              for j, layer in enumerate(self.layers)]
        return self

    def remove(self) -> None:
        """Unhook the routers: the model routes as before."""
        for h in self._handles:
            h.remove()
        self._handles = []
        self._seen_batch = None

    @property
    def attached(self) -> bool:
        """Whether the hooks are in place."""
        return bool(self._handles)

    def __enter__(self) -> RouterBias:
        return self.attach()

    def __exit__(self, *exc: object) -> None:
        self.remove()
