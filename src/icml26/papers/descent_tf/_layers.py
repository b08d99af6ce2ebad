"""Per-layer states z_0..z_L of a stack of blocks, for the layerwise losses of [P07] (§2 of the notes, derived).

A :class:`LayerwiseModel` exposes ``layer_states(x) -> [z_0, ..., z_L]`` (z_0 the input to the first block, z_l the
output of block l) and ``layer_modules()`` (the L modules producing z_1..z_L, where :func:`perturbed_state` hooks in).
Adapters make one out of a model you already have:

- :class:`TinyGPTLayers` — a :class:`~icml26.common.nn.TinyGPT`: token ids through ``TinyGPT.hidden`` with forward
  hooks on its blocks, or continuous inputs through an ``embed`` module and the same blocks;
- :class:`EncoderLayers` — a transformers encoder or decoder (``BertModel``, ``LlamaModel``, ...): hooks on its layer
  list; for BERT the states equal transformers' own ``hidden_states``; for Llama-style models the last one is the raw
  residual stream, before the final norm that ``hidden_states[-1]`` applies.

:class:`TokenReadout` is a shared readout D (optional LayerNorm, then a linear map) applied per token or to a pooled
token.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
from torch import Tensor, nn

from icml26.common.nn import TinyGPT, blocks_of
from icml26.common.validation import choice, int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed

__all__ = ["EncoderLayers", "LayerwiseModel", "TinyGPTLayers", "TokenReadout", "perturbed_state", "seeded_init_"]

POOLS = ("none", "last", "first", "mean")


def seeded_init_(module: nn.Module, *, seed: int, std: float = 0.02) -> nn.Module:
    """Re-draw every Linear/Embedding weight of ``module`` from N(0, ``std``²) with a generator seeded by ``seed``;
    biases 0, norm weights 1 (the global RNG is not touched). Used by the [P07] experiment models; returns ``module``."""
    g = torch.Generator().manual_seed(check_seed(seed))
    s = real(std, "std", lo=0.0, lo_open=True)
    with torch.no_grad():
        for _, m in sorted(module.named_modules(), key=lambda kv: kv[0]):
            w = getattr(m, "weight", None)
            b = getattr(m, "bias", None)
            if isinstance(m, (nn.Linear, nn.Embedding)) and isinstance(w, Tensor):
                w.copy_(torch.randn(w.shape, generator=g, dtype=torch.float64).to(w.dtype) * s)
            elif "norm" in type(m).__name__.lower() and isinstance(w, Tensor):
                w.fill_(1.0)
            if isinstance(b, Tensor) and not isinstance(m, nn.Embedding):
                b.zero_()
    return module


class LayerwiseModel(nn.Module):
    """A stack of L blocks whose states z_0..z_L the [P07] trainer reads (the per-layer losses ℓ_l = ℓ(D(z_l), y)).

    Subclasses implement :meth:`layer_states` and :meth:`layer_modules`; ``input_ndim`` (when not ``None``) is the
    number of dimensions an input batch must have, checked by the trainer before a forward pass.
    """

    input_ndim: int | None = None

    def layer_states(self, x: Tensor) -> list[Tensor]:
        """[z_0, ..., z_L] for the batch ``x`` ([P07] §2: the intermediate representations)."""
        raise NotImplementedError

    def layer_modules(self) -> list[nn.Module]:
        """The L modules whose outputs are z_1..z_L, in order."""
        raise NotImplementedError

    @property
    def n_layers(self) -> int:
        """L, the number of blocks."""
        return len(self.layer_modules())

    def forward(self, x: Tensor) -> Tensor:
        """z_L, the last state."""
        return self.layer_states(x)[-1]


def _first_tensor(out: Any) -> Tensor:
    if isinstance(out, Tensor):
        return out
    if isinstance(out, (tuple, list)) and out and isinstance(out[0], Tensor):
        return out[0]
    raise TypeError(f"a block returned {type(out).__name__}, not a tensor or a tuple starting with one")


@contextlib.contextmanager
def _recording(modules: list[nn.Module]) -> Iterator[list[Tensor]]:
    """Record the input of ``modules[0]`` and the output of every module (hooks removed on exit)."""
    states: list[Tensor] = []

    def pre(_m: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        states.append(args[0] if args else kwargs["hidden_states"])

    def post(_m: nn.Module, _args: tuple[Any, ...], out: Any) -> None:
        states.append(_first_tensor(out))

    handles = [modules[0].register_forward_pre_hook(pre, with_kwargs=True)]
    handles += [m.register_forward_hook(post) for m in modules]
    try:
        yield states
    finally:
        for h in handles:
            h.remove()


class TinyGPTLayers(LayerwiseModel):
    """[P07] layerwise view of a :class:`~icml26.common.nn.TinyGPT` (its blocks from :func:`blocks_of`).

    Without ``embed`` the input is a (B, T) batch of token ids, run through ``gpt.hidden`` while forward hooks on the
    blocks record z_0..z_L (the residual stream, before the final norm). With ``embed`` (a module mapping (B, T, ...)
    inputs to (B, T, d_model)) the input is continuous: z_0 = embed(x) plus the model's position table, then the
    same blocks. Attention is causal, so a sequence-level readout reads the last token.
    """

    def __init__(self, gpt: TinyGPT, *, embed: nn.Module | None = None) -> None:
        super().__init__()
        if not isinstance(gpt, TinyGPT):
            raise TypeError(f"gpt must be a TinyGPT, got {type(gpt).__name__}")
        if embed is not None and not isinstance(embed, nn.Module):
            raise TypeError(f"embed must be an nn.Module or None, got {type(embed).__name__}")
        self.gpt = gpt
        self.embed = embed
        self.input_ndim = 2 if embed is None else 3

    def layer_modules(self) -> list[nn.Module]:
        """The TinyGPT blocks."""
        return list(blocks_of(self.gpt))

    def layer_states(self, x: Tensor) -> list[Tensor]:
        """[z_0, ..., z_L] ([P07] §2) for token ids (B, T) or, with ``embed``, continuous inputs (B, T, ...)."""
        blocks = self.layer_modules()
        if self.embed is None:
            with _recording(blocks) as states:
                try:
                    self.gpt.hidden(x)
                except ValueError as exc:  # TinyGPT's own input checks
                    raise ValueError(f"x: {exc}") from exc
            return list(states)
        h = self.embed(x)
        T = h.shape[1]
        if T > self.gpt.cfg.block_size:
            raise ValueError(f"x: sequence length {T} exceeds block_size {self.gpt.cfg.block_size}")
        pos = torch.arange(T, device=h.device)
        if self.gpt.wpe is not None:
            h = h + self.gpt.wpe(pos)
        elif self.gpt.cfg.pos == "sinusoidal":
            table: Tensor = self.gpt.get_buffer("sin_table")
            h = h + table[:T].to(h.dtype)
        states = [h]
        for blk in blocks:
            h = blk(h, pos)
            states.append(h)
        return states


def _layer_list(model: nn.Module) -> nn.ModuleList:
    """The encoder's block list: the ModuleList of ``config.num_hidden_layers`` modules (the first in module order)."""
    cfg = getattr(model, "config", None)
    want = getattr(cfg, "num_hidden_layers", None)
    for _, m in model.named_modules():
        if isinstance(m, nn.ModuleList) and len(m) and (want is None or len(m) == want):
            return m
    raise TypeError(f"encoder: found no list of {want} layers in {type(model).__name__}")


class EncoderLayers(LayerwiseModel):
    """[P07] layerwise view of a transformers model (``BertModel``, ``LlamaModel``, ... with a layer list).

    z_0 is the input of the first layer (BERT: the embeddings' output), z_l the output of layer l, recorded with hooks
    (so a perturbation hook on layer l shows in z_l and everything after it). Without ``embed`` the input is token ids
    (``input_ids``); with ``embed`` continuous inputs go in as ``inputs_embeds = embed(x)``.
    """

    def __init__(self, encoder: nn.Module, *, embed: nn.Module | None = None) -> None:
        super().__init__()
        if not isinstance(encoder, nn.Module):
            raise TypeError(f"encoder must be a transformers model (nn.Module), got {type(encoder).__name__}")
        if embed is not None and not isinstance(embed, nn.Module):
            raise TypeError(f"embed must be an nn.Module or None, got {type(embed).__name__}")
        self.encoder = encoder
        self.embed = embed
        self._layers = _layer_list(encoder)
        self.input_ndim = 2 if embed is None else 3

    def layer_modules(self) -> list[nn.Module]:
        """The encoder's layers."""
        return list(self._layers)

    def layer_states(self, x: Tensor) -> list[Tensor]:
        """[z_0, ..., z_L] ([P07] §2) from hooks on the encoder's layers."""
        with _recording(self.layer_modules()) as states:
            if self.embed is None:
                self.encoder(input_ids=x)
            else:
                self.encoder(inputs_embeds=self.embed(x))
        return list(states)


@contextlib.contextmanager
def perturbed_state(model: LayerwiseModel, *, layer: int, scale: float, generator: torch.Generator
                    ) -> Iterator[None]:
    """Inside the block, z_layer ← z_layer + scale · rms(z_layer) · ξ, ξ ~ N(0, I) from ``generator``.

    The robustness test of [P07] (perturbations of an intermediate representation, as in the predecessor's additive
    layer-output noise): ``rms`` is per token (over the last axis), so ``scale`` is relative. ``layer`` in [1, L].
    """
    if not isinstance(model, LayerwiseModel):
        raise TypeError(f"model must be a LayerwiseModel, got {type(model).__name__}")
    mods = model.layer_modules()
    k = int_at_least(layer, "layer", 1, hi=len(mods))
    s = real(scale, "scale", lo=0.0)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")

    def hook(_m: nn.Module, _args: tuple[Any, ...], out: Any) -> Any:
        h = _first_tensor(out)
        rms = h.pow(2).mean(-1, keepdim=True).sqrt()
        noisy = h + s * rms * torch.randn(h.shape, generator=generator, dtype=h.dtype)
        return noisy if isinstance(out, Tensor) else (noisy, *out[1:])

    handle = mods[k - 1].register_forward_hook(hook)
    try:
        yield
    finally:
        handle.remove()


class TokenReadout(nn.Module):
    """A shared readout D of [P07] §2: ``Linear(LayerNorm(z))`` per token (``pool="none"``) or of one pooled token
    (``"last"`` for a causal stack, ``"first"`` for a [CLS] token, ``"mean"``); weights drawn from ``seed``."""

    def __init__(self, d_in: int, d_out: int, *, pool: str = "none", norm: bool = True, seed: int) -> None:
        super().__init__()
        self.pool = choice(pool, "pool", POOLS)
        d_in, d_out = positive_int(d_in, "d_in"), positive_int(d_out, "d_out")
        if not isinstance(norm, bool):
            raise TypeError(f"norm must be a bool, got {type(norm).__name__}")
        with torch.random.fork_rng(devices=[]):
            self.norm = nn.LayerNorm(d_in) if norm else nn.Identity()
            self.proj = nn.Linear(d_in, d_out)
        seeded_init_(self, seed=seed, std=d_in ** -0.5)

    def forward(self, z: Tensor) -> Tensor:
        if self.pool == "last":
            z = z[:, -1]
        elif self.pool == "first":
            z = z[:, 0]
        elif self.pool == "mean":
            z = z.mean(1)
        return self.proj(self.norm(z))
