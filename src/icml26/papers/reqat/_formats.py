"""The 4- and 8-bit floating-point formats of [P11] (§2 of the notes: MXFP4, NVFP4, the E1M2 KV cache).

Each element format is a :class:`MiniFloat` (sign, ``exp_bits`` exponent bits with ``bias``, ``man_bits`` mantissa
bits, subnormals, no infinities): its non-negative values are enumerated from the bit patterns (:meth:`MiniFloat.grid`,
the tests' oracle) and a tensor is rounded onto them by :func:`round_to_format` from float exponent bits: nearest
value, ties to the even code, saturating at the largest finite value (the OCP MX and NVIDIA FP4 conversion rule).

- ``E2M1`` (FP4 elements of MXFP4 and NVFP4): ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
- ``E1M2`` (the KV-cache elements): ±{0, 0.25, 0.5, ..., 1.75} (bias 1; a uniform 8-level grid).
- ``E4M3`` (NVFP4's block scales; OCP "fn": bias 7, no infinities, 0x7F is NaN): 0 .. 448.

Scales: :func:`e8m0_scale` is MXFP4's power-of-two block scale, 2^(floor(log2 amax) − emax_elem) (OCP MX v1.0,
§6.3); :func:`e4m3_round` rounds NVFP4's block scales through torch's own ``float8_e4m3fn`` cast.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

__all__ = ["E1M2", "E2M1", "E4M3", "FORMATS", "MiniFloat", "e4m3_round", "e8m0_scale", "round_to_format"]


@dataclass(frozen=True)
class MiniFloat:
    """A sign-magnitude floating-point element format of [P11] (§2): ``1 + exp_bits + man_bits`` bits.

    ``nan_top``: the all-ones code is NaN (E4M3 "fn"), so the largest finite magnitude is one code below it.
    """

    name: str
    exp_bits: int
    man_bits: int
    bias: int
    nan_top: bool = False

    def decode(self, code: int) -> float:
        """The magnitude of the non-negative ``code`` (``0 <= code < 2**(exp_bits + man_bits)``) from its bits."""
        n = 1 << (self.exp_bits + self.man_bits)
        if not 0 <= code < n:
            raise ValueError(f"code must be in [0, {n}), got {code}")
        e, m = code >> self.man_bits, code & ((1 << self.man_bits) - 1)
        frac = m / (1 << self.man_bits)
        if e == 0:  # subnormal: 0.m × 2^(1 − bias)
            return math.ldexp(frac, 1 - self.bias)
        return math.ldexp(1.0 + frac, e - self.bias)

    def grid(self) -> tuple[float, ...]:
        """Every finite non-negative value in code order (increasing; the index is the code)."""
        n = 1 << (self.exp_bits + self.man_bits)
        return tuple(self.decode(c) for c in range(n - 1 if self.nan_top else n))

    @property
    def max_value(self) -> float:
        """The largest finite magnitude (6 for E2M1, 1.75 for E1M2, 448 for E4M3)."""
        return self.grid()[-1]

    @property
    def emax(self) -> int:
        """floor(log2(max_value)): the exponent MX subtracts from the block's (2 for E2M1, 0 for E1M2)."""
        return math.floor(math.log2(self.max_value))


E2M1 = MiniFloat("e2m1", 2, 1, 1)
E1M2 = MiniFloat("e1m2", 1, 2, 1)
E4M3 = MiniFloat("e4m3", 4, 3, 7, nan_top=True)
FORMATS: dict[str, MiniFloat] = {f.name: f for f in (E2M1, E1M2, E4M3)}

def _pow2(e: Tensor, dtype: torch.dtype) -> Tensor:
    """2^e for an integer tensor ``e`` in the normal range of ``dtype``, built from the exponent bits."""
    if dtype == torch.float64:
        return ((e.to(torch.int64) + 1023) << 52).view(torch.float64)
    return ((e.to(torch.int32) + 127) << 23).view(torch.float32)


def _exponent(a: Tensor) -> Tensor:
    """floor(log2 a) of non-negative finite ``a`` from its exponent bits (−bias for zero and subnormals)."""
    if a.dtype == torch.float64:
        return ((a.view(torch.int64) >> 52) & 0x7FF) - 1023
    return ((a.view(torch.int32) >> 23) & 0xFF) - 127


def round_to_format(x: Tensor, fmt: MiniFloat) -> Tensor:
    """``x`` rounded to the nearest value of ``fmt`` ([P11] §2 element rounding): ties to the even code, magnitudes
    beyond the largest finite value saturate to it, the sign is kept. Computed in float32 (float64 stays float64);
    returns ``x``'s dtype.

    The spacing of ``fmt`` around |x| is 2^(max(floor log2 |x|, 1 − bias) − man_bits); |x| / spacing is exact, and
    rounding it half to even picks the even code (within a binade the code's parity is the mantissa's).
    """
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    a = x.to(work).abs()
    se = _exponent(a).clamp(min=1 - fmt.bias) - fmt.man_bits
    q = torch.round(a * _pow2(-se, work)) * _pow2(se, work)
    return torch.copysign(q.clamp(max=fmt.max_value), x.to(work)).to(x.dtype)


def e4m3_round(x: Tensor) -> Tensor:
    """Non-negative NVFP4 block scales rounded to E4M3 ([P11] §2), saturating at 448, through torch's
    ``float8_e4m3fn`` cast (round to nearest, ties to even); returns float32."""
    return x.float().clamp(max=E4M3.max_value).to(torch.float8_e4m3fn).float()


def e8m0_scale(amax: Tensor, fmt: MiniFloat) -> Tensor:
    """MXFP4's shared block scale ([P11] §2; OCP MX v1.0 §6.3): 2^(floor(log2 amax) − emax(fmt)), an E8M0 power of
    two clamped to [2^-127, 2^127]; an all-zero block (``amax = 0``) gets 2^-127. ``frexp`` gives floor(log2) exactly."""
    _, e = torch.frexp(amax.float())  # amax = m · 2^e with m in [0.5, 1): floor(log2 amax) = e − 1
    exp = torch.where(amax > 0, e - 1 - fmt.emax, torch.full_like(e, -127)).clamp(-127, 127)
    return torch.ldexp(torch.ones_like(amax, dtype=torch.float32), exp.float())
