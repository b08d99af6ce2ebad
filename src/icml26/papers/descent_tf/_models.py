"""The small models of the [P07] experiments, each drawn from an explicit seed (global RNGs untouched): a randomly
initialised transformers ``BertModel`` or a :class:`~icml26.common.nn.TinyGPT` for the digit tasks, LISTA for
sparse coding. Every model comes with its shared readout D."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.validation import choice, positive_int
from icml26.common.validation import seed as check_seed
from icml26.papers.descent_tf._layers import (
    POOLS,
    EncoderLayers,
    LayerwiseModel,
    TinyGPTLayers,
    TokenReadout,
    seeded_init_,
)
from icml26.papers.descent_tf._lista import LISTA

__all__ = ["ENCODERS", "bert_encoder", "sequence_model"]

ENCODERS = ("bert", "tinygpt")


def bert_encoder(*, hidden_size: int, num_layers: int, num_heads: int, intermediate_size: int, max_positions: int,
                 seed: int) -> nn.Module:
    """A randomly initialised transformers ``BertModel`` (no pooler, no dropout; weights N(0, 0.02²) from ``seed``),
    the "conventional transformer encoder" of [P07] at a small size (needs the ``models`` extra)."""
    dims = {k: positive_int(v, k) for k, v in (("hidden_size", hidden_size), ("num_layers", num_layers),
                                                ("num_heads", num_heads), ("intermediate_size", intermediate_size),
                                                ("max_positions", max_positions))}
    s = check_seed(seed)
    if dims["hidden_size"] % dims["num_heads"]:
        raise ValueError(f"hidden_size ({hidden_size}) must be a multiple of num_heads ({num_heads})")
    from transformers import BertConfig, BertModel

    cfg = BertConfig(vocab_size=2, hidden_size=dims["hidden_size"], num_hidden_layers=dims["num_layers"],
                     num_attention_heads=dims["num_heads"], intermediate_size=dims["intermediate_size"],
                     max_position_embeddings=dims["max_positions"], type_vocab_size=1, hidden_dropout_prob=0.0,
                     attention_probs_dropout_prob=0.0)
    with torch.random.fork_rng(devices=[]):  # the constructor's own init draws from the global RNG
        model = BertModel(cfg, add_pooling_layer=False)
    return seeded_init_(model, seed=s).eval()


def sequence_model(*, encoder: str, d_in: int, d_out: int, seq_len: int, n_layers: int, d_model: int, n_heads: int,
                   pool: str, seed: int) -> tuple[LayerwiseModel, nn.Module]:
    """A transformer over sequences of ``d_in``-vectors and its shared readout D ([P07] experiments).

    ``encoder``: ``"bert"`` (bidirectional :func:`bert_encoder`, read through :class:`EncoderLayers`) or
    ``"tinygpt"`` (causal :class:`TinyGPT`, read through :class:`TinyGPTLayers`); the input is mapped to ``d_model``
    by a linear embedding. The readout is a :class:`TokenReadout` with ``pool``.
    """
    kind = choice(encoder, "encoder", ENCODERS)
    s = check_seed(seed)
    choice(pool, "pool", POOLS)
    d_in, d_out, seq_len, n_layers, d_model, n_heads = (positive_int(v, k) for k, v in (
        ("d_in", d_in), ("d_out", d_out), ("seq_len", seq_len), ("n_layers", n_layers), ("d_model", d_model),
        ("n_heads", n_heads)))
    if d_model % n_heads:
        raise ValueError(f"d_model ({d_model}) must be a multiple of n_heads ({n_heads})")
    with torch.random.fork_rng(devices=[]):
        embed = nn.Linear(d_in, d_model)
    seeded_init_(embed, seed=s + 1, std=d_in ** -0.5)
    if kind == "bert":
        bert = bert_encoder(hidden_size=d_model, num_layers=n_layers, num_heads=n_heads,
                            intermediate_size=2 * d_model, max_positions=seq_len, seed=s)
        model: LayerwiseModel = EncoderLayers(bert, embed=embed)
    else:
        gpt = TinyGPT(GPTConfig(vocab_size=1, block_size=seq_len, n_layer=n_layers,
                                n_head=n_heads, d_model=d_model, tie_weights=False), seed=s)
        model = TinyGPTLayers(gpt, embed=embed)
    return model, TokenReadout(d_model, d_out, pool=pool, seed=s + 2)


def lista_model(dictionary: np.ndarray, *, n_layers: int, sparsity: float) -> tuple[LayerwiseModel, nn.Module]:
    """LISTA from the known dictionary, read out as is (D = identity: the state is the code estimate) ([P07])."""
    return LISTA(dictionary, n_layers=n_layers, sparsity=sparsity), nn.Identity()
