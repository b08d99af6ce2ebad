"""The prefill patch of [P30] on a transformers Llama: τ = 1 is the unpatched model, a sparse mask changes the
prefill only, decoding with a cache stays dense, and the model is restored."""

import functools

import numpy as np
import pytest
import torch

from icml26.common.models import tiny_causal_lm
from icml26.papers.unisparse import sparse_prefill, streaming_mask, unisparse_mask


@pytest.fixture(scope="module")
def model():
    m, _ = tiny_causal_lm(seed=0, max_positions=512)
    return m


IDS = torch.randint(0, 256, (2, 200), generator=torch.Generator().manual_seed(0))


def test_tau_one_gives_the_unpatched_logits(model) -> None:
    with torch.no_grad():
        ref = model(input_ids=IDS).logits
        with sparse_prefill(model, functools.partial(unisparse_mask, block=32, cq=8, ck=8, tau=1.0)) as log:
            got = model(input_ids=IDS).logits
    np.testing.assert_allclose(got, ref, atol=1e-5, rtol=0)
    assert len(log.densities) == 2 * 2 and log.density == 1.0  # 2 layers x 2 sequences
    assert model.config._attn_implementation == "sdpa"


def test_a_sparse_mask_changes_what_it_should(model) -> None:
    method = functools.partial(streaming_mask, block=32, window_blocks=1)
    with torch.no_grad():
        ref = model(input_ids=IDS).logits
        with sparse_prefill(model, method) as log:
            got = model(input_ids=IDS).logits
    assert log.density == pytest.approx(13 / 28)  # sink + diagonal of 7 blocks
    np.testing.assert_allclose(got[:, :32], ref[:, :32], atol=1e-5)  # the first block sees all it would anyway
    assert float((got[:, 40:] - ref[:, 40:]).abs().max()) > 1e-3


def test_decoding_stays_dense_and_capture_records(model) -> None:
    prompt = IDS[:1, :40]
    with torch.no_grad():
        want = model.generate(input_ids=prompt, max_new_tokens=4, do_sample=False)
        with sparse_prefill(model, None, capture=True) as log:
            got = model.generate(input_ids=prompt, max_new_tokens=4, do_sample=False)
    assert torch.equal(got, want)
    assert log.dense_calls == 2 * 3 and not log.densities  # 3 decoding steps per layer go to SDPA
    assert [(layer, q.shape, k.shape) for layer, q, k in log.captured] == [
        (0, (4, 40, 16), (2, 40, 16)), (1, (4, 40, 16), (2, 40, 16))]


def test_restored_after_an_error(model) -> None:
    def broken(q, k):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"), torch.no_grad(), sparse_prefill(model, broken):
        model(input_ids=IDS)
    assert model.config._attn_implementation == "sdpa"
    assert not any(hasattr(m, "_icml26_sparse_prefill") for m in model.modules())


def test_bad_arguments(model) -> None:
    with pytest.raises(TypeError, match="model"), sparse_prefill(torch.nn.Linear(2, 2), None):
        pass
    with pytest.raises(TypeError, match="method"), sparse_prefill(model, "unisparse"):
        pass
    with pytest.raises(ValueError, match="backend"), sparse_prefill(model, None, backend="gpu"):
        pass

    def not_a_mask(q, k):
        return torch.ones(4, 7, 7, dtype=torch.bool)

    with pytest.raises(TypeError, match="BlockMask"), torch.no_grad(), sparse_prefill(model, not_a_mask):
        model(input_ids=IDS)
