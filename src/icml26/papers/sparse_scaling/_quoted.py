"""Numbers quoted from [P37] and from the reproduction notes, for the pure-function check of the law.

Each entry says where the number comes from and whether it is a number the authors printed (``derived=False``:
their fitting notebook's output) or one the notes derived by evaluating the law (``derived=True``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HELDOUT", "HELDOUT_R2", "Quoted", "QUOTED", "HeldOut"]


@dataclass(frozen=True)
class HeldOut:
    """One held-out run of the authors' validation set: the measured loss and the law's prediction they print."""

    name: str
    N_raw: float
    s: float
    U: float
    D: float
    truth: float
    printed: float


#: the 11 held-out runs (dense-equivalent sizes up to 7.68B) of the authors' fitting notebook, final cell: run name,
#: raw parameters (their size table; 1.92B, 3.84B, 7.68B for the validation sizes), density, unique tokens, tokens,
#: measured validation loss, and the prediction the notebook prints (4 decimals)
HELDOUT: tuple[HeldOut, ...] = (
    HeldOut("240m41b65b2s5", 2.68e8, 0.5, 5.2e9, 41.6e9, 2.880, 2.8764),
    HeldOut("240m20b85b2s5", 2.68e8, 0.5, 5.2e9, 20.8e9, 2.898, 2.9038),
    HeldOut("240m41b610b4s5", 2.68e8, 0.5, 10.4e9, 41.6e9, 2.874, 2.8634),
    HeldOut("480m5b22b6s", 5.21e8, 1.0, 2.6e9, 5.2e9, 2.913, 2.9238),
    HeldOut("480m20b85b2s5", 5.21e8, 0.5, 5.2e9, 20.8e9, 2.799, 2.8343),
    HeldOut("480m20b85b2s25", 5.21e8, 0.25, 5.2e9, 20.8e9, 2.924, 2.8837),
    HeldOut("960m5b22b6s", 1.17e9, 1.0, 2.6e9, 5.2e9, 2.889, 2.8703),
    HeldOut("1b9210b42b6s", 1.92e9, 1.0, 2.6e9, 10.4e9, 2.803, 2.8002),
    HeldOut("1b9220b820b8s5", 1.92e9, 0.5, 20.8e9, 20.8e9, 2.690, 2.7250),
    HeldOut("3b8410b42b6s5", 3.84e9, 0.5, 2.6e9, 10.4e9, 2.762, 2.7725),
    HeldOut("7b6810b42b6s25", 7.68e9, 0.25, 2.6e9, 10.4e9, 2.780, 2.7790),
)
#: the validation R² the notebook prints for these runs
HELDOUT_R2 = 0.9136


@dataclass(frozen=True)
class Quoted:
    """A number as quoted (``value`` with ``decimals`` after the point) and what it is."""

    quantity: str
    value: float
    decimals: int
    source: str
    derived: bool


_NOTES = "notes (P37 §2-3), evaluated from the fitted law"
QUOTED: tuple[Quoted, ...] = (
    Quoted("R_N*(s=1)", 11.09, 2, "authors' fit (stage 3), as the notes give it", False),
    Quoted("R_D*(s=1)", 4.40, 2, "authors' fit (stage 3), as the notes give it", False),
    Quoted("R_D*(s=0.5)", 6.91, 2, _NOTES, True),
    Quoted("R_D*(s=0.25)", 7.04, 2, _NOTES, True),
    Quoted("R_D*(s=0.0625)", 6.64, 2, _NOTES, True),
    Quoted("R_D*(0.5)/R_D*(1)", 1.57, 2, "notes (P37 §4: 'paper ratio ≈ 1.57'), derived", True),
    Quoted("f(0.5)", 0.855, 3, _NOTES, True),
    Quoted("L(520M, s=1, U=2.6B, 16 epochs)", 2.838, 3, _NOTES, True),
    Quoted("L(520M, s=0.75, U=2.6B, 16 epochs)", 2.824, 3, _NOTES, True),
    Quoted("L(520M, s=0.5, U=2.6B, 16 epochs)", 2.834, 3, _NOTES, True),
    Quoted("L(520M, s=0.25, U=2.6B, 16 epochs)", 2.882, 3, _NOTES, True),
    Quoted("held-out R²", HELDOUT_R2, 4, "authors' fitting notebook (validation R²)", False),
)
