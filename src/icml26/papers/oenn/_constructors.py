"""Graph message passing and neural sheaf diffusion as OENN instances ([P12]: OENNs "generalize standard graph
message passing and sheaf neural networks").

- :func:`message_passing`: the constant sheaf R¹ on the vertices, operators {identity, adjacency}: every layer is
  h_v ↦ ρ(W₀ h_v + W₁ Σ_{u ~ v} h_u) (GraphConv, Morris et al. 2019).
- :func:`sheaf_diffusion`: operators {Δ_F} with residual layers: X ↦ X + ρ(Δ_F X W) (neural sheaf diffusion,
  Bodnar et al. 2022, with the stalk-mixing weight dropped so that gauge equivariance holds; ρ odd, so the sign of
  the step is absorbed in W). With ρ = identity and W = −α I it is the sheaf heat equation X ↦ X − α Δ_F X.
"""

from __future__ import annotations

import torch

from icml26.common import validation as v
from icml26.papers.oenn._layers import OENN
from icml26.papers.oenn._operators import OperatorStack, relation_operators, sheaf_laplacian
from icml26.papers.oenn._poset import FacePoset
from icml26.papers.oenn._sheaf import CellularSheaf, constant_sheaf

__all__ = ["message_passing", "sheaf_diffusion"]


def message_passing(poset: FacePoset, in_channels: int, hidden_channels: int, out_channels: int, *, layers: int = 2,
                    nonlinearity: str = "relu", seed: int, dtype: torch.dtype = torch.float32) -> OENN:
    """Graph message passing as an OENN ([P12]): constant sheaf R¹, vertex stalks, operators self and adjacency.

    Input and output are vertex signals ``(B, n_vertices, C)``.
    """
    if not isinstance(poset, FacePoset):
        raise TypeError(f"poset must be a FacePoset, got {type(poset).__name__}")
    ops = relation_operators(constant_sheaf(poset, 1), ranks=(0,), kinds=("self", "coface_adj"))
    return OENN(ops, in_channels, hidden_channels, out_channels, layers=layers, nonlinearity=nonlinearity, seed=seed,
                dtype=dtype)


def sheaf_diffusion(sheaf: CellularSheaf, channels: int, *, layers: int = 2, normalized: bool = True,
                    nonlinearity: str = "gate", seed: int, dtype: torch.dtype = torch.float32) -> OENN:
    """Neural sheaf diffusion as an OENN ([P12]): residual layers X ↦ X + ρ(Δ_F X W) on vertex stalks.

    ``normalized`` uses D^{-1/2} L_F D^{-1/2}. Input and output are ``(B, Σ_v d_v, channels)``.
    """
    if not isinstance(sheaf, CellularSheaf):
        raise TypeError(f"sheaf must be a CellularSheaf, got {type(sheaf).__name__}")
    lap = sheaf_laplacian(sheaf, normalized=normalized)
    vertex = relation_operators(sheaf, ranks=(0,), kinds=("self",))
    ops = OperatorStack(names=("laplacian",), matrices=(lap,), cell_of_row=vertex.cell_of_row, cells=vertex.cells)
    c = v.positive_int(channels, "channels")
    return OENN(ops, c, c, c, layers=layers, nonlinearity=nonlinearity, residual=True, seed=seed, dtype=dtype)
