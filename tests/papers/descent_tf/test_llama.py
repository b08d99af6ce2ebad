"""[P07] on a transformers causal LM of SmolLM2's class (a tiny random ``LlamaForCausalLM``): the trainer runs
unchanged on the real architecture, with per-layer classification heads (the paper's fine-tuning setting, part b)."""

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from icml26.papers.descent_tf import DescentConstrainedTrainer, EncoderLayers, TokenReadout

pytest.importorskip("transformers")
from icml26.common.models import tiny_causal_lm  # noqa: E402


def _ce(pred, y):
    return F.cross_entropy(pred, y, reduction="none")


def test_constrained_fine_tuning_of_a_llama_with_per_layer_heads():
    lm, tok = tiny_causal_lm(seed=0, hidden_size=32, num_layers=3, num_heads=2, num_kv_heads=1,
                             intermediate_size=64, max_positions=16)
    texts = ["good day", "bad day!", "fine job", "poor job"] * 4
    ids = np.array([tok(t)["input_ids"][:6] + [0] * (6 - len(tok(t)["input_ids"][:6])) for t in texts])
    labels = np.array([0, 1, 0, 1] * 4)
    model = EncoderLayers(lm)
    assert model.n_layers == 3
    heads = [TokenReadout(32, 2, pool="last", seed=i) for i in range(4)]  # one head per state z_0..z_3
    before = lm.model.layers[1].mlp.down_proj.weight.detach().clone()
    tr = DescentConstrainedTrainer(model, heads, _ce, epsilon=0.05, dual_lr=0.5, lr=1e-2, seed=0)
    hist = tr.fit(ids, labels, epochs=3, batch_size=8)
    lam = np.array(hist.lambdas)
    assert lam.shape == (3, 3) and np.isfinite(lam).all() and (lam >= 0).all()  # dual feasibility
    assert np.isfinite(hist.layer_losses).all() and np.array(hist.slacks).max() == 0.0  # hard constraints
    assert not torch.equal(before, lm.model.layers[1].mlp.down_proj.weight)  # the LM's own weights are trained
    # the constraint values are the logged losses' residuals: g_l = ℓ_l − (1 − ε) ℓ_{l−1}
    losses = tr.evaluate(ids, labels)
    g = tr.constraint_values(torch.as_tensor(losses)).numpy()
    np.testing.assert_allclose(g, losses[1:] - 0.95 * losses[:-1], rtol=1e-12)
