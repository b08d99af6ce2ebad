"""Access to a Llama-style causal LM's decoder (its layers, the MLP down-projections, the final norm and the head)
and a cached partial forward pass: the hidden states entering one decoder layer are computed once, and every later
pass runs only the layers from there on. [P27] edits only the down-projections of a few middle layers, so every
optimisation step, evaluation and baseline of this package re-runs only the upper part of the network.

Llama-style means ``model.model.layers[i].mlp.down_proj`` (an ``nn.Linear``), ``model.model.norm`` and
``model.get_output_embeddings()``, with every decoder layer of one attention kind: transformers' Llama, Mistral,
Qwen2 (without sliding windows) and our tiny test models.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any, cast

import torch
from torch import Tensor, nn

__all__ = ["Stack", "capture_at", "check_layers", "decoder_layers", "down_proj", "frozen", "pad_rows"]


def decoder_layers(model: Any) -> nn.ModuleList:
    """The decoder layers of a Llama-style causal LM (``TypeError`` naming ``model`` otherwise)."""
    inner = getattr(model, "model", None)
    layers = getattr(inner, "layers", None)
    if not isinstance(model, nn.Module) or not isinstance(layers, nn.ModuleList) or not len(layers):
        raise TypeError(f"model must be a Llama-style causal LM (model.model.layers[i].mlp.down_proj), got "
                        f"{type(model).__name__}")
    for i, layer in enumerate(layers):
        if not isinstance(getattr(getattr(layer, "mlp", None), "down_proj", None), nn.Linear):
            raise TypeError(f"model: decoder layer {i} has no mlp.down_proj linear layer")
    return layers


def down_proj(model: Any, layer: int) -> nn.Linear:
    """The MLP down-projection ``W`` (d × m: hidden size × intermediate size) of decoder layer ``layer``."""
    return cast(nn.Linear, cast(Any, decoder_layers(model)[layer]).mlp.down_proj)


def check_layers(model: Any, layers: object, name: str = "layers") -> tuple[int, ...]:
    """``layers`` as a non-empty, strictly increasing tuple of valid decoder-layer indices of ``model``."""
    n = len(decoder_layers(model))
    if isinstance(layers, (int, str, bytes)) or not isinstance(layers, Sequence):
        raise TypeError(f"{name} must be a sequence of layer indices, got {type(layers).__name__} {layers!r}")
    out = []
    for x in layers:
        if isinstance(x, bool) or not isinstance(x, int):
            raise TypeError(f"{name} must hold ints, got {type(x).__name__} {x!r}")
        if not 0 <= x < n:
            raise ValueError(f"{name}: layer index {x} out of range for a model with {n} decoder layers")
        out.append(int(x))
    if not out:
        raise ValueError(f"{name} must name at least one decoder layer")
    if any(b <= a for a, b in zip(out, out[1:])):
        raise ValueError(f"{name} must be strictly increasing, got {out}")
    return tuple(out)


@contextlib.contextmanager
def frozen(model: nn.Module, *trainable: Tensor) -> Iterator[None]:
    """Every parameter of ``model`` without gradients except ``trainable``; the flags are restored afterwards."""
    before = [(p, p.requires_grad) for p in model.parameters()]
    keep = {id(p) for p in trainable}
    try:
        for p, _ in before:
            p.requires_grad_(id(p) in keep)
        yield
    finally:
        for p, flag in before:
            p.requires_grad_(flag)


def pad_rows(rows: Sequence[Sequence[int]], pad_id: int) -> tuple[Tensor, Tensor]:
    """Right-padded ``(ids, attention_mask)`` for token-id rows."""
    if not rows or any(not r for r in rows):
        raise ValueError("pad_rows needs non-empty token rows")
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), int(pad_id), dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = torch.tensor(list(r), dtype=torch.long)
        mask[i, :len(r)] = 1
    return ids, mask


class _Stop(Exception):
    """Raised by a hook to end a forward pass once what was wanted has been captured."""


def _take(x: Any, rows: Tensor, batch: int) -> Any:
    """``x`` with its batch dimension indexed by ``rows`` (tensors whose first dimension is the batch; others as they
    are: position embeddings, broadcast masks)."""
    if isinstance(x, Tensor):
        return x.index_select(0, rows) if x.ndim >= 2 and x.shape[0] == batch and batch > 1 else x
    if isinstance(x, tuple):
        return tuple(_take(v, rows, batch) for v in x)
    return x


class Stack:
    """The decoder of ``model`` from layer ``start`` on, for one fixed batch of token rows.

    The hidden states entering layer ``start`` and the keyword arguments the model hands its layers (the causal
    mask, the rotary embeddings) are captured once by a forward pass that stops there; :meth:`run` then executes
    layers ``start, ..., L-1`` and the final norm only. Valid as long as nothing below ``start`` changes.
    """

    def __init__(self, model: Any, ids: Tensor, mask: Tensor, start: int) -> None:
        layers = decoder_layers(model)
        if not 0 <= start < len(layers):
            raise ValueError(f"start must be a decoder layer index of the model, got {start}")
        kinds = {getattr(layer, "attention_type", None) for layer in layers[start:]}
        if len(kinds) > 1:
            raise ValueError(f"model: decoder layers from {start} on mix attention kinds {sorted(map(str, kinds))}; "
                             "a Llama-style model has one")
        self.model, self.layers, self.start = model, layers, start
        self.ids, self.mask = ids, mask
        captured: dict[str, Any] = {}

        def grab(module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            captured["h"] = args[0] if args else kwargs["hidden_states"]
            captured["kw"] = {k: v for k, v in kwargs.items() if k != "hidden_states"}
            raise _Stop

        handle = layers[start].register_forward_pre_hook(grab, with_kwargs=True)
        with torch.no_grad():
            try:
                model.model(input_ids=ids, attention_mask=mask, use_cache=False)
            except _Stop:
                pass
            finally:
                handle.remove()
        self.hidden: Tensor = captured["h"].detach()
        self.kwargs: dict[str, Any] = captured["kw"]

    @property
    def rows(self) -> int:
        return int(self.ids.shape[0])

    def run(self, hidden: Tensor | None = None, rows: Tensor | None = None) -> Tensor:
        """Final normed hidden states (B × T × d) from layer ``start`` on, for ``rows`` (all when ``None``)."""
        h = self.hidden if hidden is None else hidden
        kw = self.kwargs
        if rows is not None:
            h = h.index_select(0, rows) if hidden is None else h
            kw = {k: _take(v, rows, self.rows) for k, v in kw.items()}
        for layer in self.layers[self.start:]:
            out = layer(h, **kw)
            h = out[0] if isinstance(out, tuple) else out
        return self.model.model.norm(h)

    def logits(self, final: Tensor, row: Tensor, pos: Tensor) -> Tensor:
        """Output-head logits at the (row, position) pairs of ``final`` (N × vocab)."""
        return self.model.get_output_embeddings()(final[row, pos])


def capture_at(model: Any, ids: Tensor, mask: Tensor, modules: dict[str, nn.Module], stop: nn.Module,
               ) -> dict[str, tuple[Tensor, Tensor]]:
    """(input, output) of each named module for one no-grad forward pass that ends after ``stop`` has run."""
    got: dict[str, tuple[Tensor, Tensor]] = {}
    handles = []
    for name, mod in modules.items():
        def keep(m: nn.Module, inp: tuple[Any, ...], out: Any, name: str = name) -> None:
            got[name] = (inp[0].detach(), (out[0] if isinstance(out, tuple) else out).detach())
        handles.append(mod.register_forward_hook(keep))

    def halt(m: nn.Module, inp: tuple[Any, ...], out: Any) -> None:
        raise _Stop

    handles.append(stop.register_forward_hook(halt))
    with torch.no_grad():
        try:
            model.model(input_ids=ids, attention_mask=mask, use_cache=False)
        except _Stop:
            pass
        finally:
            for h in handles:
                h.remove()
    return got
