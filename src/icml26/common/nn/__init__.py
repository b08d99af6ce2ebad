"""Small neural-network building blocks shared by the transformer papers (torch imported here, never by ``icml26``).

``TinyGPT`` is a nanoGPT-style decoder whose blocks are swappable through :class:`GPTConfig`: pre-/post-/sandwich
(Gemma-style) normalisation, LayerNorm or RMSNorm, GELU/ReLU/SiLU or gated (SwiGLU/GeGLU/ReGLU) MLPs, learned,
sinusoidal or rotary positions, an optional mixture-of-experts MLP, sequential or parallel (GPT-J) blocks.
"""

from icml26.common.nn.blocks import MLP, Attention, Block, MoE, RMSNorm, apply_rope, experts_of, sinusoidal_positions
from icml26.common.nn.gpt import GPTConfig, TinyGPT, blocks_of

__all__ = [
    "MLP",
    "Attention",
    "Block",
    "GPTConfig",
    "MoE",
    "RMSNorm",
    "TinyGPT",
    "apply_rope",
    "blocks_of",
    "experts_of",
    "sinusoidal_positions",
]
