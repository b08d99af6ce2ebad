"""Face posets and sheaves of [P12]: counts, order, automorphisms against brute force, functoriality."""

import itertools

import networkx as nx
import numpy as np
import pytest

from icml26.papers.oenn import (
    constant_sheaf,
    face_poset,
    face_poset_from_graph,
    random_orthogonal_sheaf,
    sheaf_from_maps,
)


def brute_force_automorphisms(graph: nx.Graph) -> int:
    """Vertex permutations preserving the edge set (a face poset of a simple graph has the same automorphisms)."""
    nodes = list(graph.nodes())
    edges = {frozenset(e) for e in graph.edges()}
    count = 0
    for perm in itertools.permutations(nodes):
        m = dict(zip(nodes, perm))
        if all(frozenset((m[a], m[b])) in edges for a, b in graph.edges()):
            count += 1
    return count


def test_graph_poset_counts_and_order():
    p = face_poset_from_graph(nx.cycle_graph(5))
    assert (p.n_vertices, p.n_cells, p.dimension) == (5, 10, 1)
    assert len(p.covers) == 10
    e = p.index((0, 1))
    assert p.leq(0, e) and p.leq(1, e) and not p.leq(2, e) and not p.leq(e, 0)
    assert p.below(e) == frozenset({0, 1, e})


def test_faces_add_boundary_edges_and_compose_order():
    p = face_poset(np.array([[0, 1]]), faces=[(0, 1, 2)])
    assert p.n_cells == 3 + 3 + 1
    f = p.cells_of_rank(2)[0]
    assert all(p.leq(vtx, int(f)) for vtx in range(3))
    assert sum(1 for lo, hi in p.covers if hi == f) == 3


@pytest.mark.parametrize("graph", [nx.cycle_graph(6), nx.complete_graph(4), nx.hypercube_graph(3),
                                   nx.path_graph(4), nx.star_graph(3)], ids=["C6", "K4", "Q3", "P4", "star"])
def test_automorphisms_match_brute_force(graph):
    p = face_poset_from_graph(graph)
    autos = p.automorphisms()
    assert autos.shape[0] == brute_force_automorphisms(graph)
    assert np.array_equal(autos[0], np.arange(p.n_cells))
    for perm in autos:
        assert {(int(perm[a]), int(perm[b])) for a, b in p.covers} == set(p.covers)


def test_triangulated_square_has_the_square_symmetries():
    p = face_poset(np.array([[0, 1], [1, 2], [2, 3], [3, 0]]), faces=[(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)])
    assert p.n_cells == 5 + 8 + 4
    assert p.automorphisms().shape[0] == 8  # the dihedral group of the square


def test_bad_posets_are_refused():
    with pytest.raises(ValueError, match="self-loop"):
        face_poset(np.array([[0, 0]]))
    with pytest.raises(ValueError, match="faces"):
        face_poset(np.array([[0, 1]]), faces=[(0, 1)])
    with pytest.raises(TypeError, match="graph"):
        face_poset_from_graph(nx.DiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="n_vertices"):
        face_poset(np.array([[0, 3]]), n_vertices=2)


def test_restriction_composites_and_functoriality_check():
    p = face_poset(np.array([[0, 1], [1, 2], [2, 0]]), faces=[(0, 1, 2)])
    f = random_orthogonal_sheaf(p, 2, seed=0, flat=True)
    face = int(p.cells_of_rank(2)[0])
    for e in p.cells_of_rank(1):
        for vtx in p.cells[int(e)]:
            assert np.allclose(f.restriction(vtx, face), f.maps[int(e), face] @ f.maps[vtx, int(e)])
    bad = dict(f.maps)
    lo, hi = next(c for c in p.covers if p.ranks[c[1]] == 2)
    bad[lo, hi] = -bad[lo, hi]
    with pytest.raises(ValueError, match="maps: not functorial"):
        sheaf_from_maps(p, bad)
    with pytest.raises(ValueError, match="flat"):
        random_orthogonal_sheaf(p, 2, seed=0)


def test_sheaf_kinds():
    p = face_poset_from_graph(nx.cycle_graph(4))
    assert constant_sheaf(p, 3).is_orthogonal()
    r = random_orthogonal_sheaf(p, 2, seed=1, special=True)
    assert r.is_orthogonal() and all(np.isclose(np.linalg.det(m), 1.0) for m in r.maps.values())
    mixed = sheaf_from_maps(p, {c: np.ones((2, 1)) for c in p.covers})
    assert mixed.stalk_dims == (1,) * 4 + (2,) * 4 and not mixed.is_orthogonal()
    hol = r.transport().loops[0]
    assert len(hol) == 1 and np.allclose(hol[0].T @ hol[0], np.eye(2))  # one independent cycle, orthogonal holonomy
