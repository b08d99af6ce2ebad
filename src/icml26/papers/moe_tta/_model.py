"""The small OLMoE-class model of the [P34] reproduction: transformers' ``OlmoeForCausalLM`` at a tiny size (8
experts, top-2, its Switch-style load-balancing loss), randomly initialised and trained here on the in-context tasks
of :mod:`._tasks` (no pretrained MoE installs offline). The trained weights are cached under the cache folder
(``$ICML26_CACHE_DIR``), keyed by every field of the config and the library versions.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
from torch import nn

from icml26.common.cache import cache_root, materialise
from icml26.common.train import train
from icml26.papers.moe_tta._tasks import VOCAB, make_sequences, task_split

__all__ = ["build_olmoe", "olmoe_config", "split_of", "trained_olmoe"]

log = logging.getLogger(__name__)

#: bumped when what the cached files hold changes
FORMAT = 1


def split_of(cfg: Any) -> Any:
    """The task split of a model config (fields ``shift_held``, ``cipher_keys``, ``cipher_held``)."""
    return task_split(shift_held=cfg.shift_held, cipher_keys=cfg.cipher_keys, cipher_held=cfg.cipher_held)


def olmoe_config(cfg: Any) -> Any:
    """An ``OlmoeConfig`` from a model config (d_model, n_layers, n_heads, d_expert, n_experts, top_k, aux_coef)."""
    from transformers import OlmoeConfig

    oc = OlmoeConfig(vocab_size=VOCAB, hidden_size=cfg.d_model, intermediate_size=cfg.d_expert,
                     num_hidden_layers=cfg.n_layers, num_attention_heads=cfg.n_heads,
                     num_key_value_heads=cfg.n_heads, num_experts=cfg.n_experts,
                     num_experts_per_tok=cfg.top_k, max_position_embeddings=cfg.max_positions,
                     router_aux_loss_coef=cfg.aux_coef, output_router_logits=True, tie_word_embeddings=False,
                     pad_token_id=None, bos_token_id=None, eos_token_id=None)
    oc._experts_implementation = "eager"  # the per-expert loop: the fastest on a CPU at this size
    return oc


def build_olmoe(cfg: Any, *, seed: int) -> nn.Module:
    """[P34] a randomly initialised ``OlmoeForCausalLM`` (transformers' own init, from ``seed``; the global RNG
    is restored afterwards)."""
    from transformers import OlmoeForCausalLM
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(seed))
            model = OlmoeForCausalLM(olmoe_config(cfg))
    finally:
        hf_logging.set_verbosity(verbosity)
    return model.eval()


def _loss(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """Next-token CE on every position plus ``aux_coef`` × the load-balancing loss (transformers' own)."""
    return model(input_ids=x, labels=x).loss


def _train(cfg: Any) -> dict[str, torch.Tensor]:
    split = split_of(cfg)
    seqs, _ = make_sequences(split.train, n=cfg.train_seqs, pairs=cfg.train_pairs, table_seed=cfg.table_seed,
                             seed=cfg.train_seed)
    data = torch.from_numpy(seqs)
    model = build_olmoe(cfg, seed=cfg.train_seed)
    probe = data[: min(256, len(data))]

    def probe_loss(m: nn.Module) -> float:
        with torch.no_grad():
            return float(_loss(m, probe))

    res = train(model, [data], _loss, steps=cfg.steps, lr=cfg.lr, batch_size=cfg.batch, seed=cfg.train_seed,
                eval_every=cfg.steps, eval_fn=probe_loss, lr_schedule="cosine")
    log.info("trained the OLMoE model: %d steps, final probe loss %.4f", res.steps, res.best)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _key(cfg: Any) -> dict[str, Any]:
    import transformers

    return {"what": "olmoe", "format": FORMAT, "config": asdict(cfg), "transformers": transformers.__version__,
            "torch": torch.__version__.split("+")[0]}


def trained_olmoe(cfg: Any) -> nn.Module:
    """[P34] the trained OLMoE model of ``cfg`` (eval mode): from the cache folder where there is one, else trained
    now (deterministic for a fixed config: seeded data, init and minibatches)."""
    root = cache_root(None)
    if root is None:
        state = _train(cfg)
    else:
        key = _key(cfg)
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]

        def build(folder: Path) -> None:
            torch.save(_train(cfg), folder / "olmoe.pt")

        folder = materialise(root / "moe_tta" / f"olmoe-{digest}", key=key, build=build)
        state = torch.load(io.BytesIO((folder / "olmoe.pt").read_bytes()), weights_only=True)
    model = build_olmoe(cfg, seed=0)
    model.load_state_dict(state)
    return model.eval()
