"""[P11] block-scaled FP4 quantisation: round trips, a per-block reference, and the straight-through gradient."""

import numpy as np
import pytest
import torch

from icml26.papers.reqat import E1M2, E2M1, MXFP4, NVFP4, FP4Scheme, fake_quant, fp4_quantize


def _reference_block(x: np.ndarray, scheme: FP4Scheme, grid: tuple[float, ...], gscale: float) -> np.ndarray:
    """One block, element by element in float64 from the definitions (MX: 2^(floor log2 amax − emax); NV: E4M3 scale
    of amax / (max · g)), rounding by enumeration."""
    emax = int(np.floor(np.log2(grid[-1])))
    amax = np.abs(x).max()
    if scheme.scale == "e8m0":
        step = 2.0 ** (np.floor(np.log2(amax)) - emax) if amax > 0 else 2.0 ** -127
    else:
        s = torch.tensor([amax / (grid[-1] * gscale)], dtype=torch.float32).to(torch.float8_e4m3fn).float().item()
        step = s * gscale
    out = []
    for v in x / step if step > 0 else np.zeros_like(x):
        a = abs(v)
        i = min(range(len(grid)), key=lambda j: (abs(grid[j] - a), j % 2))
        out.append(np.sign(v) * grid[i])
    return np.array(out) * step


@pytest.mark.parametrize("scheme", [MXFP4, NVFP4], ids=lambda s: s.name)
def test_block_quantisation_matches_a_per_block_reference(scheme):
    g = torch.Generator().manual_seed(0)
    w = torch.randn(3, 64, generator=g) * torch.logspace(-2, 1, 64)  # blocks of very different ranges
    q = fp4_quantize(w, scheme).double().numpy()
    x = w.double().numpy()
    gs = float(np.float32(np.abs(x).max() / (6.0 * 448.0)))
    for r in range(3):
        for b in range(0, 64, scheme.block):
            want = _reference_block(x[r, b:b + scheme.block], scheme, E2M1.grid(), gs)
            np.testing.assert_allclose(q[r, b:b + scheme.block], want, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("scheme", [MXFP4, NVFP4], ids=lambda s: s.name)
@pytest.mark.parametrize("kind", ["weight", "activation", "kv"])
def test_representable_tensors_round_trip_exactly(scheme, kind):
    """A tensor whose blocks already lie on the grid times their scale comes back unchanged (and twice is once)."""
    elem = E1M2 if kind == "kv" else E2M1
    g = torch.Generator().manual_seed(1)
    grid = torch.tensor(elem.grid())
    codes = grid[torch.randint(0, len(grid), (4, 4 * scheme.block), generator=g)]
    codes = codes * torch.where(torch.rand(codes.shape, generator=g) < 0.5, -1.0, 1.0)
    codes[:, :: scheme.block] = elem.max_value  # every block reaches the top of the grid: its scale is exact
    scales = 2.0 ** torch.randint(-6, 6, (4, 4, 1), generator=g).float()
    x = (codes.view(4, 4, scheme.block) * scales).view(4, -1)
    if scheme.global_scale:  # NV: the block scales are multiples of g, exact in E4M3 when amax_b / amax is 2^k
        x = x / x.abs().max()
    q = fp4_quantize(x, scheme, kind=kind)
    if scheme.global_scale:  # the float32 global scale is rounded: equal to a few ulps
        torch.testing.assert_close(q, x, rtol=1e-6, atol=0.0)
        torch.testing.assert_close(fp4_quantize(q, scheme, kind=kind), q, rtol=1e-6, atol=0.0)
    else:  # MX: power-of-two scales, bit for bit
        assert torch.equal(q, x)
        assert torch.equal(fp4_quantize(q, scheme, kind=kind), q)


def test_error_is_bounded_and_nv_beats_mx_on_gaussian_weights():
    w = torch.randn(64, 256, generator=torch.Generator().manual_seed(2))
    rel = {s.name: float(((fp4_quantize(w, s) - w) ** 2).mean() / (w ** 2).mean()) for s in (MXFP4, NVFP4)}
    assert 0 < rel["nvfp4"] < rel["mxfp4"] < 0.05


def test_odd_lengths_are_padded_and_none_is_identity():
    x = torch.randn(5, 37, generator=torch.Generator().manual_seed(3))
    q = fp4_quantize(x, "mxfp4")  # MX blocks are independent: the short last block is quantised on its own
    assert q.shape == x.shape and torch.equal(q[:, 32:], fp4_quantize(x[:, 32:], "mxfp4"))
    assert torch.equal(q[:, :32], fp4_quantize(x[:, :32], "mxfp4"))
    assert torch.equal(fp4_quantize(x, "none"), x)
    assert torch.equal(fp4_quantize(torch.zeros(2, 16), "mxfp4"), torch.zeros(2, 16))


def test_fake_quant_forward_is_the_quantiser_and_gradient_is_the_identity():
    x = torch.randn(4, 32, generator=torch.Generator().manual_seed(4), requires_grad=True)
    up = torch.randn(4, 32, generator=torch.Generator().manual_seed(5))
    for kind in ("weight", "activation", "kv"):
        y = fake_quant(x, NVFP4, kind=kind)
        assert torch.equal(y.detach(), fp4_quantize(x.detach(), NVFP4, kind=kind))
        (g,) = torch.autograd.grad((y * up).sum(), x)
        assert torch.equal(g, up)  # straight-through: d q(x) / dx = I


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="x"):
        fp4_quantize(torch.tensor([[1.0, float("nan")]]), "nvfp4")
    with pytest.raises(ValueError, match="scheme"):
        fp4_quantize(torch.ones(2, 4), "fp5")
    with pytest.raises(ValueError, match="kind"):
        fp4_quantize(torch.ones(2, 4), "nvfp4", kind="bias")
    with pytest.raises(TypeError, match="x"):
        fp4_quantize(torch.ones(2, 4, dtype=torch.complex64), "nvfp4")
