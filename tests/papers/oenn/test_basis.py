"""The [P12] characterization against oracles: a brute-force dense SVD, Burnside/character counts on finite groups,
hand counts, and membership of every basis element in the commutant."""

import itertools

import networkx as nx
import numpy as np
import pytest

from icml26.papers.oenn import (
    commutant_dimension,
    constant_sheaf,
    equivariant_basis,
    face_poset_from_graph,
    random_orthogonal_sheaf,
    relation_operators,
    sheaf_symmetries,
)
from icml26.papers.oenn._cases import CASES, build_case


def dense_commutant_dim(mats: list[np.ndarray]) -> int:
    """The whole stacked Kronecker system, one dense SVD (no splitting): the slow reference."""
    n = mats[0].shape[0]
    eye = np.eye(n)
    k = np.vstack([np.kron(m, eye) - np.kron(eye, m.T) for m in mats])
    s = np.linalg.svd(k, compute_uv=False)
    return int(n * n - np.sum(s > 1e-9 * max(1.0, s[0])))


def vertex_automorphisms(graph: nx.Graph) -> list[dict]:
    nodes = list(graph.nodes())
    edges = {frozenset(e) for e in graph.edges()}
    out = []
    for perm in itertools.permutations(nodes):
        m = dict(zip(nodes, perm))
        if all(frozenset((m[a], m[b])) in edges for a, b in graph.edges()):
            out.append(m)
    return out


def burnside_pairs(graph: nx.Graph) -> float:
    """(1/|G|) Σ_g fix(g)² over the cells (vertices and edges) of the graph: the number of orbits of cell pairs,
    i.e. the commutant dimension of the permutation representation (character formula), from brute-force
    automorphisms only."""
    autos = vertex_automorphisms(graph)
    total = 0
    for m in autos:
        fix_v = sum(m[x] == x for x in graph.nodes())
        fix_e = sum(frozenset((m[a], m[b])) == frozenset((a, b)) for a, b in graph.edges())
        total += (fix_v + fix_e) ** 2
    return total / len(autos)


@pytest.mark.parametrize("graph", [nx.cycle_graph(4), nx.path_graph(3), nx.star_graph(3)], ids=["C4", "P3", "S3"])
def test_commutant_dimension_equals_a_dense_svd(graph):
    p = face_poset_from_graph(graph)
    for d, gauge in ((1, False), (2, True)):
        f = constant_sheaf(p, d)
        acts = [a.matrix(f.offsets) for a in sheaf_symmetries(f, gauge=gauge).oracle_actions(seed=0)]
        assert commutant_dimension(acts).dim == dense_commutant_dim(acts)


@pytest.mark.parametrize("graph", [nx.cycle_graph(4), nx.cycle_graph(6), nx.complete_graph(4), nx.hypercube_graph(3)],
                         ids=["C4", "C6", "K4", "Q3"])
def test_basis_size_matches_the_character_formula(graph):
    p = face_poset_from_graph(graph)
    orbits = burnside_pairs(graph)
    assert len(equivariant_basis(p, constant_sheaf(p, 1), gauge=False)) == orbits
    assert len(equivariant_basis(p, constant_sheaf(p, 2), gauge=False)) == 4 * orbits  # any 2 x 2 block
    assert len(equivariant_basis(p, constant_sheaf(p, 2), gauge=True)) == orbits  # ∫ tr(h)² dh = 1 over O(2)


def test_hand_counts():
    c6 = face_poset_from_graph(nx.cycle_graph(6))
    # vertex pairs at distance 0..3, edge pairs at distance 0..3, and 3 + 3 vertex/edge pairs
    assert len(equivariant_basis(c6, constant_sheaf(c6, 1), gauge=False)) == 14
    k4 = face_poset_from_graph(nx.complete_graph(4))
    f = random_orthogonal_sheaf(k4, 2, seed=1, special=True)
    sym = sheaf_symmetries(f)
    assert sym.gauge_algebra[0].shape[0] == 2  # the commutant of a generic SO(2) holonomy group: a·I + b·J
    if sym.order == 1:
        assert len(equivariant_basis(k4, f)) == 2 * k4.n_cells ** 2  # every block in the 2-dim Hom_{SO(2)}


@pytest.mark.parametrize("case", [c for c in CASES if c not in ("Q3-const-d2", "Petersen-const-d2")])
@pytest.mark.parametrize("gauge", [False, True])
def test_basis_is_the_commutant(case, gauge):
    p, f = build_case(case, 0)
    b = equivariant_basis(p, f, gauge=gauge)
    acts = [a.matrix(f.offsets) for a in b.symmetry.oracle_actions(seed=3)]
    assert commutant_dimension(acts).dim == len(b)
    flat = b.matrices.reshape(len(b), -1)
    assert np.allclose(flat @ flat.T, np.eye(len(b)), atol=1e-10)  # orthonormal, hence independent
    for u in b.symmetry.sample(4, seed=5):
        m = u.matrix(f.offsets)
        assert max(np.abs(m @ x - x @ m).max() for x in b.matrices) < 1e-10
    local = relation_operators(f).dense()
    assert np.linalg.matrix_rank(np.vstack([flat, local.reshape(len(local), -1)]), tol=1e-8) == len(b)  # local ⊂ span


def test_local_operators_are_a_strict_subspace_on_symmetric_posets():
    p, f = build_case("C6-const-d2", 0)
    local = relation_operators(f).dense()
    assert np.linalg.matrix_rank(local.reshape(len(local), -1)) == 6 < len(equivariant_basis(p, f))


def test_lifts_are_sheaf_isomorphisms_and_preserve_the_laplacian():
    for case in ("C6-twisted-d2", "K4-O2-d2", "square-flat-d2"):
        p, f = build_case(case, 0)
        sym = sheaf_symmetries(f)
        lap = _coboundary_laplacian(f)
        for el in sym.lifts:
            for lo, hi in p.covers:
                assert np.allclose(el.blocks[hi] @ f.maps[lo, hi], f.maps[int(el.perm[lo]), int(el.perm[hi])] @ el.blocks[lo])
            u = el.matrix(f.offsets)
            assert np.allclose(u @ u.T, np.eye(f.dim))
            assert np.allclose(u @ lap @ u.T, lap)


def _coboundary_laplacian(f) -> np.ndarray:
    """δᵀδ of all ranks with orientation signs from vertex order: an independent construction (vertex block only)."""
    p, off = f.poset, f.offsets
    edges = p.cells_of_rank(1)
    d = f.stalk_dims[0]
    delta = np.zeros((d * len(edges), f.dim))
    for k, e in enumerate(edges):
        a, b = p.cells[int(e)]
        delta[d * k:d * k + d, off[a]:off[a + 1]] = -f.maps[a, int(e)]
        delta[d * k:d * k + d, off[b]:off[b + 1]] = f.maps[b, int(e)]
    return delta.T @ delta


def test_generators_generate_and_compose():
    p, f = build_case("C6-const-d2", 0)
    sym = sheaf_symmetries(f, gauge=False)
    gens = sym.generators()
    assert 1 <= len(gens) <= 3
    a, b = sym.lifts[1], sym.lifts[2]
    assert np.allclose(a.compose(b).matrix(f.offsets), a.matrix(f.offsets) @ b.matrix(f.offsets))


def test_refusals():
    p = face_poset_from_graph(nx.cycle_graph(4))
    q = face_poset_from_graph(nx.cycle_graph(4))
    with pytest.raises(ValueError, match="sheaf"):
        equivariant_basis(q, constant_sheaf(p, 1))
    with pytest.raises(ValueError, match="actions"):
        commutant_dimension(np.zeros((2, 3, 4)))
