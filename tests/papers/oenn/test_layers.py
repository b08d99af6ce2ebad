"""OENN layers of [P12]: exact equivariance, message passing and sheaf diffusion as instances (against networkx and
an independent coboundary), a gradient check, any stalk dimensions, batching."""

import networkx as nx
import numpy as np
import pytest
import torch

from icml26.papers.oenn import (
    OENN,
    OENNLayer,
    OperatorStack,
    constant_sheaf,
    equivariant_basis,
    face_poset_from_graph,
    message_passing,
    random_orthogonal_sheaf,
    relation_operators,
    sheaf_diffusion,
    sheaf_from_maps,
    sheaf_laplacian,
    sheaf_symmetries,
)
from icml26.papers.oenn._cases import build_case


def _x(dim: int, c: int, batch: int = 3, seed: int = 0) -> torch.Tensor:
    return torch.randn(batch, dim, c, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _err(net, acts, x) -> float:
    with torch.no_grad():
        y = net(x)
        return max(float((net(torch.as_tensor(u) @ x) - torch.as_tensor(u) @ y).abs().max()) for u in acts)


@pytest.mark.parametrize("case", ["C6-twisted-d2", "square-flat-d2", "K4-SO2-d2", "Q3-const-d2"])
def test_exact_equivariance_and_a_control_that_is_not(case):
    p, f = build_case(case, 0)
    sym = sheaf_symmetries(f)
    acts = [a.matrix(f.offsets) for a in sym.sample(4, seed=1)]
    ops = relation_operators(f).normalized()
    x = _x(f.dim, 2)
    for nl in ("gate", "tanh_gate"):
        assert _err(OENN(ops, 2, 6, 3, layers=3, nonlinearity=nl, seed=0, dtype=torch.float64), acts, x) < 1e-12
    relu = OENN(ops, 2, 6, 3, layers=3, nonlinearity="relu", seed=0, dtype=torch.float64)
    assert _err(relu, acts, x) > 1e-3  # a coordinate-wise ReLU breaks the O(2) gauge


def test_complete_basis_layers_are_equivariant():
    p, f = build_case("C6-twisted-d2", 0)
    b = equivariant_basis(p, f)
    ops = OperatorStack.from_dense([str(i) for i in range(len(b))], b.matrices, f.cell_of_row, range(p.n_cells))
    acts = [a.matrix(f.offsets) for a in b.symmetry.sample(4, seed=2)]
    assert _err(OENN(ops, 1, 4, 1, seed=0, dtype=torch.float64), acts, _x(f.dim, 1)) < 1e-12


def test_constant_sheaf_is_message_passing():
    g = nx.karate_club_graph()
    p = face_poset_from_graph(g)
    net = message_passing(p, 3, 5, 2, layers=2, seed=0, dtype=torch.float64)
    names = relation_operators(constant_sheaf(p, 1), ranks=(0,), kinds=("self", "coface_adj")).names
    assert names == ("self[0]", "coface_adj[0]")
    a = torch.as_tensor(nx.to_numpy_array(g, nodelist=list(g.nodes()), weight=None))
    x = _x(p.n_vertices, 3)
    l1, l2 = net.layers
    h = torch.relu(x @ l1.weight[0] + a @ x @ l1.weight[1] + l1.bias)
    ref = h @ l2.weight[0] + a @ h @ l2.weight[1]
    with torch.no_grad():
        assert torch.allclose(net(x), ref, atol=1e-12)


def test_sheaf_diffusion_is_the_heat_equation():
    p = face_poset_from_graph(nx.petersen_graph())
    f = random_orthogonal_sheaf(p, 2, seed=4)
    edges = p.cells_of_rank(1)
    delta = np.zeros((2 * len(edges), 2 * p.n_vertices))
    for k, e in enumerate(edges):
        a, b = p.cells[int(e)]
        delta[2 * k:2 * k + 2, 2 * a:2 * a + 2] = -f.maps[a, int(e)]
        delta[2 * k:2 * k + 2, 2 * b:2 * b + 2] = f.maps[b, int(e)]
    lap = delta.T @ delta
    assert np.allclose(sheaf_laplacian(f).toarray(), lap)
    assert np.allclose(sheaf_laplacian(f, normalized=True).toarray(), lap / 3.0)  # Petersen is 3-regular, O(2)
    net = sheaf_diffusion(f, 2, layers=4, normalized=False, nonlinearity="identity", seed=0, dtype=torch.float64)
    alpha = 0.1
    with torch.no_grad():
        for layer in net.layers:
            layer.weight.copy_(-alpha * torch.eye(2)[None])
    x = _x(2 * p.n_vertices, 2)
    ref = x.clone()
    step = torch.as_tensor(np.eye(lap.shape[0]) - alpha * lap)
    for _ in range(4):
        ref = step @ ref
    with torch.no_grad():
        assert torch.allclose(net(x), ref, atol=1e-12)


def test_gradient_check():
    """Finite differences against autograd through the operators, the channel weights and the gate bias."""
    p, f = build_case("C6-twisted-d2", 0)
    layer = OENNLayer(relation_operators(f).normalized(), 2, 3, nonlinearity="gate", seed=0, dtype=torch.float64)
    x = _x(f.dim, 2, batch=2).requires_grad_(True)
    w = layer.weight.detach().clone().requires_grad_(True)
    b = (layer.bias.detach().clone() + 0.3).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda x, w, b: _full(layer, x, w, b), (x, w, b), eps=1e-6, atol=1e-7)
    out = layer(x).sum()
    out.backward()
    assert layer.weight.grad is not None and torch.isfinite(layer.weight.grad).all()


def _linear(layer, x, w):
    xw = torch.einsum("bnc,kcd->knbd", x, w).reshape(layer.n_ops * layer.dim, x.shape[0] * w.shape[2])
    y = torch.sparse.mm(layer.ops, xw) if layer.ops.is_sparse else layer.ops @ xw
    return y.reshape(layer.dim, x.shape[0], w.shape[2]).permute(1, 0, 2)


def _full(layer, x, w, b):
    """The layer's forward with (w, b) as explicit inputs, so gradcheck differentiates through them."""
    y = _linear(layer, x, w)
    sq = torch.zeros(y.shape[0], layer.n_cells, y.shape[2], dtype=y.dtype).index_add(1, layer.cell_of_row, y * y)
    norm = torch.sqrt(sq + 1e-12)[:, layer.cell_of_row, :]
    return y * torch.sigmoid(norm + b)


def test_layer_forward_matches_the_explicit_formula():
    p, f = build_case("C6-twisted-d2", 0)
    layer = OENNLayer(relation_operators(f).normalized(), 2, 3, nonlinearity="gate", seed=0, dtype=torch.float64)
    x = _x(f.dim, 2, batch=2)
    with torch.no_grad():
        assert torch.allclose(layer(x), _full(layer, x, layer.weight, layer.bias), atol=1e-13)


def test_any_stalk_dimensions_and_batching():
    p = face_poset_from_graph(nx.cycle_graph(5))
    g = np.random.default_rng(0)
    f = sheaf_from_maps(p, {c: g.standard_normal((3, 1)) for c in p.covers})  # R¹ on vertices, R³ on edges
    ops = relation_operators(f)
    assert ops.dim == 5 * 1 + 5 * 3
    net = OENN(ops.normalized(), 2, 4, 1, seed=0, dtype=torch.float64)
    x = _x(ops.dim, 2, batch=3)
    with torch.no_grad():
        y = net(x)
        assert y.shape == (3, ops.dim, 1)
        assert torch.allclose(net(x[1]), y[1], atol=1e-13)
    with pytest.raises(ValueError, match="x must have shape"):
        net(x[:, :-1])


def test_seeded_and_deterministic():
    p, f = build_case("C6-const-d2", 0)
    ops = relation_operators(f)
    a, b = (OENN(ops, 1, 3, 1, seed=7) for _ in range(2))
    assert all(torch.equal(u, v) for u, v in zip(a.parameters(), b.parameters()))
    state = torch.random.get_rng_state()
    OENN(ops, 1, 3, 1, seed=8)
    assert torch.equal(state, torch.random.get_rng_state())  # no global RNG touched
