"""Local order-relation operators on a sheaf ([P12] (ii): the linear parts of OENN layers; our construction).

Every operator is built from the order of the face poset and the restriction maps (F going up, Fᵀ going down), so
it commutes with every symmetry (π, g) of the sheaf whose blocks are orthogonal: relabelling cells preserves the
order, and g_τ F_{σ≤τ} g_σᵀ = F_{πσ≤πτ}. For cells of rank r:

- ``self[r]``: the identity on rank-r stalks;
- ``up[r->q]`` / ``down[q->r]`` (q > r): Σ_{σ<τ} F_{σ≤τ} x_σ into τ, and its adjoint;
- ``coface_adj[r]`` / ``coface_deg[r]``: Σ over shared cofaces τ of F_{σ≤τ}ᵀ F_{σ'≤τ} x_{σ'} (σ' ≠ σ), and the
  diagonal σ' = σ term (the degree; for an O(d) sheaf deg(σ)·I);
- ``face_adj[r]`` / ``face_deg[r]``: the same through shared faces ρ: F_{ρ≤σ} F_{ρ≤σ'}ᵀ.

The vertex sheaf Laplacian L_F = δᵀδ is ``coface_deg[0] − coface_adj[0]`` (Hansen & Ghrist); on the constant sheaf
R¹, ``coface_adj[0]`` is the graph's adjacency matrix. They span a subspace of the commutant of
:func:`~._basis.equivariant_basis` (the orbits that are order relations of length <= 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from icml26.papers.oenn._sheaf import CellularSheaf

__all__ = ["OperatorStack", "relation_operators", "sheaf_laplacian"]


@dataclass(frozen=True, eq=False)
class OperatorStack:
    """Named linear operators on one signal space ⊕_{σ ∈ cells} F(σ) ([P12]: the maps an OENN layer combines).

    Attributes:
        names: one name per operator.
        matrices: ``(dim, dim)`` scipy CSR matrices.
        cell_of_row: ``(dim,)`` the cell (0..n_cells-1, within ``cells``) each row belongs to (for gated nonlinearities).
        cells: the poset cells the signal space covers, in row order.
    """

    names: tuple[str, ...]
    matrices: tuple[sp.csr_matrix, ...]
    cell_of_row: np.ndarray
    cells: tuple[int, ...]

    @property
    def dim(self) -> int:
        """Dimension of the signal space."""
        return int(self.cell_of_row.size)

    @property
    def n_cells(self) -> int:
        """Number of cells in the signal space."""
        return len(self.cells)

    def __len__(self) -> int:
        return len(self.matrices)

    def dense(self) -> np.ndarray:
        """All operators as one ``(K, dim, dim)`` array."""
        return np.array([m.toarray() for m in self.matrices]).reshape(len(self), self.dim, self.dim)

    def normalized(self) -> OperatorStack:
        """The same operators, each divided by its largest absolute row sum (keeps layer outputs O(1))."""
        mats = []
        for m in self.matrices:
            s = float(abs(m).sum(axis=1).max()) if m.nnz else 1.0
            mats.append(sp.csr_matrix(m * (1.0 / s)))
        return OperatorStack(names=self.names, matrices=tuple(mats), cell_of_row=self.cell_of_row, cells=self.cells)

    @classmethod
    def from_dense(cls, names: Sequence[str], matrices: np.ndarray, cell_of_row: np.ndarray,
                   cells: Sequence[int]) -> OperatorStack:
        """An operator stack from a ``(K, dim, dim)`` array (e.g. an :class:`~._basis.EquivariantBasis`)."""
        return cls(names=tuple(names), matrices=tuple(sp.csr_matrix(m) for m in matrices),
                   cell_of_row=np.asarray(cell_of_row, dtype=np.int64), cells=tuple(int(c) for c in cells))


def _incidence(sheaf: CellularSheaf, lo_rank: int, hi_rank: int) -> sp.csr_matrix:
    """The full-space matrix with blocks F_{σ≤τ} at (τ, σ) for every σ < τ of these ranks."""
    p, off = sheaf.poset, sheaf.offsets
    rows, cols, vals = [], [], []
    for t in p.cells_of_rank(hi_rank):
        for s in sorted(p.below(int(t))):
            if p.ranks[s] != lo_rank:
                continue
            m = sheaf.restriction(int(s), int(t))
            r, c = np.meshgrid(np.arange(int(off[t]), int(off[t + 1])), np.arange(int(off[s]), int(off[s + 1])),
                               indexing="ij")
            rows.append(r.ravel())
            cols.append(c.ravel())
            vals.append(m.ravel())
    if not rows:
        return sp.csr_matrix((sheaf.dim, sheaf.dim))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                         shape=(sheaf.dim, sheaf.dim))


def _split_diagonal(m: sp.csr_matrix, cell_of_row: np.ndarray) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(off-diagonal-block part, diagonal-block part) of ``m`` by cells."""
    coo = m.tocoo()
    same = cell_of_row[coo.row] == cell_of_row[coo.col]
    def pick(mask: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix((coo.data[mask], (coo.row[mask], coo.col[mask])), shape=m.shape)
    return pick(~same), pick(same)


def _full_operators(sheaf: CellularSheaf) -> dict[str, sp.csr_matrix]:
    p = sheaf.poset
    cor = sheaf.cell_of_row
    rank_rows = p.ranks[cor]
    out: dict[str, sp.csr_matrix] = {}
    top = p.dimension
    for r in range(top + 1):
        out[f"self[{r}]"] = sp.csr_matrix(sp.diags((rank_rows == r).astype(float)))
    for r in range(top + 1):
        for q in range(r + 1, top + 1):
            inc = _incidence(sheaf, r, q)
            out[f"up[{r}->{q}]"] = inc
            out[f"down[{q}->{r}]"] = sp.csr_matrix(inc.T)
    for r in range(top):
        inc = _incidence(sheaf, r, r + 1)
        adj, deg = _split_diagonal((inc.T @ inc).tocsr(), cor)
        out[f"coface_adj[{r}]"], out[f"coface_deg[{r}]"] = adj, deg
    for r in range(1, top + 1):
        inc = _incidence(sheaf, r - 1, r)
        adj, deg = _split_diagonal((inc @ inc.T).tocsr(), cor)
        out[f"face_adj[{r}]"], out[f"face_deg[{r}]"] = adj, deg
    return out


def relation_operators(sheaf: CellularSheaf, *, ranks: Sequence[int] | None = None,
                       kinds: Sequence[str] | None = None) -> OperatorStack:
    """The local order-relation operators of ``sheaf`` (module docstring; [P12] (ii), our construction).

    Args:
        sheaf: any cellular sheaf (any stalk dimensions; equivariance needs orthogonal symmetry blocks only).
        ranks: keep only the stalks of cells of these ranks (default: all). ``ranks=(0,)`` gives operators on
            vertex signals (message passing); adjacency through cofaces still uses the edges.
        kinds: keep only operators whose name starts with one of these (``"self"``, ``"up"``, ``"coface_adj"``...).

    Returns:
        An :class:`OperatorStack`; all-zero operators are dropped.
    """
    if not isinstance(sheaf, CellularSheaf):
        raise TypeError(f"sheaf must be a CellularSheaf, got {type(sheaf).__name__}")
    p = sheaf.poset
    keep_ranks = sorted(set(range(p.dimension + 1)) if ranks is None else {int(r) for r in ranks})
    if ranks is not None and (not keep_ranks or any(r < 0 or r > p.dimension for r in keep_ranks)):
        raise ValueError(f"ranks must be a non-empty subset of 0..{p.dimension}, got {ranks!r}")
    if kinds is not None and (isinstance(kinds, str) or not all(isinstance(k, str) for k in kinds)):
        raise TypeError("kinds must be a sequence of operator-name prefixes")
    cor = sheaf.cell_of_row
    rows = np.flatnonzero(np.isin(p.ranks[cor], keep_ranks))
    cells = tuple(int(c) for c in np.flatnonzero(np.isin(p.ranks, keep_ranks)))
    remap = {c: i for i, c in enumerate(cells)}
    names, mats = [], []
    for name, m in _full_operators(sheaf).items():
        if kinds is not None and not any(name.startswith(k) for k in kinds):
            continue
        sub = m[rows][:, rows].tocsr()
        sub.eliminate_zeros()
        if sub.nnz:
            names.append(name)
            mats.append(sub)
    return OperatorStack(names=tuple(names), matrices=tuple(mats),
                         cell_of_row=np.array([remap[int(c)] for c in cor[rows]], dtype=np.int64), cells=cells)


def sheaf_laplacian(sheaf: CellularSheaf, *, normalized: bool = False) -> sp.csr_matrix:
    """The vertex sheaf Laplacian L_F = δᵀδ on ⊕_v F(v) ([P12]'s sheaf NNs; Hansen & Ghrist 2019).

    ``normalized``: D^{-1/2} L_F D^{-1/2}, D the block diagonal of L_F (Bodnar et al. 2022); a vertex with D = 0
    keeps its zero rows.
    """
    if not isinstance(sheaf, CellularSheaf):
        raise TypeError(f"sheaf must be a CellularSheaf, got {type(sheaf).__name__}")
    if not isinstance(normalized, bool):
        raise TypeError(f"normalized must be a bool, got {type(normalized).__name__}")
    ops = relation_operators(sheaf, ranks=(0,), kinds=("coface_adj", "coface_deg"))
    by = dict(zip(ops.names, ops.matrices))
    n = ops.dim
    deg = by.get("coface_deg[0]", sp.csr_matrix((n, n)))
    lap = (deg - by.get("coface_adj[0]", sp.csr_matrix((n, n)))).tocsr()
    if not normalized:
        return lap
    dense_deg = deg.toarray()
    inv = np.zeros((n, n))
    for c in range(ops.n_cells):
        idx = np.flatnonzero(ops.cell_of_row == c)
        w, q = np.linalg.eigh(dense_deg[np.ix_(idx, idx)])
        inv[np.ix_(idx, idx)] = (q * np.where(w > 1e-12, 1.0 / np.sqrt(np.maximum(w, 1e-300)), 0.0)) @ q.T
    s = sp.csr_matrix(inv)
    return (s @ lap @ s).tocsr()
