"""Face posets of graphs and 2-dimensional cell complexes ([P12], "equivariant bundles over face posets").

A face poset P has one element per cell (vertices, edges, 2-faces) and σ ≤ τ iff σ is a face of τ. Cells are indexed
by rank: vertices first (in the order given), then edges, then 2-faces. The Hasse diagram (the covering relations
σ ⋖ τ, rank τ = rank σ + 1) carries the order; its rank-preserving graph automorphisms are the poset's automorphisms.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np

from icml26.common import validation as v

__all__ = ["FacePoset", "face_poset", "face_poset_from_graph"]


@dataclass(frozen=True, eq=False)
class FacePoset:
    """The face poset of a graph or a 2-dimensional cell complex ([P12], Sec. "face posets"; our construction).

    Attributes:
        labels: the vertex labels, one per 0-cell (cell ``i < n_vertices`` is vertex ``labels[i]``).
        cells: every cell as the tuple of its vertex indices (an edge ``(u, v)`` with ``u < v``; a face in the
            cyclic order it was given in).
        ranks: ``(n_cells,)`` int array, 0 for vertices, 1 for edges, 2 for faces.
        covers: the Hasse diagram: ``(σ, τ)`` index pairs with σ a facet of τ (rank τ = rank σ + 1).
    """

    labels: tuple[Hashable, ...]
    cells: tuple[tuple[int, ...], ...]
    ranks: np.ndarray
    covers: tuple[tuple[int, int], ...]
    _below: tuple[frozenset[int], ...] = field(repr=False, default=())

    @property
    def n_cells(self) -> int:
        """Number of cells (elements of the poset)."""
        return len(self.cells)

    @property
    def n_vertices(self) -> int:
        """Number of 0-cells."""
        return len(self.labels)

    @property
    def dimension(self) -> int:
        """The top rank present (1 for a graph, 2 with faces)."""
        return int(self.ranks.max())

    def leq(self, a: int, b: int) -> bool:
        """Whether cell ``a`` ≤ cell ``b`` (``a`` is a face of ``b``, or ``a == b``)."""
        return a in self._below[b]

    def below(self, b: int) -> frozenset[int]:
        """All cells ≤ ``b`` (``b`` included)."""
        return self._below[b]

    def cells_of_rank(self, r: int) -> np.ndarray:
        """Indices of the cells of rank ``r``."""
        return np.flatnonzero(self.ranks == r)

    def index(self, vertices: Sequence[Hashable]) -> int:
        """The index of the cell whose vertices (as labels) are ``vertices`` (in any order)."""
        pos = {lab: i for i, lab in enumerate(self.labels)}
        try:
            key = frozenset(pos[x] for x in vertices)
        except KeyError as exc:
            raise ValueError(f"vertices: unknown vertex label {exc.args[0]!r}") from None
        for i, c in enumerate(self.cells):
            if frozenset(c) == key and len(c) == len(vertices):
                return i
        raise ValueError(f"vertices: no cell with vertices {tuple(vertices)!r}")

    def hasse_graph(self) -> nx.Graph:
        """The Hasse diagram as an undirected networkx graph with node attribute ``rank``."""
        g = nx.Graph()
        g.add_nodes_from((i, {"rank": int(r)}) for i, r in enumerate(self.ranks))
        g.add_edges_from(self.covers)
        return g

    def automorphisms(self, *, max_count: int = 20000) -> np.ndarray:
        """All order automorphisms as a ``(k, n_cells)`` int array (row ``p``: cell ``i`` ↦ ``p[i]``), identity first.

        Every cell is determined by its vertex set, so an automorphism of the face poset is a permutation of the
        vertices that maps edges to edges and faces to faces ([P12]: the symmetries of the face poset). The vertex
        permutations preserving the 1-skeleton are enumerated with networkx's VF2 matcher and kept when they map
        every face onto a face. Raises ``ValueError`` when there are more than ``max_count``.
        """
        max_count = v.positive_int(max_count, "max_count")
        g = nx.Graph()
        g.add_nodes_from(range(self.n_vertices))
        g.add_edges_from(self.cells[i] for i in self.cells_of_rank(1))
        key = {frozenset(c): i for i, c in enumerate(self.cells)}
        out: list[list[int]] = []
        for m in nx.algorithms.isomorphism.GraphMatcher(g, g).isomorphisms_iter():
            perm = [key.get(frozenset(m[x] for x in c), -1) for c in self.cells]
            if min(perm) < 0 or any(self.ranks[j] != self.ranks[i] for i, j in enumerate(perm)):
                continue
            out.append(perm)
            if len(out) > max_count:
                raise ValueError(f"max_count: the poset has more than {max_count} automorphisms")
        return np.array(sorted(out, key=lambda p: p != list(range(self.n_cells))), dtype=np.int64)


def _edge_array(edges: Any) -> np.ndarray:
    a = v.real_array(edges, "edges", ndim=2)
    if a.shape[1] != 2:
        raise ValueError(f"edges must have shape (m, 2), got {a.shape}")
    if not np.all(a == np.round(a)) or np.any(a < 0):
        raise ValueError("edges must hold non-negative integer vertex indices")
    return a.astype(np.int64)


def _build(labels: tuple[Hashable, ...], edge_list: list[tuple[int, int]], face_list: list[tuple[int, ...]]
           ) -> FacePoset:
    """Index the cells, add the boundary edges of faces, and build the covering relations."""
    n = len(labels)
    edges: dict[frozenset[int], int] = {}
    cells: list[tuple[int, ...]] = [(i,) for i in range(n)]
    for a, b in edge_list:
        if a == b:
            raise ValueError(f"edges: self-loop at vertex {labels[a]!r} (a face poset has none)")
        key = frozenset((a, b))
        if key not in edges:
            edges[key] = len(cells)
            cells.append((min(a, b), max(a, b)))
    faces: list[tuple[int, ...]] = []
    seen: set[frozenset[int]] = set()
    for f in face_list:
        if len(f) < 3 or len(set(f)) != len(f):
            raise ValueError(f"faces: a face needs >= 3 distinct vertices, got {f!r}")
        if frozenset(f) in seen:
            raise ValueError(f"faces: two faces on the vertices {f!r}")
        seen.add(frozenset(f))
        for a, b in zip(f, (*f[1:], f[0])):
            if frozenset((a, b)) not in edges:
                edges[frozenset((a, b))] = len(cells)
                cells.append((min(a, b), max(a, b)))
        faces.append(tuple(f))
    ranks = [0] * n + [1] * (len(cells) - n)
    covers: list[tuple[int, int]] = []
    for key, e in edges.items():
        covers += [(u, e) for u in sorted(key)]
    for f in faces:
        fi = len(cells)
        cells.append(f)
        ranks.append(2)
        covers += sorted((edges[frozenset((a, b))], fi) for a, b in zip(f, (*f[1:], f[0])))
    below: list[set[int]] = [{i} for i in range(len(cells))]
    for lo, hi in sorted(covers, key=lambda c: ranks[c[1]]):
        below[hi] |= below[lo]
    return FacePoset(labels=labels, cells=tuple(cells), ranks=np.array(ranks, dtype=np.int64), covers=tuple(covers),
                     _below=tuple(frozenset(b) for b in below))


def _faces(faces: Any, n: int, name: str = "faces") -> list[tuple[int, ...]]:
    if faces is None:
        return []
    if isinstance(faces, (str, bytes)) or not isinstance(faces, Sequence):
        raise TypeError(f"{name} must be a sequence of vertex sequences, got {type(faces).__name__}")
    out = []
    for f in faces:
        arr = np.asarray(f)
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise ValueError(f"{name}: each face is a 1-D sequence of integer vertex indices, got {f!r}")
        if arr.size and (arr.min() < 0 or arr.max() >= n):
            raise ValueError(f"{name}: vertex index out of range [0, {n}) in {f!r}")
        out.append(tuple(int(x) for x in arr))
    return out


def face_poset(edges: Any, *, faces: Sequence[Sequence[int]] | None = None, n_vertices: int | None = None
               ) -> FacePoset:
    """The face poset of the graph (or 2-complex) on vertices ``0..n-1`` with these edges and faces ([P12]).

    Args:
        edges: ``(m, 2)`` array of vertex indices (integers; duplicates are merged, self-loops refused).
        faces: optional 2-cells, each a cyclic sequence of >= 3 vertex indices; missing boundary edges are added.
        n_vertices: number of vertices (default: the largest index in edges and faces + 1); isolated vertices
            are allowed.

    Returns:
        The :class:`FacePoset` (vertices, then edges, then faces).
    """
    e = _edge_array(edges)
    n = max([int(e.max()), *(int(x) for f in (faces or ()) for x in np.asarray(f).ravel()
                             if np.asarray(f).dtype.kind in "iu")]) + 1
    if n_vertices is not None:
        n_vertices = v.positive_int(n_vertices, "n_vertices")
        if n_vertices < n:
            raise ValueError(f"n_vertices must be >= {n} (the largest vertex index + 1), got {n_vertices}")
        n = n_vertices
    return _build(tuple(range(n)), [(int(a), int(b)) for a, b in e], _faces(faces, n))


def face_poset_from_graph(graph: nx.Graph, *, faces: Sequence[Sequence[Hashable]] | None = None,
                          triangles: bool = False) -> FacePoset:
    """The face poset of a networkx graph, optionally with 2-cells ([P12]).

    Args:
        graph: an undirected simple ``networkx.Graph`` (directed and multi-graphs are refused); node labels are kept.
        faces: optional 2-cells given as cyclic sequences of node labels.
        triangles: also add every triangle of the graph as a 2-cell (its clique complex up to dimension 2).
    """
    if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
        raise TypeError(f"graph must be an undirected simple networkx.Graph, got {type(graph).__name__}")
    if graph.number_of_nodes() == 0:
        raise ValueError("graph must have at least one node")
    if not isinstance(triangles, bool):
        raise TypeError(f"triangles must be a bool, got {type(triangles).__name__}")
    labels = tuple(graph.nodes())
    pos = {lab: i for i, lab in enumerate(labels)}
    edge_list = [(pos[a], pos[b]) for a, b in graph.edges()]
    face_list: list[tuple[int, ...]] = []
    if triangles:
        face_list += [tuple(pos[x] for x in c) for c in nx.enumerate_all_cliques(graph) if len(c) == 3]
    for f in faces or ():
        try:
            face_list.append(tuple(pos[x] for x in f))
        except KeyError as exc:
            raise ValueError(f"faces: unknown node label {exc.args[0]!r}") from None
    return _build(labels, edge_list, face_list)
