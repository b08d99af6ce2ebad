"""The posets and sheaves the claims are checked on ([P12]; our test cases).

Each case is built from its name and a seed (random sheaves only use the seed): cycles C₄ and C₆, the cube graph Q₃,
a triangulated square (four triangles around a centre vertex, a 2-complex), the complete graph K₄, with constant,
twisted and random O(2) sheaves. The twisted C₆ sheaf orients each edge i → i+1 and puts a rotation by 1 rad on the
head's restriction map: its holonomy is a rotation by 6 rad, its rotations lift with identity gauge and its
reflections with reflection gauges, so the group mixes automorphisms and gauge non-trivially.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from icml26.papers.oenn._poset import FacePoset, face_poset, face_poset_from_graph
from icml26.papers.oenn._sheaf import CellularSheaf, constant_sheaf, random_orthogonal_sheaf, sheaf_from_maps

__all__ = ["CASES", "build_case"]

#: case name -> short description (all O(d) sheaves, d = stalk dimension)
CASES: dict[str, str] = {
    "C4-const-d1": "cycle C4, constant sheaf R^1",
    "C6-const-d2": "cycle C6, constant sheaf R^2",
    "C6-twisted-d2": "cycle C6, SO(2) connection with holonomy rot(6)",
    "Q3-const-d2": "cube graph Q3, constant sheaf R^2",
    "square-flat-d2": "triangulated square (5 vertices, 8 edges, 4 triangles), random flat O(2) sheaf",
    "K4-O2-d2": "complete graph K4, random O(2) maps",
    "K4-SO2-d2": "complete graph K4, random SO(2) maps",
    "Petersen-const-d2": "Petersen graph, constant sheaf R^2",
}


def _rot(a: float) -> np.ndarray:
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def _twisted_cycle(n: int, angle: float) -> tuple[FacePoset, CellularSheaf]:
    p = face_poset_from_graph(nx.cycle_graph(n))
    maps = {}
    for lo, hi in p.covers:
        a, b = p.cells[hi]
        tail = a if (b - a) % n == 1 else b
        maps[lo, hi] = np.eye(2) if lo == tail else _rot(angle)
    return p, sheaf_from_maps(p, maps)


def _square() -> FacePoset:
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 4], [1, 4], [2, 4], [3, 4]])
    return face_poset(edges, faces=[(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)])


def build_case(name: str, seed: int) -> tuple[FacePoset, CellularSheaf]:
    """The (poset, sheaf) of case ``name`` (see :data:`CASES`), random sheaves drawn from ``seed``."""
    if name == "C4-const-d1":
        p = face_poset_from_graph(nx.cycle_graph(4))
        return p, constant_sheaf(p, 1)
    if name == "C6-const-d2":
        p = face_poset_from_graph(nx.cycle_graph(6))
        return p, constant_sheaf(p, 2)
    if name == "C6-twisted-d2":
        return _twisted_cycle(6, 1.0)
    if name == "Q3-const-d2":
        p = face_poset_from_graph(nx.convert_node_labels_to_integers(nx.hypercube_graph(3)))
        return p, constant_sheaf(p, 2)
    if name == "square-flat-d2":
        p = _square()
        return p, random_orthogonal_sheaf(p, 2, seed=seed, flat=True)
    if name == "Petersen-const-d2":
        p = face_poset_from_graph(nx.petersen_graph())
        return p, constant_sheaf(p, 2)
    if name in ("K4-O2-d2", "K4-SO2-d2"):
        p = face_poset_from_graph(nx.complete_graph(4))
        return p, random_orthogonal_sheaf(p, 2, seed=seed, special=name == "K4-SO2-d2")
    raise ValueError(f"name must be one of {sorted(CASES)}, got {name!r}")
