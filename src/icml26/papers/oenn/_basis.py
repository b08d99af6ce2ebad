"""The basis of linear order-equivariant maps on a sheaf ([P12] (i), "characterize all linear order-equivariant
maps"; the characterization below is our derivation), and the numerical commutant it is checked against.

Characterization (derived). Let G be the symmetry group of :mod:`._symmetry`. A linear map Φ on ⊕_σ F(σ), with
blocks Φ_{στ}: F(τ) → F(σ), commutes with G iff

1. Φ is constant along orbits of cell pairs: Φ_{πσ,πτ} = g_σ Φ_{στ} g_τᵀ for every (π, g) ∈ G, so Φ is fixed by
   its block at one representative (σ, τ) of each orbit of the permutation part on P × P;
2. with gauge, that block lies in the span of the transports along all zigzag paths τ → σ of the Hasse diagram
   (equivalently T_σ A T_τᵀ, A the holonomy algebra: the commutant of the pure gauge group, by the double
   commutant theorem), and is 0 across components; without gauge it is any d_σ × d_τ matrix;
3. it is fixed by the stabiliser of (σ, τ): the average of g_σ X g_τᵀ over the lifts of the automorphisms fixing
   σ and τ projects onto the allowed blocks.

So dim = Σ_{orbits} dim(Reynolds image of the transport span), and the basis is the orbit-expansion of an
orthonormal basis of each image. The orbits ⊇ the order relations (σ < τ, σ > τ, shared cofaces, ...): the local
relation operators of :mod:`._operators` span a subspace of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from icml26.common import validation as v
from icml26.papers.oenn._poset import FacePoset
from icml26.papers.oenn._sheaf import CellularSheaf
from icml26.papers.oenn._symmetry import SheafSymmetry, sheaf_symmetries

__all__ = ["CommutantResult", "EquivariantBasis", "commutant_dimension", "equivariant_basis"]


@dataclass(frozen=True, eq=False)
class EquivariantBasis:
    """An orthonormal basis of the linear maps on ⊕_σ F(σ) that commute with a sheaf's symmetries ([P12] (i)).

    Attributes:
        matrices: ``(K, dim, dim)``; orthonormal in the Frobenius inner product.
        orbit: ``(K,)`` the orbit of cell pairs each element is supported on.
        orbit_reps: one representative ``(σ, τ)`` per orbit.
        orbit_sizes: the number of cell pairs in each orbit.
        symmetry: the group the maps commute with.
    """

    matrices: np.ndarray
    orbit: np.ndarray
    orbit_reps: tuple[tuple[int, int], ...]
    orbit_sizes: tuple[int, ...]
    symmetry: SheafSymmetry

    def __len__(self) -> int:
        return int(self.matrices.shape[0])


def _pair_orbits(perms: np.ndarray, n: int) -> tuple[np.ndarray, list[tuple[int, int]], np.ndarray]:
    """Orbit id per cell pair, the representatives, and per pair the index of a permutation mapping its
    representative onto it."""
    orbit = np.full((n, n), -1, dtype=np.int64)
    witness = np.full((n, n), -1, dtype=np.int64)
    reps: list[tuple[int, int]] = []
    for s in range(n):
        for t in range(n):
            if orbit[s, t] >= 0:
                continue
            k = len(reps)
            reps.append((s, t))
            a, b = perms[:, s], perms[:, t]
            for i in range(perms.shape[0] - 1, -1, -1):  # the first (identity) wins on the representative
                orbit[a[i], b[i]] = k
                witness[a[i], b[i]] = i
    return orbit, reps, witness


def _allowed_blocks(sym: SheafSymmetry, s: int, t: int) -> list[np.ndarray]:
    """A spanning set of the blocks allowed at (s, t) by the pure gauge part (step 2 of the characterization)."""
    sheaf = sym.sheaf
    ds, dt = sheaf.stalk_dims[s], sheaf.stalk_dims[t]
    if not sym.gauge:
        return [np.outer(np.eye(ds)[i], np.eye(dt)[j]) for i in range(ds) for j in range(dt)]
    tr = sheaf.transport()
    c = int(tr.comp[s])
    if c != int(tr.comp[t]):
        return []
    return [tr.frame[s] @ a @ tr.frame[t].T for a in sym.holonomy[c]]


def _reynolds(sym: SheafSymmetry, s: int, t: int, blocks: list[np.ndarray]) -> list[np.ndarray]:
    """Orthonormal basis of the stabiliser-average image of ``blocks`` (step 3)."""
    if not blocks:
        return []
    stab = [i for i, p in enumerate(sym.perms) if p[s] == s and p[t] == t]
    imgs = []
    for x in blocks:
        acc = np.zeros_like(x)
        for i in stab:
            g = sym.lifts[i].blocks
            acc += g[s] @ x @ g[t].T
        imgs.append((acc / len(stab)).ravel())
    _, sv, vt = np.linalg.svd(np.array(imgs), full_matrices=False)
    rank = int(np.sum(sv > 1e-9 * max(1.0, sv[0])))
    return [vt[k].reshape(blocks[0].shape) for k in range(rank)]


def equivariant_basis(poset: FacePoset, sheaf: CellularSheaf, *, gauge: bool = True,
                      max_automorphisms: int = 20000) -> EquivariantBasis:
    """The basis of all linear order-equivariant maps of ``sheaf``'s signals ([P12] (i); our characterization).

    Args:
        poset: the face poset (must be ``sheaf.poset``).
        sheaf: the sheaf (an O(d) sheaf when ``gauge``).
        gauge: commute with the whole automorphism group of the sheaf (automorphisms × gauge), or only with the
            automorphisms that preserve every restriction map (identity gauge).
        max_automorphisms: refuse posets with more order automorphisms than this (they are enumerated).

    Returns:
        An :class:`EquivariantBasis`; its length is the dimension of the commutant. Dense ``(dim, dim)`` matrices:
        meant for small posets (the number of orbits of cell pairs grows like n_cells² / |Aut|).
    """
    if not isinstance(poset, FacePoset):
        raise TypeError(f"poset must be a FacePoset, got {type(poset).__name__}")
    if not isinstance(sheaf, CellularSheaf):
        raise TypeError(f"sheaf must be a CellularSheaf, got {type(sheaf).__name__}")
    if sheaf.poset is not poset:
        raise ValueError("sheaf must be a sheaf on this poset (sheaf.poset is not poset)")
    sym = sheaf_symmetries(sheaf, gauge=gauge, max_automorphisms=max_automorphisms)
    n, off = poset.n_cells, sheaf.offsets
    orbit, reps, witness = _pair_orbits(sym.perms, n)
    mats, which = [], []
    for k, (s, t) in enumerate(reps):
        pairs = np.argwhere(orbit == k)
        for b in _reynolds(sym, s, t, _allowed_blocks(sym, s, t)):
            m = np.zeros((sheaf.dim, sheaf.dim))
            for a, c in pairs:
                g = sym.lifts[int(witness[a, c])].blocks
                m[off[a]:off[a + 1], off[c]:off[c + 1]] = g[s] @ b @ g[t].T
            mats.append(m / np.linalg.norm(m))
            which.append(k)
    sizes = tuple(int(np.sum(orbit == k)) for k in range(len(reps)))
    arr = np.array(mats) if mats else np.zeros((0, sheaf.dim, sheaf.dim))
    return EquivariantBasis(matrices=arr, orbit=np.array(which, dtype=np.int64), orbit_reps=tuple(reps),
                            orbit_sizes=sizes, symmetry=sym)


@dataclass(frozen=True)
class CommutantResult:
    """The numerical commutant of a set of matrices ([P12] (i), the oracle): its dimension and the evidence.

    Attributes:
        dim: the null-space dimension of the stacked Kronecker constraints.
        largest_zero: the largest singular value counted as zero (0 when none).
        smallest_nonzero: the smallest singular value counted as non-zero (inf when none).
        components: the number of independent blocks the constraint matrix split into.
    """

    dim: int
    largest_zero: float
    smallest_nonzero: float
    components: int

    @property
    def gap(self) -> float:
        """smallest_nonzero / largest_zero: how clearly the rank was decided (inf when nothing was borderline)."""
        if self.largest_zero == 0.0:
            return float("inf")
        return self.smallest_nonzero / self.largest_zero


def commutant_dimension(actions: np.ndarray | Sequence[np.ndarray], *, tol: float = 1e-9) -> CommutantResult:
    """The dimension of {Φ : U Φ = Φ U for every U in ``actions``}, by SVD of the stacked constraints ([P12] (i), oracle).

    ``actions`` is a ``(k, n, n)`` array (or a sequence of ``(n, n)`` matrices). The constraint of U on vec(Φ)
    (row-major) is K_U = U ⊗ I − I ⊗ Uᵀ; the stacked K is split into the connected blocks of its sparsity pattern
    (an exact reordering: the singular values are the union of the blocks'), and each block's singular values are
    counted as zero below ``tol`` × max(1, the block's largest).
    """
    if isinstance(actions, (str, bytes)):
        raise TypeError("actions must be an array of square matrices")
    arr = v.real_array(actions if isinstance(actions, np.ndarray) else np.asarray(actions), "actions", ndim=3)
    if arr.shape[1] != arr.shape[2] or arr.shape[1] == 0:
        raise ValueError(f"actions must be (k, n, n) with square n x n matrices, got shape {arr.shape}")
    mats = list(arr)
    n = arr.shape[1]
    tol = v.real(tol, "tol", lo=0.0, lo_open=True)
    eye = sp.identity(n, format="csr")
    k = sp.csr_matrix(sp.vstack([sp.kron(sp.csr_matrix(m), eye) - sp.kron(eye, sp.csr_matrix(m.T)) for m in mats]))
    k.eliminate_zeros()
    r = len(mats) * n * n  # rows of the stacked constraints
    pattern = sp.bmat([[None, abs(k)], [abs(k).T, None]], format="csr")
    n_comp, labels = connected_components(pattern, directed=False)
    row_lab, col_lab = labels[:r], labels[r:]
    dim, big0, small1, used = 0, 0.0, float("inf"), 0
    rows_of = {lab: np.flatnonzero(row_lab == lab) for lab in np.unique(row_lab)}
    for lab in np.unique(col_lab):
        cols = np.flatnonzero(col_lab == lab)
        rows = rows_of.get(lab)
        used += 1
        if rows is None or rows.size == 0:
            dim += cols.size
            continue
        sv = np.linalg.svd(k[rows][:, cols].toarray(), compute_uv=False)
        cut = tol * max(1.0, float(sv[0]))
        nz = sv[sv > cut]
        z = sv[sv <= cut]
        dim += cols.size - nz.size
        big0 = max(big0, float(z.max()) if z.size else 0.0)
        small1 = min(small1, float(nz.min()) if nz.size else float("inf"))
    return CommutantResult(dim=int(dim), largest_zero=big0, smallest_nonzero=small1, components=used)
