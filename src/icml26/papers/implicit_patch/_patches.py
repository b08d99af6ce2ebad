"""The patch objects of [P06] and how they are applied: token-dependent rank-1 weight patches ``ΔW_t = u_t v_tᵀ``
and norm scale/bias patches ``γ → s_t γ``, ``β → β + Δβ_t``, one per query position ``t``.

Patches are applied through forward hooks, never by writing into the weights: a hooked ``nn.Linear`` returns
``W x_t + b + u_t (v_t · x_t) = (W + u_t v_tᵀ) x_t + b`` and a hooked norm returns ``s_t (γ ⊙ x̂_t) + β + Δβ_t``.
Position ``t`` of the input uses patch ``t``, so the patched model is meant to be run on the query alone (or one of
its prefixes: a causal model's position ``t`` never sees later positions).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from icml26.common.validation import real_array

__all__ = ["NormPatch", "Patches", "RankOnePatch", "apply_patches", "real_tensor"]


def real_tensor(x: object, name: str, *, ndim: int) -> Tensor:
    """``x`` as a non-empty, finite, real floating-point tensor with ``ndim`` dimensions: a tensor keeps its dtype, an
    array-like becomes float64. A ``TypeError``/``ValueError`` naming ``name`` otherwise."""
    if not isinstance(x, Tensor):
        return torch.from_numpy(real_array(x, name, ndim=ndim).copy())
    if not x.is_floating_point():
        raise TypeError(f"{name} must be a real floating-point tensor, got dtype {x.dtype}")
    if x.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {tuple(x.shape)}")
    if x.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(x.shape)}")
    if not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name} must be finite (got NaN or inf)")
    return x


@dataclass(frozen=True)
class RankOnePatch:
    """Per-position rank-1 updates ``ΔW_t = u[t] ⊗ v[t]`` of one weight matrix ``W`` (out × in).

    Attributes:
        u: (T, out) left factors (the column space of ``ΔW_t``).
        v: (T, in) right factors (the input direction ``ΔW_t`` reads; [P06]'s ``v₀ / ‖v₀‖²`` up to scaling).
    """

    u: Tensor
    v: Tensor

    def __post_init__(self) -> None:
        u, v = real_tensor(self.u, "u", ndim=2), real_tensor(self.v, "v", ndim=2)
        if u.shape[0] != v.shape[0]:
            raise ValueError(f"u and v must be (T, out) and (T, in), got {tuple(u.shape)}, {tuple(v.shape)}")
        if u.dtype != v.dtype:
            raise ValueError(f"u and v must have one dtype, got {u.dtype} and {v.dtype}")
        object.__setattr__(self, "u", u)
        object.__setattr__(self, "v", v)

    @property
    def n_positions(self) -> int:
        """T, the number of query positions."""
        return int(self.u.shape[0])

    def dense(self, t: int) -> Tensor:
        """The dense (out × in) matrix ``ΔW_t = u_t v_tᵀ`` of position ``t``."""
        if not -self.n_positions <= t < self.n_positions:
            raise ValueError(f"t must index one of the {self.n_positions} query positions, got {t}")
        return torch.outer(self.u[t], self.v[t])

    def is_zero(self, t: int) -> bool:
        """True when position ``t`` carries no update (e.g. an MoE expert that is not selected there)."""
        return not bool(self.u[t].any()) or not bool(self.v[t].any())


@dataclass(frozen=True)
class NormPatch:
    """Per-position scale and bias patch of a LayerNorm/RMSNorm: ``γ_t = s[t] γ`` and ``β_t = β + shift[t]``.

    The RMSNorm-scale patch of [P06] (abstract: "a patch to the RMSNorm scale"); the LayerNorm bias shift extends it
    to the vanilla pre-LN block (the notes' reproduction design).

    Attributes:
        scale: (T,) positive factors ``s_t`` on the norm's scale γ (a patch ``Δγ_t = (s_t − 1) γ``).
        shift: (T, d) additive bias patches ``Δβ_t`` (LayerNorm), or ``None`` (RMSNorm needs none).
    """

    scale: Tensor
    shift: Tensor | None = None

    def __post_init__(self) -> None:
        scale = real_tensor(self.scale, "scale", ndim=1)
        object.__setattr__(self, "scale", scale)
        if self.shift is not None:
            shift = real_tensor(self.shift, "shift", ndim=2)
            if shift.shape[0] != scale.shape[0] or shift.dtype != scale.dtype:
                raise ValueError(f"shift must be (T, d) with T = {scale.shape[0]} and dtype {scale.dtype}, got "
                                 f"{tuple(shift.shape)}, {shift.dtype}")
            object.__setattr__(self, "shift", shift)

    @property
    def n_positions(self) -> int:
        """T, the number of query positions."""
        return int(self.scale.shape[0])


@dataclass(frozen=True)
class Patches:
    """All patches of [P06]'s construction for one (context, query) pair.

    Attributes:
        weights: module path in the model (e.g. ``"blocks.0.mlp.w_in"``) -> its :class:`RankOnePatch`.
        norms: module path of a norm (e.g. ``"blocks.0.post_norm2"``) -> its :class:`NormPatch`.
        n_query: T, the query length the patches were computed for.
        n_context: the context length the patches stand in for.
    """

    weights: Mapping[str, RankOnePatch]
    norms: Mapping[str, NormPatch] = field(default_factory=dict)
    n_query: int = 0
    n_context: int = 0

    def __post_init__(self) -> None:
        for name, p in [*self.weights.items(), *self.norms.items()]:
            if p.n_positions != self.n_query:
                raise ValueError(f"patch {name!r} covers {p.n_positions} positions, expected n_query={self.n_query}")

    def without_norms(self) -> Patches:
        """The same weight patches with every norm patch dropped (a negative control)."""
        return Patches(dict(self.weights), {}, self.n_query, self.n_context)

    def only(self, *suffixes: str) -> Patches:
        """Keep only the weight patches whose module name ends with one of ``suffixes`` (e.g. ``"w_in"``) and no
        norm patch (a negative control: "patch only one matrix")."""
        if not suffixes:
            raise ValueError("suffixes must name at least one module, e.g. 'w_in'")
        keep = {k: p for k, p in self.weights.items() if k.endswith(tuple(suffixes))}
        return Patches(keep, {}, self.n_query, self.n_context)

    def rank_ratios(self) -> dict[str, list[float]]:
        """σ₂/σ₁ of every non-zero dense ``ΔW_t = u_t v_tᵀ`` (float64 SVD), by module path. A storage sanity check
        only (rank 1 by construction); the test of [P06]'s rank-1 statement replaces these patches by
        :func:`~icml26.papers.implicit_patch._verify.solved_patches` and compares logits. Zero patches (unselected
        MoE) are left out."""
        out: dict[str, list[float]] = {}
        for name, p in self.weights.items():
            live = [t for t in range(p.n_positions) if not p.is_zero(t)]
            if not live:
                out[name] = []
                continue
            u, v = p.u[live].to(torch.float64), p.v[live].to(torch.float64)
            s = torch.linalg.svdvals(u[:, :, None] * v[:, None, :])  # batched over positions: (n, min(out, in))
            out[name] = [float(r) for r in (s[:, 1] / s[:, 0] if s.shape[1] > 1 else torch.zeros(len(live)))]
        return out

    def n_weight_patches(self) -> int:
        """How many non-zero (module, position) rank-1 patches there are."""
        return sum(not p.is_zero(t) for p in self.weights.values() for t in range(p.n_positions))


def _positions_of(x: Tensor, n: int, name: str) -> int:
    if x.ndim < 2:
        raise ValueError(f"patched module {name!r} expects (batch, time, features) inputs, got {tuple(x.shape)}")
    T = x.shape[-2]
    if T > n:
        raise ValueError(f"the patches cover {n} query positions but the input to {name!r} has {T}")
    return T


def _linear_hook(name: str, p: RankOnePatch):
    def hook(module: nn.Module, inputs: tuple[Tensor, ...], output: Tensor) -> Tensor:
        (x,) = inputs
        T = _positions_of(x, p.n_positions, name)
        # (W + u_t v_tᵀ) x_t = W x_t + u_t (v_t · x_t)
        return output + (x * p.v[:T]).sum(-1, keepdim=True) * p.u[:T]

    return hook


def _norm_hook(name: str, p: NormPatch):
    def hook(module: nn.Module, inputs: tuple[Tensor, ...], output: Tensor) -> Tensor:
        T = _positions_of(inputs[0], p.n_positions, name)
        beta = getattr(module, "bias", None)
        core = output if beta is None else output - beta  # γ ⊙ x̂
        out = core * p.scale[:T, None]
        if beta is not None:
            out = out + beta
        return out if p.shift is None else out + p.shift[:T]

    return hook


@contextlib.contextmanager
def apply_patches(model: nn.Module, patches: Patches) -> Iterator[nn.Module]:
    """Context manager: inside it, ``model`` behaves as the patched model ``T_{W+ΔW(C)}`` of [P06] (Eq. of the main
    theorem: ``T_W(C, x) = T_{W+ΔW(C,x)}(x)``), outside it is unchanged. The weights are never written.

    Args:
        model: the model the patches were computed for (the module paths of ``patches`` must exist in it).
        patches: from :func:`context_patches`; position ``t`` of the input uses patch ``t``.

    Yields the model. Raises ``ValueError`` naming the module when a path is missing or a dtype differs.
    """
    if not isinstance(patches, Patches):
        raise TypeError(f"patches must be a Patches, got {type(patches).__name__}")
    handles = []
    try:
        for name, p in patches.weights.items():
            mod = _submodule(model, name)
            if not isinstance(mod, nn.Linear) or tuple(mod.weight.shape) != (p.u.shape[1], p.v.shape[1]):
                raise ValueError(f"patches: {name!r} is not a Linear of shape {(p.u.shape[1], p.v.shape[1])}")
            if p.u.dtype != mod.weight.dtype:
                raise ValueError(f"patches: {name!r} has dtype {p.u.dtype}, the model {mod.weight.dtype}")
            handles.append(mod.register_forward_hook(_linear_hook(name, p)))
        for name, q in patches.norms.items():
            mod = _submodule(model, name)
            handles.append(mod.register_forward_hook(_norm_hook(name, q)))
        yield model
    finally:
        for h in handles:
            h.remove()


def _submodule(model: nn.Module, name: str) -> nn.Module:
    try:
        return model.get_submodule(name)
    except AttributeError as exc:
        raise ValueError(f"patches: the model has no module {name!r}") from exc
