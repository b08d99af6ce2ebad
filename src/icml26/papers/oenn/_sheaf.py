"""Cellular sheaves on face posets ([P12]: the bundles whose symmetries OENNs respect; sheaf NNs' data).

A cellular sheaf F on a face poset gives every cell σ a stalk F(σ) = R^{d_σ} and every covering relation σ ⋖ τ a
restriction map F_{σ≤τ}: F(σ) → F(τ); for σ ≤ τ two ranks apart the map is the composite through any intermediate
cell, and all such composites must agree (functoriality, checked on construction). An O(d) sheaf has every
d_σ = d and every restriction map orthogonal. Transport along a zigzag of the Hasse diagram composes F (going up)
and Fᵀ (going down); for an O(d) sheaf it is orthogonal.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from icml26.common import validation as v
from icml26.papers.oenn._poset import FacePoset

__all__ = ["CellularSheaf", "constant_sheaf", "random_orthogonal_sheaf", "sheaf_from_maps"]

_TOL = 1e-9


@dataclass(frozen=True)
class Transport:
    """A spanning forest of the Hasse diagram with the transports from each component's base cell.

    ``base[c]`` is the base cell of component ``c``; ``comp[σ]`` its component; ``frame[σ]`` the transport
    F(base) → F(σ) along the tree path; ``path[σ]`` the (parent, child, up) steps of that path from the base;
    ``loops[c]`` the holonomies (base → σ → τ → base) of the non-tree covers of component ``c``.
    """

    base: tuple[int, ...]
    comp: np.ndarray
    frame: tuple[np.ndarray, ...]
    path: tuple[tuple[tuple[int, int, bool], ...], ...]
    loops: tuple[tuple[np.ndarray, ...], ...]
    non_tree: tuple[tuple[tuple[int, int], ...], ...]


@dataclass(frozen=True, eq=False)
class CellularSheaf:
    """A cellular sheaf on a :class:`FacePoset` ([P12]; the data of sheaf neural networks, Bodnar et al. 2022).

    Attributes:
        poset: the face poset.
        stalk_dims: ``d_σ`` per cell.
        maps: covering relation ``(σ, τ)`` -> the ``(d_τ, d_σ)`` restriction map F_{σ≤τ}.
    """

    poset: FacePoset
    stalk_dims: tuple[int, ...]
    maps: Mapping[tuple[int, int], np.ndarray]
    _transport: list[Transport] = field(default_factory=list, repr=False)

    @property
    def dim(self) -> int:
        """Total dimension of the signal space ⊕_σ F(σ)."""
        return int(sum(self.stalk_dims))

    @property
    def offsets(self) -> np.ndarray:
        """``(n_cells + 1,)``: the rows of cell σ in a signal are ``offsets[σ]:offsets[σ + 1]``."""
        return np.concatenate([[0], np.cumsum(self.stalk_dims)]).astype(np.int64)

    @property
    def cell_of_row(self) -> np.ndarray:
        """``(dim,)``: the cell each row of a signal belongs to."""
        return np.repeat(np.arange(self.poset.n_cells), self.stalk_dims)

    def restriction(self, lo: int, hi: int) -> np.ndarray:
        """F_{lo≤hi} for any lo ≤ hi (the identity when equal, the composite through a chain otherwise)."""
        if lo == hi:
            return np.eye(self.stalk_dims[lo])
        if (lo, hi) in self.maps:
            return self.maps[lo, hi]
        if not self.poset.leq(lo, hi):
            raise ValueError(f"cells {lo} and {hi} are not ordered (lo ≤ hi)")
        mid = next(m for (a, m) in self.maps if a == lo and self.poset.leq(m, hi))
        return self.restriction(mid, hi) @ self.maps[lo, mid]

    def is_orthogonal(self, *, tol: float = _TOL) -> bool:
        """Whether every stalk has the same dimension and every restriction map is orthogonal (an O(d) sheaf)."""
        if len(set(self.stalk_dims)) != 1:
            return False
        d = self.stalk_dims[0]
        return all(np.allclose(m.T @ m, np.eye(d), atol=tol) for m in self.maps.values())

    def transport(self) -> Transport:
        """The spanning forest of the Hasse diagram and its transports (needs an O(d) sheaf; built once)."""
        if not self._transport:
            if not self.is_orthogonal():
                raise ValueError("sheaf: transport needs an O(d) sheaf (equal stalk dims, orthogonal maps)")
            self._transport.append(_build_transport(self))
        return self._transport[0]


def _build_transport(sheaf: CellularSheaf) -> Transport:
    """BFS over the Hasse diagram from the lowest-index cell of each component."""
    p = sheaf.poset
    nbrs: list[list[tuple[int, bool]]] = [[] for _ in range(p.n_cells)]
    for lo, hi in p.covers:
        nbrs[lo].append((hi, True))
        nbrs[hi].append((lo, False))
    comp = np.full(p.n_cells, -1, dtype=np.int64)
    frame: list[Any] = [None] * p.n_cells
    path: list[Any] = [None] * p.n_cells
    bases: list[int] = []
    tree: set[tuple[int, int]] = set()
    for start in range(p.n_cells):
        if comp[start] >= 0:
            continue
        c = len(bases)
        bases.append(start)
        comp[start], frame[start], path[start] = c, np.eye(sheaf.stalk_dims[start]), ()
        queue = deque([start])
        while queue:
            a = queue.popleft()
            for b, up in nbrs[a]:
                if comp[b] >= 0:
                    continue
                f = sheaf.maps[(a, b) if up else (b, a)]
                comp[b], frame[b], path[b] = c, (f if up else f.T) @ frame[a], (*path[a], (a, b, up))
                tree.add((a, b) if up else (b, a))
                queue.append(b)
    loops: list[list[np.ndarray]] = [[] for _ in bases]
    non_tree: list[list[tuple[int, int]]] = [[] for _ in bases]
    for lo, hi in p.covers:
        if (lo, hi) not in tree:
            c = int(comp[lo])
            loops[c].append(frame[hi].T @ sheaf.maps[lo, hi] @ frame[lo])
            non_tree[c].append((lo, hi))
    return Transport(base=tuple(bases), comp=comp, frame=tuple(frame), path=tuple(path),
                     loops=tuple(tuple(x) for x in loops), non_tree=tuple(tuple(x) for x in non_tree))


def _check_functorial(poset: FacePoset, maps: Mapping[tuple[int, int], np.ndarray]) -> None:
    """All composites F_{e≤f} F_{v≤e} through different edges e must agree (raises ``ValueError`` naming ``maps``)."""
    for f in poset.cells_of_rank(2):
        edges = [lo for (lo, hi) in poset.covers if hi == f]
        seen: dict[int, np.ndarray] = {}
        for e in edges:
            for (vtx, hi) in poset.covers:
                if hi != e:
                    continue
                comp = maps[e, f] @ maps[vtx, e]
                if vtx in seen and not np.allclose(seen[vtx], comp, atol=1e-8 * max(1.0, np.abs(comp).max())):
                    raise ValueError(f"maps: not functorial at vertex {vtx} of face {int(f)} (the composites through "
                                     "two boundary edges differ)")
                seen.setdefault(vtx, comp)


def sheaf_from_maps(poset: FacePoset, maps: Mapping[tuple[int, int], Any], *, stalk_dims: Sequence[int] | None = None
                    ) -> CellularSheaf:
    """A cellular sheaf from its restriction maps on the covering relations ([P12]).

    Args:
        poset: the face poset.
        maps: ``(σ, τ)`` cover -> ``(d_τ, d_σ)`` real matrix, one for every cover of ``poset.covers``.
        stalk_dims: ``d_σ`` per cell (default: read off the maps; a cell in no cover then needs it).
    """
    if not isinstance(poset, FacePoset):
        raise TypeError(f"poset must be a FacePoset, got {type(poset).__name__}")
    if not isinstance(maps, Mapping):
        raise TypeError(f"maps must be a mapping (σ, τ) -> matrix, got {type(maps).__name__}")
    missing = [c for c in poset.covers if c not in maps]
    extra = [k for k in maps if k not in set(poset.covers)]
    if missing or extra:
        raise ValueError(f"maps must have one matrix per cover: missing {missing[:3]}, not covers {extra[:3]}")
    mats = {c: v.real_array(maps[c], "maps", ndim=2) for c in poset.covers}
    dims: list[int | None] = [None] * poset.n_cells
    if stalk_dims is not None:
        dims = [v.positive_int(d, "stalk_dims") for d in stalk_dims]
        if len(dims) != poset.n_cells:
            raise ValueError(f"stalk_dims must have one entry per cell ({poset.n_cells}), got {len(dims)}")
    for (lo, hi), m in mats.items():
        for cell, d in ((hi, m.shape[0]), (lo, m.shape[1])):
            if dims[cell] is None:
                dims[cell] = d
            elif dims[cell] != d:
                raise ValueError(f"maps: the map on cover {(lo, hi)} has shape {m.shape}, inconsistent with the "
                                 f"stalk dimension {dims[cell]} of cell {cell}")
    if any(d is None for d in dims):
        raise ValueError("stalk_dims: an isolated cell needs its stalk dimension given")
    _check_functorial(poset, mats)
    return CellularSheaf(poset=poset, stalk_dims=tuple(int(d) for d in dims if d is not None), maps=mats)


def constant_sheaf(poset: FacePoset, d: int) -> CellularSheaf:
    """The constant sheaf R^d (identity restriction maps): on it OENNs are graph message passing ([P12])."""
    if not isinstance(poset, FacePoset):
        raise TypeError(f"poset must be a FacePoset, got {type(poset).__name__}")
    d = v.positive_int(d, "d")
    return CellularSheaf(poset=poset, stalk_dims=(d,) * poset.n_cells, maps={c: np.eye(d) for c in poset.covers})


def _haar(d: int, g: np.random.Generator, special: bool) -> np.ndarray:
    q, r = np.linalg.qr(g.standard_normal((d, d)))
    q = q * np.sign(np.diag(r))
    if special and np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


def random_orthogonal_sheaf(poset: FacePoset, d: int, *, seed: int, special: bool = False, flat: bool = False
                            ) -> CellularSheaf:
    """A random O(d) sheaf ([P12]'s sheaf setting): Haar-random orthogonal restriction maps.

    With ``flat=False`` every cover gets an independent Haar map (generic holonomy); this needs a poset without
    2-cells, since a face forces the transport around its boundary to be the identity. With ``flat=True`` every
    cell gets a random frame h_σ and F_{σ≤τ} = h_τ h_σᵀ (a gauge transform of the constant sheaf; any dimension).
    ``special`` restricts the maps (or frames) to SO(d).
    """
    if not isinstance(poset, FacePoset):
        raise TypeError(f"poset must be a FacePoset, got {type(poset).__name__}")
    d = v.positive_int(d, "d")
    g = np.random.default_rng(v.seed(seed))
    for name, val in (("special", special), ("flat", flat)):
        if not isinstance(val, bool):
            raise TypeError(f"{name} must be a bool, got {type(val).__name__}")
    if flat:
        frames = [_haar(d, g, special) for _ in range(poset.n_cells)]
        maps = {(lo, hi): frames[hi] @ frames[lo].T for lo, hi in poset.covers}
    else:
        if poset.dimension >= 2:
            raise ValueError("flat: a poset with 2-cells needs flat=True (faces force zero holonomy on their boundary)")
        maps = {c: _haar(d, g, special) for c in poset.covers}
    return CellularSheaf(poset=poset, stalk_dims=(d,) * poset.n_cells, maps=maps)
