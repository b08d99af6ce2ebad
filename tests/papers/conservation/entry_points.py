"""The public entry points of [P04] for the bad-input conformance test."""

import numpy as np
import torch

from icml26.common.models import tiny_causal_lm
from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.nn.blocks import MLP, Attention, MoE, RMSNorm
from icml26.papers.conservation import (
    TwoLayerNet,
    expected_corank,
    flow_rates,
    gating_rate_exact,
    law_corank,
    llama_float64,
    llama_flow_rates,
    llama_gd_drift,
    llama_random_symmetry_,
    markov_batches,
    model_laws,
    per_sample_jacobian,
    random_symmetry_,
    relative_drift,
    rope_commuting,
    rope_commuting_half,
    scale_hidden_units_,
    scale_llama_hidden_units_,
    scale_rmsnorm_,
    sgd_drift,
    shift_router_,
    thm47_counterexample,
    transform_llama_qk_,
    transform_qk_,
    transform_vo_,
)
from support.badinput import Entry

_cfg = GPTConfig(vocab_size=16, block_size=8, n_layer=1, n_head=2, d_model=8, d_ff=12, norm="rmsnorm", mlp="swiglu",
                 pos="rope")
_model = TinyGPT(_cfg, seed=0).double()
_batches = markov_batches(vocab_size=16, seq_len=8, batch_size=2, n_batches=1, seed=0)
_x, _y = _batches[0]
_mlp = MLP(8, 12, kind="swiglu", bias=False).double()
_attn = Attention(_cfg).double()
_moe = MoE(8, 12, kind="swiglu", bias=False, n_experts=2, top_k=2).double()
_norm = RMSNorm(8).double()
_net = TwoLayerNet.random(d=3, m=2, c=1, activation="gelu", seed=0)
_ce = thm47_counterexample()
_eye = np.broadcast_to(np.eye(4), (2, 4, 4)).copy()
_llama = llama_float64(tiny_causal_lm(seed=0, hidden_size=16, num_layers=1, num_heads=4, num_kv_heads=2,
                                      intermediate_size=8)[0])
_lmlp, _lattn = _llama.model.layers[0].mlp, _llama.model.layers[0].self_attn
_ids = torch.arange(6, dtype=torch.int64).view(1, 6)

ENTRY_POINTS = [
    Entry("markov_batches", markov_batches,
          valid={"vocab_size": 8, "seq_len": 4, "batch_size": 2, "n_batches": 1, "seed": 0, "concentration": 0.3},
          kinds={"vocab_size": "int", "seq_len": "int", "batch_size": "int", "n_batches": "int", "seed": "seed",
                 "concentration": "real"}),
    Entry("sgd_drift", sgd_drift, valid={"model": _model, "batches": _batches, "quantities": model_laws, "lr": 1e-3,
                                         "steps": 1},
          kinds={"lr": "real", "steps": "int"}),
    Entry("flow_rates", flow_rates, valid={"model": _model, "x": _x, "y": _y, "quantities": model_laws,
                                           "n_probes": 1, "seed": 0},
          kinds={"x": "array", "y": "array", "n_probes": "int", "seed": "seed"}),
    Entry("relative_drift", relative_drift, valid={"h0": np.ones(3), "h1": np.full(3, 2.0)},
          kinds={"h0": "array", "h1": "array"}),
    Entry("random_symmetry_", random_symmetry_, valid={"model": _model, "seed": 0, "spread": 0.1},
          kinds={"seed": "seed", "spread": "real"}),
    Entry("rope_commuting", rope_commuting, valid={"a": np.ones((2, 2)), "b": np.zeros((2, 2))},
          kinds={"a": "array", "b": "array"}),
    Entry("scale_hidden_units_", scale_hidden_units_, valid={"mlp": _mlp, "s": np.ones(12)}, kinds={"s": "array"}),
    Entry("transform_qk_", transform_qk_, valid={"attn": _attn, "E": _eye}, kinds={"E": "array"}),
    Entry("transform_vo_", transform_vo_, valid={"attn": _attn, "F": _eye}, kinds={"F": "array"}),
    Entry("shift_router_", shift_router_, valid={"moe": _moe, "c": np.zeros(8)}, kinds={"c": "array"}),
    Entry("scale_rmsnorm_", scale_rmsnorm_, valid={"norm": _norm, "consumers": [_attn.q], "s": np.ones(8)},
          kinds={"s": "array"}),
    Entry("TwoLayerNet.random", TwoLayerNet.random,
          valid={"d": 3, "m": 2, "c": 1, "activation": "gelu", "seed": 0},
          kinds={"d": "int", "m": "int", "c": "int", "activation": "str", "seed": "seed"}),
    Entry("law_corank", law_corank, valid={"net": _net, "n_samples": 8, "seed": 0, "rtol": 1e-10},
          kinds={"n_samples": "int", "seed": "seed", "rtol": "real"}),
    Entry("per_sample_jacobian", per_sample_jacobian, valid={"net": _net, "X": np.ones((4, 3))}, kinds={"X": "array"}),
    Entry("expected_corank", expected_corank, valid={"activation": "relu", "d": 3, "m": 2, "c": 1},
          kinds={"activation": "str", "d": "int", "m": "int", "c": "int"}),
    Entry("rope_commuting_half", rope_commuting_half, valid={"a": np.ones((2, 2)), "b": np.zeros((2, 2))},
          kinds={"a": "array", "b": "array"}),
    Entry("scale_llama_hidden_units_", scale_llama_hidden_units_, valid={"mlp": _lmlp, "s": np.ones(8),
                                                                         "branch": "up_proj"},
          kinds={"s": "array", "branch": "str"}),
    Entry("transform_llama_qk_", transform_llama_qk_, valid={"attn": _lattn, "E": _eye}, kinds={"E": "array"}),
    Entry("llama_random_symmetry_", llama_random_symmetry_, valid={"model": _llama, "seed": 0, "spread": 0.1},
          kinds={"seed": "seed", "spread": "real"}),
    Entry("llama_flow_rates", llama_flow_rates, valid={"model": _llama, "input_ids": _ids},
          kinds={"input_ids": "array"}),
    Entry("llama_gd_drift", llama_gd_drift, valid={"model": _llama, "input_ids": _ids, "lr": 1e-4, "steps": 1},
          kinds={"input_ids": "array", "lr": "real", "steps": "int"}),
    Entry("gating_rate_exact", gating_rate_exact,
          valid={"router": _ce["router"], "experts": _ce["experts"], "x": _ce["x"], "y": _ce["y"],
                 "gating": "softmax"},
          kinds={"x": "array", "y": "array", "gating": "str"}),
]
