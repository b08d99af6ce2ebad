"""The block architectures the claims test, and how their TinyGPTs get weights (random, or briefly trained).

Random weights: TinyGPT's GPT-2 init (N(0, 0.02)) leaves every activation nearly linear and the context's effect on
the logits tiny, so :func:`random_model` redraws matrices from N(0, 1/fan_in), norm scales from 1 + 0.3 N(0, 1) and
biases from 0.1 N(0, 1) (seeded): O(1) activations, a context that moves the logits by O(1), norm scales ≠ 1.
Trained weights: :func:`trained_model` fits a copy task (a random string, then the same string again), which needs
attention to the context, with :func:`icml26.common.train.train`.
"""

from __future__ import annotations

import torch

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.train import train

__all__ = ["ARCHITECTURES", "make_config", "random_model", "sample_pair", "trained_model"]

#: name -> the GPTConfig fields that define the block (the rest comes from :func:`make_config`)
ARCHITECTURES: dict[str, dict[str, object]] = {
    # Gemma: RMSNorm before and after attention and MLP (4 per block), GeGLU, rotary positions
    "gemma": {"norm": "rmsnorm", "norm_position": "sandwich", "mlp": "geglu", "pos": "rope"},
    # GPT-2: pre-LayerNorm, GELU MLP, learned positions
    "pre_ln": {"norm": "layernorm", "norm_position": "pre", "mlp": "gelu", "pos": "learned"},
    # original transformer: LayerNorm after each residual add (with bias), ReLU, sinusoidal positions
    "post_ln": {"norm": "layernorm", "norm_position": "post", "mlp": "relu", "pos": "sinusoidal", "bias": True},
    # GPT-J: attention and MLP in parallel on one LayerNorm
    "parallel": {"norm": "layernorm", "norm_position": "pre", "parallel": True, "mlp": "gelu", "pos": "rope"},
    # LLaMA-like: pre-RMSNorm, SwiGLU
    "gated": {"norm": "rmsnorm", "norm_position": "pre", "mlp": "swiglu", "pos": "rope"},
    # Mixtral-like: top-2 of 4 SwiGLU experts, Gemma's sandwich norms
    "moe": {"norm": "rmsnorm", "norm_position": "sandwich", "mlp": "swiglu", "pos": "rope", "n_experts": 4, "top_k": 2},
}


def make_config(arch: str, *, n_layer: int, d_model: int, n_head: int = 4, vocab_size: int = 64,
                block_size: int = 48) -> GPTConfig:
    """The :class:`GPTConfig` of architecture ``arch`` (a key of :data:`ARCHITECTURES`) at the given size."""
    if arch not in ARCHITECTURES:
        raise ValueError(f"arch must be one of {sorted(ARCHITECTURES)}, got {arch!r}")
    return GPTConfig(vocab_size=vocab_size, block_size=block_size, n_layer=n_layer, n_head=n_head, d_model=d_model,
                     **ARCHITECTURES[arch])  # type: ignore[arg-type]


def random_model(cfg: GPTConfig, *, seed: int, dtype: torch.dtype = torch.float64) -> TinyGPT:
    """A TinyGPT with O(1)-scale random weights drawn from ``seed`` (see the module docstring), cast to ``dtype``."""
    m = TinyGPT(cfg, seed=seed)
    g = torch.Generator().manual_seed(int(seed) + 7919)
    with torch.no_grad():
        for name, p in m.named_parameters():
            z = torch.randn(p.shape, generator=g, dtype=torch.float64)
            if p.ndim >= 2:
                p.copy_(z / p.shape[-1] ** 0.5)
            elif name.endswith("bias"):
                p.copy_(0.1 * z)
            else:
                p.copy_(1.0 + 0.3 * z)
    return m.to(dtype)


def copy_data(cfg: GPTConfig, *, n: int, half: int, seed: int) -> torch.Tensor:
    """``n`` rows ``s ‖ s`` with ``s`` uniform over the vocabulary, ``len(s) = half``: (n, 2·half) token ids."""
    g = torch.Generator().manual_seed(int(seed))
    s = torch.randint(0, cfg.vocab_size, (n, half), generator=g)
    return torch.cat([s, s], dim=1)


def trained_model(cfg: GPTConfig, *, seed: int, steps: int, dtype: torch.dtype = torch.float64) -> tuple[TinyGPT, float]:
    """A TinyGPT trained ``steps`` AdamW steps (float32, lr 3e-3, batch 32) on the copy task of ``half`` =
    ``block_size // 2`` tokens; returns the model cast to ``dtype`` and its final loss on the second half (nats)."""
    half = cfg.block_size // 2
    m = TinyGPT(cfg, seed=seed)
    data = copy_data(cfg, n=2048, half=half, seed=seed + 1)

    def loss_fn(model: TinyGPT, rows: torch.Tensor) -> torch.Tensor:
        logits = model(rows[:, :-1])[:, half - 1:]
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), rows[:, half:].reshape(-1))

    train(m, [data], loss_fn, steps=steps, lr=3e-3, batch_size=32, seed=seed, eval_every=max(1, steps))
    with torch.no_grad():
        final = float(loss_fn(m, data[:256]))
    return m.to(dtype), final


def sample_pair(cfg: GPTConfig, *, n_context: int, n_query: int, seed: int, copy: bool = False
                ) -> tuple[torch.Tensor, torch.Tensor]:
    """A (context, query) pair of token ids from ``seed``: uniform tokens, or (``copy``) a random string as the
    context and its first ``n_query`` tokens as the query (the copy task's prompt)."""
    g = torch.Generator().manual_seed(int(seed))
    c = torch.randint(0, cfg.vocab_size, (n_context,), generator=g)
    if copy:
        return c, c[:n_query].clone()
    return c, torch.randint(0, cfg.vocab_size, (n_query,), generator=g)
