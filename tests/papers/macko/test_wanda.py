"""Wanda pruning and the torch layer swap ([P05] prunes with Wanda before compressing)."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.papers.macko import MackoMatrix, sparsify_linear, wanda_prune


def test_wanda_worked_example() -> None:
    W = np.array([[1.0, -2.0, 3.0, 0.5]], np.float32)
    X = np.array([[10.0, 0.1, 0.1, 1.0]], np.float32)  # column norms 10, 0.1, 0.1, 1
    # scores 10, 0.2, 0.3, 0.5 -> 50% keeps columns 0 and 3
    np.testing.assert_array_equal(wanda_prune(W, X, sparsity=0.5), [[1.0, 0, 0, 0.5]])
    np.testing.assert_array_equal(wanda_prune(W, None, sparsity=0.5), [[0, -2.0, 3.0, 0]])  # magnitude


def test_wanda_per_row_sparsity_exact() -> None:
    g = np.random.default_rng(0)
    W, X = g.standard_normal((7, 33)), g.standard_normal((20, 33))
    P = wanda_prune(W, X, sparsity=0.5)
    assert np.all((P == 0).sum(axis=1) == 16)
    kept = P != 0
    score = np.abs(W) * np.linalg.norm(X, axis=0)
    assert np.all(score[kept].reshape(7, -1).min(axis=1) >= score[~kept].reshape(7, -1).max(axis=1))


def test_wanda_bad_input() -> None:
    with pytest.raises(ValueError, match="sparsity"):
        wanda_prune(np.ones((2, 2)), None, sparsity=1.5)
    with pytest.raises(ValueError, match="activations"):
        wanda_prune(np.ones((2, 2)), np.ones((3, 5)), sparsity=0.5)
    with pytest.raises(ValueError, match="weight"):
        wanda_prune(np.ones(3), None, sparsity=0.5)


def test_sparsify_linear_matches_pruned_dense() -> None:
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(0)
    lin = torch.nn.Linear(40, 24)
    with torch.no_grad():
        lin.weight.copy_(torch.randn(24, 40, generator=g))
    X = torch.randn(30, 40, generator=g)
    m = sparsify_linear(lin, sparsity=0.5, activations=X)
    assert m.matrix.density == pytest.approx(0.5)
    w = wanda_prune(lin.weight.detach(), X, sparsity=0.5).half().float()
    x = torch.randn(3, 5, 40, generator=g)
    torch.testing.assert_close(m(x), x @ w.T + lin.bias.detach(), rtol=1e-4, atol=1e-4)
    assert m(x[0, 0]).shape == (24,)
    assert isinstance(m.matrix, MackoMatrix)


def test_sparsify_container_and_bad_module() -> None:
    torch = pytest.importorskip("torch")
    net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2, bias=False))
    x = torch.randn(4, 8)
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(torch.rand(p.shape) > 0.5)
        ref = net(x)
    out = sparsify_linear(net)
    torch.testing.assert_close(out(x), ref, rtol=2e-3, atol=2e-3)
    assert type(out[0]).__name__ == "MackoLinear"
    with pytest.raises(TypeError, match="module must be"):
        sparsify_linear(np.ones(3))
    with pytest.raises(ValueError, match="x must have last dimension"):
        out[0](torch.randn(2, 7))


def test_sparsify_linear_device_argument() -> None:
    torch = pytest.importorskip("torch")
    lin = torch.nn.Linear(8, 4)
    with pytest.raises(ValueError, match=r"device must be one of \['cpu', 'cuda'\]"):
        sparsify_linear(lin, device="gpu")
    try:
        import triton
    except ImportError:
        triton = None
    if triton is None or not torch.cuda.is_available():  # the GPU layer needs both: a clear error names what is missing
        with pytest.raises((ImportError, RuntimeError), match="device='cuda' needs"):
            sparsify_linear(lin, device="cuda")
    else:
        layer = sparsify_linear(lin, device="cuda")
        assert type(layer).__name__ == "TritonMackoLinear"
        x = torch.randn(3, 8, device="cuda", generator=torch.Generator(device="cuda").manual_seed(0))
        torch.testing.assert_close(layer(x), lin.cuda()(x), rtol=2e-3, atol=2e-3)
