"""Tiny random MoE models of every supported class for the [P34] tests (built once per module, a second each)."""

import pytest
import torch

from icml26.common.nn import GPTConfig, TinyGPT

VOCAB = 32


def _quiet_hf():
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()


def _hf(kind: str, *, layers: int = 3, seed: int = 0):
    _quiet_hf()
    from transformers import (
        MixtralConfig,
        MixtralForCausalLM,
        OlmoeConfig,
        OlmoeForCausalLM,
        Qwen2MoeConfig,
        Qwen2MoeForCausalLM,
    )

    common = {"vocab_size": VOCAB, "hidden_size": 16, "intermediate_size": 16, "num_hidden_layers": layers,
              "num_attention_heads": 2, "num_key_value_heads": 2, "num_experts_per_tok": 2, "eos_token_id": None,
              "pad_token_id": None, "bos_token_id": None, "max_position_embeddings": 64}
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if kind == "olmoe":
            m = OlmoeForCausalLM(OlmoeConfig(num_experts=8, **common))
        elif kind == "mixtral":
            m = MixtralForCausalLM(MixtralConfig(num_local_experts=8, **common))
        else:
            m = Qwen2MoeForCausalLM(Qwen2MoeConfig(num_experts=8, moe_intermediate_size=16,
                                                   shared_expert_intermediate_size=16, **common))
    return m.eval()


def _tiny(n_experts: int = 8, *, seed: int = 0, dtype=torch.float32) -> TinyGPT:
    m = TinyGPT(GPTConfig(vocab_size=VOCAB, block_size=64, n_layer=3, n_head=2, d_model=16, n_experts=n_experts,
                          top_k=2), seed=seed).eval()
    return m.to(dtype)


@pytest.fixture(scope="module")
def olmoe():
    return _hf("olmoe")


@pytest.fixture(scope="module")
def mixtral():
    return _hf("mixtral")


@pytest.fixture(scope="module")
def qwen2moe():
    return _hf("qwen2moe")


@pytest.fixture(scope="module")
def tiny():
    return _tiny()


@pytest.fixture(scope="module")
def models(olmoe, mixtral, qwen2moe, tiny):
    return {"olmoe": olmoe, "mixtral": mixtral, "qwen2moe": qwen2moe, "tinygpt": tiny}


@pytest.fixture
def ids():
    return torch.randint(0, VOCAB, (2, 12), generator=torch.Generator().manual_seed(1))


@pytest.fixture(scope="session")
def make_hf():
    return _hf


@pytest.fixture(scope="session")
def make_tiny():
    return _tiny
