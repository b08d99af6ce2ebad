"""The [P04] laws and symmetries on transformers' Llama layers (``LlamaMLP``, ``LlamaAttention``), e.g. SmolLM2.

Orientation (torch ``nn.Linear`` stores ``weight = W^T``):

* SwiGLU MLP ``down(SiLU(gate(x)) ⊙ up(x))``: the paper's ``A`` (linear branch) is ``up_proj``, ``B`` (inside the
  activation) is ``gate_proj``, ``C`` is ``down_proj``. Hidden unit ``i`` scales row ``i`` of ``up_proj.weight`` by
  ``s_i`` and column ``i`` of ``down_proj.weight`` by ``1/s_i`` (Thm 4.2); the same map on ``gate_proj`` is no
  symmetry (the SiLU is not homogeneous), so the look-alike ``‖gate_i‖² − ‖down_i‖²`` is a control.
* RoPE attention with grouped-query heads: query head ``h`` reads key head ``h // n_rep`` (``repeat_kv``), and
  transformers' ``rotate_half`` rotates channel ``j`` with channel ``j + d_h/2`` at frequency ``j``. A Q/K map keeps
  every score iff it is one ``E`` per key head, shared by the query heads it serves, acting on each pair
  ``(j, j + d_h/2)`` as a scaled rotation ``[[a, −b], [b, a]]`` (Thm 4.4 in this layout): ``W_Q^{(h)} ↦ W_Q^{(h)} E_g``,
  ``W_K^{(g)} ↦ W_K^{(g)} E_g^{-T}``. The law per key head ``g`` and frequency ``j`` is
  ``Σ_{h→g} ‖W_Q^{(h,j)}‖² − ‖W_K^{(g,j)}‖²`` (pair ``j`` = both channels). One channel of a pair alone is a control.

A projection bias (``attention_bias`` / ``mlp_bias``) travels with its output unit and enters the laws as one more
input column. :func:`llama_flow_rates` gives ``⟨∇h, ∇L⟩`` of every law and control in closed form from one backward
pass: for ``h = Σ‖u‖² − Σ‖w‖²`` it is ``2Σ⟨u, ∂L/∂u⟩ − 2Σ⟨w, ∂L/∂w⟩``.
"""

from __future__ import annotations

import copy
import types
from typing import Any

import torch
from torch import Tensor, nn

from icml26.common import validation
from icml26.papers.conservation._groups import _real_tensor

__all__ = [
    "llama_swiglu_laws",
    "llama_rope_qk_laws",
    "scale_llama_hidden_units_",
    "rope_commuting_half",
    "transform_llama_qk_",
    "llama_layers",
    "llama_random_symmetry_",
    "llama_flow_rates",
    "llama_float64",
    "llama_quantities",
    "llama_gd_drift",
]


def _is(module: Any, cls_name: str, name: str) -> Any:
    from transformers.models.llama import modeling_llama

    cls = getattr(modeling_llama, cls_name)
    if not isinstance(module, cls):
        raise TypeError(f"{name} must be a transformers {cls_name}, got {type(module).__name__}")
    for pname, p in module.named_parameters():
        if not torch.isfinite(p).all():
            raise ValueError(f"{name} has non-finite values in parameter {pname!r}")
    return module


def _rows(lin: nn.Linear, grad: bool = False) -> Tensor:
    """``[weight | bias]`` (or their gradients): row ``j`` is everything that scales with output unit ``j``."""
    w = lin.weight.grad if grad else lin.weight
    b = lin.bias.grad if grad and lin.bias is not None else lin.bias
    if w is None:
        raise ValueError("no gradient on the module: run a backward pass first")
    if lin.bias is None:
        return w
    if b is None:
        raise ValueError("no gradient on the bias: run a backward pass first")
    return torch.cat([w, b[:, None]], dim=1)


def _swiglu_terms(mlp: Any, branch: str, grad_of: bool) -> tuple[Tensor, Tensor]:
    """Per hidden unit: (``‖branch_i‖²``, ``‖down[:, i]‖²``), or with ``grad_of`` (``⟨branch_i, ∂L/∂·⟩``, ...)."""
    u = _rows(getattr(mlp, branch))
    d = mlp.down_proj.weight
    if not grad_of:
        return u.pow(2).sum(1), d.pow(2).sum(0)
    gd = mlp.down_proj.weight.grad
    if gd is None:
        raise ValueError("no gradient on down_proj: run a backward pass first")
    return (u * _rows(getattr(mlp, branch), grad=True)).sum(1), (d * gd).sum(0)


def llama_swiglu_laws(mlp: Any) -> Tensor:
    """Per-hidden-unit laws ``‖A[:, i]‖² − ‖C[i, :]‖²`` of a transformers ``LlamaMLP`` (shape ``(intermediate,)``).

    [P04] Thm 4.2 with ``A`` = ``up_proj`` (the branch outside the SiLU) and ``C`` = ``down_proj``: row ``i`` of
    ``up_proj.weight`` (with its bias, if any) against column ``i`` of ``down_proj.weight``.
    """
    _is(mlp, "LlamaMLP", "mlp")
    a, c = _swiglu_terms(mlp, "up_proj", False)
    return a - c


def _heads(attn: Any) -> tuple[int, int, int]:
    """(query heads, key heads, head dim) of a ``LlamaAttention``."""
    dh = int(attn.head_dim)
    nq, nkv = attn.q_proj.weight.shape[0] // dh, attn.k_proj.weight.shape[0] // dh
    if dh % 2 or nq % nkv:
        raise ValueError(f"attn: head_dim {dh} must be even and {nq} query heads a multiple of {nkv} key heads")
    return nq, nkv, dh


def _channel_terms(attn: Any, grad_of: bool) -> tuple[Tensor, Tensor]:
    """Per key head ``g`` and channel ``c`` (shape ``(n_kv, d_h)`` each): ``Σ_{h→g} ‖W_Q^{(h)}[:, c]‖²`` and
    ``‖W_K^{(g)}[:, c]‖²``, or with ``grad_of`` the same with each square replaced by ``⟨w, ∂L/∂w⟩``."""
    nq, nkv, dh = _heads(attn)
    q, k = _rows(attn.q_proj), _rows(attn.k_proj)
    if grad_of:
        q, k = q * _rows(attn.q_proj, grad=True), k * _rows(attn.k_proj, grad=True)
    else:
        q, k = q.pow(2), k.pow(2)
    # query head h reads key head h // n_rep
    return q.sum(1).view(nkv, nq // nkv, dh).sum(1), k.sum(1).view(nkv, dh)


def llama_rope_qk_laws(attn: Any) -> Tensor:
    """Per key head and RoPE frequency, ``Σ_{h→g} ‖W_Q^{(h,j)}‖² − ‖W_K^{(g,j)}‖²`` (shape ``(n_kv, d_h/2)``).

    [P04] Thm 4.4 for a transformers ``LlamaAttention``: frequency block ``j`` is channels ``(j, j + d_h/2)``
    (``rotate_half``); with grouped-query attention the query heads sharing key head ``g`` enter one law together.
    """
    _is(attn, "LlamaAttention", "attn")
    q, k = _channel_terms(attn, False)
    half = q.shape[1] // 2
    return q[:, :half] + q[:, half:] - k[:, :half] - k[:, half:]


def scale_llama_hidden_units_(mlp: Any, s: Tensor, *, branch: str = "up_proj") -> None:
    """In place: row ``i`` of ``branch`` (and its bias) ``× s_i``, column ``i`` of ``down_proj`` ``÷ s_i``.

    With ``branch="up_proj"`` this is the symmetry of [P04] Thm 4.2 (the function is unchanged for any ``s > 0``);
    ``branch="gate_proj"`` rescales inside the SiLU and changes the function (the negative control).
    """
    _is(mlp, "LlamaMLP", "mlp")
    branch = validation.choice(branch, "branch", ["up_proj", "gate_proj"])
    lin = getattr(mlp, branch)
    s = _real_tensor(s, "s", shape=(lin.weight.shape[0],))
    if not (s > 0).all():
        raise ValueError("s must be positive")
    with torch.no_grad():
        lin.weight.mul_(s[:, None].to(lin.weight))
        if lin.bias is not None:
            lin.bias.mul_(s.to(lin.bias))
        mlp.down_proj.weight.div_(s[None, :].to(mlp.down_proj.weight))


def rope_commuting_half(a: Tensor, b: Tensor) -> Tensor:
    """``E`` acting as ``[[a_j, −b_j], [b_j, a_j]]`` on channel pair ``(j, j + d_h/2)`` of every key head.

    The matrices that commute with every rotation of transformers' ``rotate_half`` RoPE ([P04] Thm 4.4 in that
    layout). ``a``, ``b``: shape ``(n_kv, d_h/2)``, ``a_j² + b_j² > 0``. Returns ``(n_kv, d_h, d_h)`` float64.
    """
    a, b = _real_tensor(a, "a", ndim=2), _real_tensor(b, "b", ndim=2)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same shape, got {tuple(a.shape)} and {tuple(b.shape)}")
    if not ((a**2 + b**2) > 0).all():
        raise ValueError("a and b: every channel pair needs a_j^2 + b_j^2 > 0 (invertible)")
    g, p = a.shape
    E = torch.zeros(g, 2 * p, 2 * p, dtype=torch.float64)
    i = torch.arange(p)
    E[:, i, i] = a
    E[:, i + p, i + p] = a
    E[:, i, i + p] = -b
    E[:, i + p, i] = b
    return E


def _apply_rows(lin: nn.Linear, M: Tensor, heads: int) -> None:
    """Rows of head ``h`` (``W^{(h)T}``, ``(d_h, d)``) ``↦ M_h W^{(h)T}`` (bias likewise)."""
    w = lin.weight.view(heads, -1, lin.weight.shape[1])
    w.copy_(M.to(w) @ w)
    if lin.bias is not None:
        b = lin.bias.view(heads, -1, 1)
        b.copy_(M.to(b) @ b)


def transform_llama_qk_(attn: Any, E: Tensor) -> None:
    """In place: ``W_Q^{(h)} ↦ W_Q^{(h)} E_g`` for every query head ``h`` of key head ``g``, ``W_K^{(g)} ↦ W_K^{(g)}
    E_g^{-T}`` ([P04] Thms 4.3-4.4 with grouped-query heads); ``E``: ``(n_kv, d_h, d_h)``, invertible.

    Scores are unchanged iff each ``E_g`` commutes with the RoPE rotations (:func:`rope_commuting_half`); a generic
    ``E`` (or the interleaved pairing of :func:`~icml26.papers.conservation.rope_commuting`) changes them.
    """
    _is(attn, "LlamaAttention", "attn")
    nq, nkv, dh = _heads(attn)
    E = _real_tensor(E, "E", shape=(nkv, dh, dh))
    if (torch.linalg.det(E).abs() < 1e-300).any():
        raise ValueError("E must be invertible for every key head")
    with torch.no_grad():
        # torch rows are W^T: (W E)^T = E^T W^T and (W E^{-T})^T = E^{-1} W^T
        _apply_rows(attn.q_proj, E.transpose(1, 2).repeat_interleave(nq // nkv, dim=0), nq)
        _apply_rows(attn.k_proj, torch.linalg.inv(E), nkv)


def llama_layers(model: Any) -> list[Any]:
    """The decoder layers of a transformers ``LlamaForCausalLM`` / ``LlamaModel`` (each with ``.mlp``, ``.self_attn``),
    the blocks whose laws [P04] Sec. 4 gives."""
    inner = getattr(model, "model", model)
    layers = getattr(inner, "layers", None)
    if not isinstance(layers, nn.ModuleList) or not layers:
        raise TypeError(f"model must be a transformers Llama model with decoder layers, got {type(model).__name__}")
    return list(layers)


def llama_random_symmetry_(model: Any, *, seed: int, spread: float = 0.5) -> None:
    """In place: a random element of the SwiGLU-scaling × RoPE-commuting-Q/K group in every decoder layer.

    [P04] Thms 4.2 and 4.4: ``s_i = exp(spread·z)``; per key head and pair, ``a = r cos φ``, ``b = r sin φ`` with
    ``r = exp(spread·z)``, ``φ`` uniform; all drawn from ``seed``. The logits are unchanged up to round-off.
    """
    g = torch.Generator().manual_seed(validation.seed(seed))
    spread = validation.real(spread, "spread", lo=0.0)
    for layer in llama_layers(model):
        mlp, attn = _is(layer.mlp, "LlamaMLP", "mlp"), _is(layer.self_attn, "LlamaAttention", "self_attn")
        m = mlp.up_proj.weight.shape[0]
        scale_llama_hidden_units_(mlp, torch.exp(spread * torch.randn(m, generator=g, dtype=torch.float64)))
        _, nkv, dh = _heads(attn)
        r = torch.exp(spread * torch.randn(nkv, dh // 2, generator=g, dtype=torch.float64))
        phi = 2 * torch.pi * torch.rand(nkv, dh // 2, generator=g, dtype=torch.float64)
        transform_llama_qk_(attn, rope_commuting_half(r * torch.cos(phi), r * torch.sin(phi)))


def _norm_float64(self: Any, hidden_states: Tensor) -> Tensor:
    """RMSNorm computed in the input's own dtype (transformers' ``LlamaRMSNorm`` rounds to float32 inside)."""
    x = hidden_states
    return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.variance_epsilon))


def llama_float64(model: Any, *, exact_norms: bool = True) -> Any:
    """A float64 deep copy of a transformers Llama model, in eval mode, for the [P04] checks at round-off level.

    transformers' ``LlamaRMSNorm`` casts its activations to float32 whatever the model's dtype, so a plain
    ``model.double()`` still rounds every normalised activation to ~6e-8: two functionally equal parameter sets can
    then differ by a float32 rounding step. With ``exact_norms`` (default) each RMSNorm of the copy computes in
    float64 (the same formula, ``γ ⊙ x / sqrt(mean(x²) + ε)``); ``exact_norms=False`` keeps transformers' own.
    The caller's model is not modified.
    """
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    llama_layers(model)
    out = copy.deepcopy(model).double().eval()
    if exact_norms:
        for mod in out.modules():
            if isinstance(mod, LlamaRMSNorm):
                mod.forward = types.MethodType(_norm_float64, mod)
    return out


def _relative(terms: tuple[Tensor, Tensor]) -> float:
    """``‖x − y‖ / ‖|x| + |y|‖``: 0 when the two halves of ``⟨∇h, ∇L⟩`` cancel, ~1 when they do not."""
    x, y = terms
    den = float((x.abs() + y.abs()).norm())
    return float((x - y).norm()) / den if den > 0 else 0.0


def _check_ids(model: Any, input_ids: object) -> None:
    if not isinstance(input_ids, Tensor) or input_ids.dtype != torch.int64 or input_ids.ndim != 2:
        raise TypeError("input_ids must be a 2-D (batch, seq_len) int64 torch.Tensor")
    if input_ids.shape[1] < 2:
        raise ValueError(f"input_ids needs seq_len >= 2 for a next-token loss, got {input_ids.shape[1]}")
    vocab = model.get_input_embeddings().weight.shape[0]
    if int(input_ids.min()) < 0 or int(input_ids.max()) >= vocab:
        raise ValueError(f"input_ids must lie in [0, {vocab})")


def llama_flow_rates(model: Any, input_ids: Tensor) -> dict[str, float]:
    """Relative rate ``‖⟨∇h, ∇L⟩‖ / ‖|2⟨u, ∂L/∂u⟩| + |2⟨w, ∂L/∂w⟩|‖`` of every law and control, per decoder layer.

    [P04] Sec. 3: a law has ``⟨∇h, ∇L⟩ = 0``; the two halves of the closed form then cancel to round-off
    (~1e-16 relative in float64), while a control's do not. ``L`` is the mean next-token loss of ``model`` on
    ``input_ids`` (``(batch, seq_len)`` int64). Keys: ``law:layers.<i>.mlp``, ``law:layers.<i>.attn.qk_rope``,
    ``control:layers.<i>.mlp.gate`` (``‖gate_i‖² − ‖down_i‖²``), ``control:layers.<i>.attn.qk_channel`` (one
    channel of each RoPE pair). One backward pass; gradients are cleared afterwards, parameters untouched.
    """
    layers = llama_layers(model)
    _check_ids(model, input_ids)
    model.zero_grad(set_to_none=True)
    model(input_ids=input_ids, labels=input_ids).loss.backward()
    out: dict[str, float] = {}
    with torch.no_grad():
        for i, layer in enumerate(layers):
            mlp, attn = layer.mlp, layer.self_attn
            out[f"law:layers.{i}.mlp"] = _relative(_swiglu_terms(mlp, "up_proj", True))
            out[f"control:layers.{i}.mlp.gate"] = _relative(_swiglu_terms(mlp, "gate_proj", True))
            q, k = _channel_terms(attn, True)
            half = q.shape[1] // 2
            out[f"law:layers.{i}.attn.qk_rope"] = _relative((q[:, :half] + q[:, half:], k[:, :half] + k[:, half:]))
            out[f"control:layers.{i}.attn.qk_channel"] = _relative((q, k))
    model.zero_grad(set_to_none=True)
    return out


def llama_quantities(model: Any) -> dict[str, Tensor]:
    """Every law and look-alike non-law of a transformers Llama, per decoder layer ([P04] Thms 4.2, 4.4).

    Keys as in :func:`llama_flow_rates`: ``law:layers.<i>.mlp`` (:func:`llama_swiglu_laws`),
    ``law:layers.<i>.attn.qk_rope`` (:func:`llama_rope_qk_laws`), ``control:layers.<i>.mlp.gate``
    (``‖gate_i‖² − ‖down_i‖²``) and ``control:layers.<i>.attn.qk_channel`` (per channel, not per RoPE pair).
    """
    out: dict[str, Tensor] = {}
    for i, layer in enumerate(llama_layers(model)):
        mlp, attn = _is(layer.mlp, "LlamaMLP", "mlp"), _is(layer.self_attn, "LlamaAttention", "self_attn")
        out[f"law:layers.{i}.mlp"] = llama_swiglu_laws(mlp)
        g, d = _swiglu_terms(mlp, "gate_proj", False)
        out[f"control:layers.{i}.mlp.gate"] = g - d
        out[f"law:layers.{i}.attn.qk_rope"] = llama_rope_qk_laws(attn)
        q, k = _channel_terms(attn, False)
        out[f"control:layers.{i}.attn.qk_channel"] = q - k
    return out


def llama_gd_drift(model: Any, input_ids: Tensor, *, lr: float, steps: int,
                   record_at: tuple[int, ...] | None = None) -> dict[str, list[float]]:
    """Full-batch gradient descent ``θ ← θ − τ ∇L(θ)`` on ``model`` **in place** for ``steps`` steps; per quantity of
    :func:`llama_quantities`, the relative drift ``‖h_k − h_0‖ / ‖h_0‖`` at each step in ``record_at`` (default:
    the last).

    The drift measurement of [P04] Fig. 2 on a transformers Llama: ``O(τ² k)`` for a law (for these quadratic laws
    each step moves ``h`` by exactly ``τ²(‖∂L/∂u‖² − ‖∂L/∂w‖²)``), ``O(τ k)`` for a look-alike non-law. ``L`` is
    the mean next-token loss on ``input_ids`` (``(batch, seq_len)`` int64); ``τ`` = ``lr``.
    """
    from icml26.papers.conservation._flow import relative_drift

    lr = validation.real(lr, "lr", lo=0.0, lo_open=True)
    steps = validation.positive_int(steps, "steps")
    record = tuple(record_at) if record_at is not None else (steps,)
    if not record or any(not 1 <= r <= steps for r in record):
        raise ValueError(f"record_at must lie in [1, steps={steps}], got {record}")
    _check_ids(model, input_ids)
    params = [p for p in model.parameters() if p.requires_grad]
    with torch.no_grad():
        h0 = {k: v.detach().clone() for k, v in llama_quantities(model).items()}
    out: dict[str, list[float]] = {k: [] for k in h0}
    for k in range(1, steps + 1):
        model.zero_grad(set_to_none=True)
        model(input_ids=input_ids, labels=input_ids).loss.backward()
        with torch.no_grad():
            for p in params:
                if p.grad is not None:
                    p.sub_(lr * p.grad)
        if k in record:
            with torch.no_grad():
                for name, h in llama_quantities(model).items():
                    out[name].append(relative_drift(h0[name], h))
    model.zero_grad(set_to_none=True)
    return out
