"""[P05] on a transformers decoder (a tiny random Llama): Wanda pruning of every block linear, the MACKO swap, the
perplexity; oracles: the pruned weights' own zeros, the pruned dense fp16 model, transformers' own loss."""

from __future__ import annotations

import copy
import math

import pytest
import torch

pytest.importorskip("transformers")

from icml26.common.models import tiny_causal_lm  # noqa: E402
from icml26.papers.macko._real import block_linears, perplexity, to_macko, wanda_prune_model  # noqa: E402


@pytest.fixture(scope="module")
def llama():
    return tiny_causal_lm(seed=1, num_layers=2, hidden_size=64, num_heads=4, num_kv_heads=2, intermediate_size=128)[0]


def _ids(seed: int, shape: tuple[int, int]) -> torch.Tensor:
    return torch.randint(0, 259, shape, generator=torch.Generator().manual_seed(seed))


def test_block_linears_are_the_seven_projections_of_every_layer(llama):
    names = block_linears(llama)
    assert len(names) == 2 * 7
    assert "model.layers.1.mlp.down_proj" in names and not any("lm_head" in n or "embed" in n for n in names)


def test_wanda_prunes_every_row_to_the_sparsity_and_leaves_the_head_dense(llama):
    m = copy.deepcopy(llama)
    got = wanda_prune_model(m, _ids(0, (2, 16)), sparsity=0.5)
    assert all(s == pytest.approx(0.5) for s in got.values())
    for lin in block_linears(m).values():
        per_row = (lin.weight == 0).float().mean(1)
        assert torch.allclose(per_row, torch.full_like(per_row, 0.5))
    assert torch.equal(m.lm_head.weight, llama.lm_head.weight)


def test_the_macko_model_computes_the_pruned_dense_fp16_model(llama):
    pruned = copy.deepcopy(llama)
    wanda_prune_model(pruned, _ids(1, (2, 16)), sparsity=0.5)
    macko, dense16 = copy.deepcopy(pruned), copy.deepcopy(pruned)
    mb, db = sum(to_macko(macko).values()), sum(to_macko(dense16, kind="dense16").values())
    assert db == sum(2 * lin.weight.numel() for lin in block_linears(pruned).values())
    assert 1.5 <= db / mb <= 1.6  # the format's storage at exactly 50 % per row
    ids = _ids(2, (1, 12))
    with torch.no_grad():
        a, b = macko(input_ids=ids).logits, dense16(input_ids=ids).logits
    assert torch.allclose(a, b, rtol=0, atol=1e-4 * float(b.abs().max()))


def test_perplexity_is_transformers_own_loss(llama):
    ids = _ids(3, (2, 10))
    with torch.no_grad():
        loss = float(llama(input_ids=ids, labels=ids).loss)
    assert perplexity(llama, ids) == pytest.approx(math.exp(loss), rel=1e-5)


def test_bad_inputs_are_refused(llama):
    with pytest.raises(TypeError, match="model"):
        block_linears(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="calibration_ids"):
        wanda_prune_model(copy.deepcopy(llama), torch.zeros(5, dtype=torch.long), sparsity=0.5)
    with pytest.raises(ValueError, match="sparsity"):
        wanda_prune_model(copy.deepcopy(llama), _ids(0, (1, 4)), sparsity=1.5)
    with pytest.raises(ValueError, match="kind"):
        to_macko(copy.deepcopy(llama), kind="csr")
    with pytest.raises(ValueError, match="ids"):
        perplexity(llama, torch.zeros(1, 1, dtype=torch.long))
