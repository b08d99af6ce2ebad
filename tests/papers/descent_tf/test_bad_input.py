"""[P07] refusals beyond the generic table: a wrong layer index, readouts that do not fit, NaN, a model or loss of
the wrong shape. Each is a ValueError/TypeError naming what is wrong, never a silent wrong answer."""

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.descent_tf import (
    LISTA,
    DescentConstrainedTrainer,
    EncoderLayers,
    TinyGPTLayers,
    TokenReadout,
    descent_pairs,
    gaussian_dictionary,
    perturbed_state,
    sparse_codes,
)

A = gaussian_dictionary(4, 6, seed=0)
Y, X = sparse_codes(A, count=8, density=0.3, noise=0.01, seed=0)


def mse(pred, y):
    return (pred - y).pow(2).mean(1)


def lista(**kw):
    return DescentConstrainedTrainer(LISTA(A, n_layers=3), nn.Identity(), mse, seed=0, **kw)


@pytest.mark.parametrize("layer", [0, 4, -1, 99])
def test_wrong_layer_index(layer):
    with pytest.raises(ValueError, match=r"layer must be an int in \[1, 3\]"):
        with perturbed_state(LISTA(A, n_layers=3), layer=layer, scale=0.1, generator=torch.Generator()):
            pass


def test_perturbation_needs_a_layerwise_model_and_a_generator():
    with pytest.raises(TypeError, match="model must be a LayerwiseModel"):
        with perturbed_state(nn.Linear(2, 2), layer=1, scale=0.1, generator=torch.Generator()):  # type: ignore[arg-type]
            pass
    with pytest.raises(TypeError, match="generator must be a torch.Generator"):
        with perturbed_state(LISTA(A, n_layers=3), layer=1, scale=0.1, generator=0):  # type: ignore[arg-type]
            pass


def test_mismatched_readouts():
    with pytest.raises(ValueError, match=r"readout: 3 readouts for 4 states z_0..z_3"):
        DescentConstrainedTrainer(LISTA(A, n_layers=3), [nn.Identity()] * 3, mse, seed=0)
    with pytest.raises(TypeError, match="readout must be an nn.Module"):
        DescentConstrainedTrainer(LISTA(A, n_layers=3), [nn.Identity(), "head"], mse, seed=0)  # type: ignore[list-item]
    wrong_width = DescentConstrainedTrainer(LISTA(A, n_layers=3), nn.Linear(6, 5), mse, seed=0)
    with pytest.raises(ValueError, match=r"readout: its output \(8, 5\) does not fit the targets y \(8, 6\)"):
        wrong_width.layer_losses(Y, X)
    gpt = TinyGPT(GPTConfig(vocab_size=7, block_size=5, n_layer=2, n_head=2, d_model=8), seed=0)
    too_few_classes = DescentConstrainedTrainer(TinyGPTLayers(gpt), TokenReadout(8, 2, pool="last", seed=0),
                                                lambda p, y: F.cross_entropy(p, y, reduction="none"), seed=0)
    with pytest.raises(ValueError, match="readout: its output"):
        too_few_classes.layer_losses(np.zeros((3, 5), dtype=np.int64), np.array([0, 1, 4]))


@pytest.mark.parametrize("arg", ["x", "y"])
def test_nan_inputs_and_targets(arg):
    bad = {"x": Y.copy(), "y": X.copy()}
    bad[arg][0, 0] = np.nan
    for fn in (lambda tr: tr.fit(bad["x"], bad["y"], epochs=1, batch_size=4),
               lambda tr: tr.layer_losses(torch.as_tensor(bad["x"]), torch.as_tensor(bad["y"]))):
        with pytest.raises(ValueError, match=f"{arg} must be finite"):
            fn(lista())
    with pytest.raises(ValueError, match="layer_losses must be finite"):
        descent_pairs(np.array([1.0, np.nan]))


def test_lengths_shapes_and_token_ids():
    with pytest.raises(ValueError, match="y holds 7 targets for 8 inputs x"):
        lista().layer_losses(Y, X[:7])
    with pytest.raises(ValueError, match="x must be 2-dimensional"):
        lista().layer_losses(Y[None], X)
    with pytest.raises(ValueError, match="x must hold measurements of length 4"):
        lista().layer_losses(np.zeros((8, 5)), X)
    gpt = TinyGPT(GPTConfig(vocab_size=7, block_size=5, n_layer=2, n_head=2, d_model=8), seed=0)
    with pytest.raises(ValueError, match=r"x: token ids must lie in \[0, 7\)"):
        TinyGPTLayers(gpt).layer_states(torch.full((2, 5), 9))


def test_model_and_loss_must_fit_the_contract():
    with pytest.raises(TypeError, match="model must be an nn.Module with layer_states"):
        DescentConstrainedTrainer(nn.Linear(3, 3), nn.Identity(), mse, seed=0)
    with pytest.raises(TypeError, match="loss must be callable"):
        DescentConstrainedTrainer(LISTA(A, n_layers=2), nn.Identity(), "mse", seed=0)  # type: ignore[arg-type]
    mean_loss = DescentConstrainedTrainer(LISTA(A, n_layers=2), nn.Identity(), lambda p, y: (p - y).pow(2).mean(),
                                          seed=0)
    with pytest.raises(ValueError, match=r"loss must return one loss per sample, shape \(8,\)"):
        mean_loss.layer_losses(Y, X)
    with pytest.raises(TypeError, match="encoder: found no list of"):
        EncoderLayers(nn.Sequential(nn.Linear(2, 2)))
    with pytest.raises(TypeError, match="gpt must be a TinyGPT"):
        TinyGPTLayers(nn.Linear(2, 2))  # type: ignore[arg-type]


def test_seed_must_be_explicit():
    with pytest.raises(TypeError, match="seed must be an int"):
        DescentConstrainedTrainer(LISTA(A, n_layers=2), nn.Identity(), mse, seed=None)  # type: ignore[arg-type]
