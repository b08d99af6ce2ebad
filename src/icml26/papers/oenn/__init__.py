"""[P12] Foundations of Equivariant Deep Learning: Unifying Graph and Sheaf Neural Networks

What it is: order-equivariant neural networks (OENNs) act on signals over the face poset of a graph or a 2-dimensional
cell complex (vertices ≤ edges ≤ faces), valued in a cellular sheaf F (stalks R^{d_σ}, restriction maps F_{σ≤τ}).
The symmetries are the poset's automorphisms lifted to isomorphisms of the sheaf, with O(d) gauge transformations of
the stalks (or without gauge: the automorphisms that fix every restriction map). A linear OENN layer is Σ_k A_k X W_k
with A_k order-equivariant operators and W_k channel mixing; a norm-gated nonlinearity keeps gauge equivariance.
Graph message passing (constant sheaf R¹) and neural sheaf diffusion (the sheaf Laplacian) are instances.

Claims (words, bars and basis in paper.toml; measured in ``_checks_*.py``, judged in ``_rules.py``):
  1. ``complete_characterization`` — all linear order-equivariant maps are characterized (Abstract (i)): the
     number of elements of :func:`equivariant_basis` equals the numerically computed commutant, exactly.
  2. ``exact_equivariance`` — OENN layers are order-equivariant (Abstract (ii)), and a control is not.
  3. ``universal_approximation`` — UATs for continuous order-equivariant maps (Abstract (iii)), as a width trend.
  4. ``heterophilic_sbm`` — the graph and sheaf illustrations: a sheaf-OENN against GCN and an MLP.

Reconstructions (only the abstract was available; no paper text or code):
  1. The group, and the characterization of :mod:`._basis` (orbits of cell pairs; with gauge, blocks in the span of
     parallel transports along zigzag paths, i.e. the holonomy algebra by the double commutant theorem; averaged
     over stabilisers) are our derivation. The local relation operators (self, incidence, adjacency through shared
     faces and cofaces) used by layers on large graphs span only part of it on symmetric posets.
  2. Layers, nonlinearities (``gate``: x·sigmoid(‖x‖ + b) per cell and channel) and the constructors are ours.
  3. The approximation target, the SBM task and the learned O(1) sheaf (maps tanh(w·[x_v, x_u] + b), after Bodnar
     et al. 2022) are our test problems.
"""

from icml26.papers.oenn._basis import CommutantResult, EquivariantBasis, commutant_dimension, equivariant_basis
from icml26.papers.oenn._constructors import message_passing, sheaf_diffusion
from icml26.papers.oenn._layers import NONLINEARITIES, OENN, OENNLayer
from icml26.papers.oenn._nodes import GCN, MLP, SheafOENNClassifier
from icml26.papers.oenn._operators import OperatorStack, relation_operators, sheaf_laplacian
from icml26.papers.oenn._poset import FacePoset, face_poset, face_poset_from_graph
from icml26.papers.oenn._sbm import NodeTask, edge_homophily, heterophilic_sbm, train_node_classifier
from icml26.papers.oenn._sheaf import CellularSheaf, constant_sheaf, random_orthogonal_sheaf, sheaf_from_maps
from icml26.papers.oenn._symmetry import GroupElement, SheafSymmetry, sheaf_symmetries

__all__ = [
    "GCN",
    "MLP",
    "NONLINEARITIES",
    "OENN",
    "CellularSheaf",
    "CommutantResult",
    "EquivariantBasis",
    "FacePoset",
    "GroupElement",
    "NodeTask",
    "OENNLayer",
    "OperatorStack",
    "SheafOENNClassifier",
    "SheafSymmetry",
    "commutant_dimension",
    "constant_sheaf",
    "edge_homophily",
    "equivariant_basis",
    "face_poset",
    "face_poset_from_graph",
    "heterophilic_sbm",
    "message_passing",
    "random_orthogonal_sheaf",
    "relation_operators",
    "sheaf_diffusion",
    "sheaf_from_maps",
    "sheaf_laplacian",
    "sheaf_symmetries",
    "train_node_classifier",
]
