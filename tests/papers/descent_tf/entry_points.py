"""The public entry points of [P07] for the bad-input conformance test.

Calls that train or hook a model get a fresh tiny model each, so that one call does not change what the next sees.
"""

from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.descent_tf import (
    LISTA,
    DescentConstrainedTrainer,
    TinyGPTLayers,
    TokenReadout,
    bert_encoder,
    descent_pairs,
    digit_rows,
    digits_split,
    gaussian_dictionary,
    moving_digits,
    perturbed_state,
    resilient_equilibrium,
    sequence_model,
    sparse_codes,
)
from support.badinput import Entry

_A = gaussian_dictionary(4, 6, seed=0)
_Y, _X = sparse_codes(_A, count=8, density=0.3, noise=0.01, seed=0)
_IDS = np.random.default_rng(0).integers(0, 7, size=(4, 5))
_LAB = np.array([0, 1, 2, 1])
_IMG = digits_split(test_size=10, seed=0)[2]


def _mse(pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return (pred - y).pow(2).mean(1)


def _ce(pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(pred, y, reduction="none")


def _lista_trainer(**kw: Any) -> DescentConstrainedTrainer:
    return DescentConstrainedTrainer(LISTA(_A, n_layers=2), nn.Identity(), _mse, **{"seed": 0, **kw})


def _gpt_trainer(**kw: Any) -> DescentConstrainedTrainer:
    gpt = TinyGPT(GPTConfig(vocab_size=7, block_size=5, n_layer=2, n_head=2, d_model=8), seed=0)
    return DescentConstrainedTrainer(TinyGPTLayers(gpt), TokenReadout(8, 3, pool="last", seed=0), _ce, seed=0, **kw)


def fit_fresh(**kw: Any) -> list[float]:
    return _lista_trainer().fit(**kw).objective


def evaluate_fresh(**kw: Any) -> np.ndarray:
    return _lista_trainer().evaluate(**kw)


def layer_losses_fresh(**kw: Any) -> torch.Tensor:
    return _gpt_trainer().layer_losses(**kw)


def perturbed_fresh(**kw: Any) -> None:
    model = LISTA(_A, n_layers=3)
    with perturbed_state(model, generator=torch.Generator().manual_seed(0), **kw):
        model.layer_states(torch.as_tensor(_Y))


ENTRY_POINTS = [
    Entry("DescentConstrainedTrainer", _lista_trainer,
          valid={"method": "constrained", "epsilon": 0.05, "dual_lr": 0.05, "dual_init": 0.0, "resilience": 1.0,
                 "slack_lr": 0.05, "lr": 1e-3, "optimizer": "adam", "weight_decay": 0.0, "grad_clip": 1.0, "seed": 0},
          kinds={"method": "str", "epsilon": "real", "dual_lr": "nonneg", "dual_init": "nonneg",
                 "resilience": "posreal", "slack_lr": "nonneg", "lr": "posreal", "optimizer": "str",
                 "weight_decay": "nonneg", "grad_clip": "posreal", "seed": "seed"}),
    Entry("DescentConstrainedTrainer.fit", fit_fresh, valid={"x": _Y, "y": _X, "epochs": 1, "batch_size": 4},
          kinds={"x": "array", "y": "array", "epochs": "int", "batch_size": "int"}),
    Entry("DescentConstrainedTrainer.evaluate", evaluate_fresh, valid={"x": _Y, "y": _X, "batch_size": 4},
          kinds={"x": "array", "y": "array", "batch_size": "int"}),
    Entry("DescentConstrainedTrainer.layer_losses (token ids)", layer_losses_fresh, valid={"x": _IDS, "y": _LAB},
          kinds={"x": "array", "y": "array"}),
    Entry("perturbed_state", perturbed_fresh, valid={"layer": 2, "scale": 0.5},
          kinds={"layer": "int", "scale": "nonneg"}),
    Entry("LISTA", LISTA, valid={"dictionary": _A, "n_layers": 2, "sparsity": 0.05},
          kinds={"dictionary": "array", "n_layers": "int", "sparsity": "nonneg"}),
    Entry("TokenReadout", TokenReadout, valid={"d_in": 4, "d_out": 2, "pool": "last", "seed": 0},
          kinds={"d_in": "int", "d_out": "int", "pool": "str", "seed": "seed"}),
    Entry("bert_encoder", bert_encoder,
          valid={"hidden_size": 8, "num_layers": 1, "num_heads": 2, "intermediate_size": 8, "max_positions": 4,
                 "seed": 0},
          kinds={"hidden_size": "int", "num_layers": "int", "num_heads": "int", "intermediate_size": "int",
                 "max_positions": "int", "seed": "seed"}),
    Entry("sequence_model", sequence_model,
          valid={"encoder": "tinygpt", "d_in": 3, "d_out": 2, "seq_len": 4, "n_layers": 1, "d_model": 8,
                 "n_heads": 2, "pool": "last", "seed": 0},
          kinds={"encoder": "str", "d_in": "int", "d_out": "int", "seq_len": "int", "n_layers": "int",
                 "d_model": "int", "n_heads": "int", "pool": "str", "seed": "seed"}),
    Entry("resilient_equilibrium", resilient_equilibrium, valid={"violation": np.array([0.2, -0.1]), "resilience": 2.0},
          kinds={"violation": "array", "resilience": "posreal"}),
    Entry("descent_pairs", descent_pairs, valid={"layer_losses": np.array([1.0, 0.5, 0.6])},
          kinds={"layer_losses": "array"}),
    Entry("digits_split", digits_split, valid={"test_size": 10, "seed": 0}, kinds={"test_size": "int", "seed": "seed"}),
    Entry("moving_digits", moving_digits, valid={"images": _IMG, "frames": 3, "speed": 1, "sigma": 0.3, "seed": 0},
          kinds={"images": "array", "frames": "int", "speed": "int", "sigma": "nonneg", "seed": "seed"}),
    Entry("digit_rows", digit_rows, valid={"images": _IMG, "noise": 0.1, "shift": 1, "seed": 0},
          kinds={"images": "array", "noise": "nonneg", "shift": "int", "seed": "seed"}),
    Entry("gaussian_dictionary", gaussian_dictionary, valid={"m": 3, "n": 4, "seed": 0},
          kinds={"m": "int", "n": "int", "seed": "seed"}),
    Entry("sparse_codes", sparse_codes,
          valid={"dictionary": _A, "count": 5, "density": 0.2, "noise": 0.01, "seed": 0},
          kinds={"dictionary": "array", "count": "int", "density": "posreal", "noise": "nonneg", "seed": "seed"}),
]
