"""Block-sparse attention of [P30] against brute force: a token-level masked softmax in float64."""

import math

import numpy as np
import pytest
import torch

import icml26.papers.unisparse._attention as attn
from icml26.papers.unisparse import BlockMask, block_sparse_attention, full_attention, native_available

NATIVE = pytest.mark.skipif(not native_available(), reason="the native kernel is not built")


def brute_force(q, k, v, mask: BlockMask, scale=None) -> torch.Tensor:
    """softmax over the allowed keys of every query token, float64, one token at a time in matrix form."""
    hq, n, d = q.shape
    g = hq // k.shape[0]
    kk, vv = k.double().repeat_interleave(g, 0), v.double().repeat_interleave(g, 0)
    s = scale if scale is not None else 1 / math.sqrt(d)
    logits = (q.double() @ kk.transpose(1, 2)) * s
    logits = logits.masked_fill(~mask.token_mask(), float("-inf"))
    return torch.softmax(logits, dim=-1) @ vv


def random_case(hq, hkv, n, d, block, p, seed):
    g = torch.Generator().manual_seed(seed)
    q, k, v = torch.randn(hq, n, d, generator=g), torch.randn(hkv, n, d, generator=g), torch.randn(hkv, n, d, generator=g)
    nb = math.ceil(n / block)
    m = (torch.rand(hq, nb, nb, generator=g) < p).tril() | torch.eye(nb, dtype=torch.bool)
    return q, k, v, BlockMask(m, block, n)


CASES = [(2, 1, 200, 24, 32, 0.4), (4, 2, 256, 64, 64, 0.3), (3, 3, 100, 16, 16, 0.6), (2, 2, 300, 80, 48, 0.5),
         (1, 1, 17, 8, 16, 1.0), (6, 2, 130, 32, 64, 0.0)]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_reference_equals_brute_force(case) -> None:
    q, k, v, mask = random_case(*case, seed=1)
    got = block_sparse_attention(q, k, v, mask, backend="reference")
    np.testing.assert_allclose(got.double(), brute_force(q, k, v, mask), atol=2e-6, rtol=0)


@NATIVE
@pytest.mark.parametrize("case", [c for c in CASES if c[4] % 16 == 0], ids=str)
@pytest.mark.parametrize("threads", [1, 2])
def test_native_equals_brute_force(case, threads) -> None:
    q, k, v, mask = random_case(*case, seed=2)
    got = block_sparse_attention(q, k, v, mask, backend="native", threads=threads, scale=0.3)
    np.testing.assert_allclose(got.double(), brute_force(q, k, v, mask, scale=0.3), atol=1e-5, rtol=0)


@NATIVE
@pytest.mark.parametrize("isa", [0, 1, 2])
def test_every_instruction_set_agrees(isa, monkeypatch) -> None:
    mod = attn._native()
    if isa > mod.best_isa():
        pytest.skip(f"this CPU lacks instruction set {isa}")

    class Pinned:
        attention = staticmethod(mod.attention)

        @staticmethod
        def best_isa() -> int:
            return isa

    monkeypatch.setattr(attn, "_NATIVE", Pinned)
    q, k, v, mask = random_case(4, 2, 256, 64, 64, 0.4, seed=3)
    got = block_sparse_attention(q, k, v, mask, backend="native")
    np.testing.assert_allclose(got.double(), brute_force(q, k, v, mask), atol=3e-6, rtol=0)


@pytest.mark.parametrize("backend", ["reference", "auto"])
def test_full_mask_is_full_attention(backend) -> None:
    """Every causal block selected (density 1): block-sparse attention is dense causal attention (torch SDPA)."""
    q, k, v, _ = random_case(4, 2, 333, 64, 64, 1.0, seed=4)
    full = BlockMask.full(4, 333, block=64)
    assert full.density == 1.0
    got = block_sparse_attention(q, k, v, full, backend=backend)
    np.testing.assert_allclose(got, full_attention(q, k, v), atol=2e-6, rtol=0)


def test_diagonal_only_mask_is_local_attention() -> None:
    q, k, v, _ = random_case(1, 1, 64, 8, 16, 0.0, seed=5)
    m = BlockMask(torch.eye(4, dtype=torch.bool)[None], 16, 64)
    got = block_sparse_attention(q, k, v, m)
    for i in range(4):  # each block alone is a small causal attention
        sl = slice(16 * i, 16 * (i + 1))
        np.testing.assert_allclose(got[:, sl], full_attention(q[:, sl], k[:, sl], v[:, sl]), atol=2e-6)


def test_fallback_without_the_extension(monkeypatch) -> None:
    q, k, v, mask = random_case(2, 1, 200, 24, 32, 0.4, seed=6)
    monkeypatch.setattr(attn, "_NATIVE", None)
    assert not native_available()
    np.testing.assert_allclose(block_sparse_attention(q, k, v, mask).double(), brute_force(q, k, v, mask), atol=2e-6)
    with pytest.raises(RuntimeError, match="not built"):
        block_sparse_attention(q, k, v, mask, backend="native")


def test_numpy_input_and_dtype() -> None:
    q, k, v, mask = random_case(2, 2, 64, 16, 16, 0.5, seed=7)
    got = block_sparse_attention(q.numpy(), k.numpy(), v.numpy(), mask)
    assert got.dtype == torch.float32 and got.shape == (2, 64, 16)
    half = block_sparse_attention(q.double(), k.double(), v.double(), mask)
    assert half.dtype == torch.float64


@pytest.mark.parametrize(("change", "match"), [
    ({"k": torch.zeros(3, 64, 16), "v": torch.zeros(3, 64, 16)}, "multiple of the heads of k"),
    ({"v": torch.zeros(2, 64, 8)}, "k and v must have the same shape"),
    ({"mask": BlockMask.full(2, 32, block=16)}, "mask is for"),
    ({"mask": torch.ones(2, 4, 4, dtype=torch.bool)}, "mask must be a BlockMask"),
    ({"backend": "cuda"}, "backend"),
    ({"threads": 0}, "threads"),
])
def test_bad_arguments_are_refused(change, match) -> None:
    q, k, v, mask = random_case(2, 2, 64, 16, 16, 0.5, seed=8)
    args = {"q": q, "k": k, "v": v, "mask": mask} | change
    with pytest.raises((ValueError, TypeError), match=match):
        block_sparse_attention(args.pop("q"), args.pop("k"), args.pop("v"), args.pop("mask"), **args)


@NATIVE
def test_native_refuses_a_block_it_cannot_take() -> None:
    q, k, v, mask = random_case(2, 2, 60, 16, 20, 0.5, seed=9)
    with pytest.raises(ValueError, match="multiple of 16"):
        block_sparse_attention(q, k, v, mask, backend="native")
    np.testing.assert_allclose(block_sparse_attention(q, k, v, mask).double(), brute_force(q, k, v, mask), atol=2e-6)


@NATIVE
def test_binding_checks_every_index() -> None:
    """The C++ binding refuses a CSR that would read out of bounds, whatever the Python side passes."""
    mod = attn._native()
    z = np.zeros((1, 32, 16), np.float32)
    out = np.zeros_like(z)
    ok = (np.array([0, 1, 3], np.int32), np.array([0, 0, 1], np.int32))
    mod.attention(z, z, z, *ok, out, 16, 1.0, 0, 1)
    for rp, cols, what in [([0, 1, 3], [0, 0, 2], "causal"), ([0, 2, 3], [0, 1, 1], "causal"),
                           ([0, 1, 4], [0, 0, 1], "row_ptr"), ([1, 1, 3], [0, 0, 1], "row_ptr")]:
        with pytest.raises(ValueError, match=what):
            mod.attention(z, z, z, np.array(rp, np.int32), np.array(cols, np.int32), out, 16, 1.0, 0, 1)
