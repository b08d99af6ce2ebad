"""The [P11] claims: configs per budget and the CLAIMS table (checks in ``_checks_real.py`` and
``_checks_train.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.reqat._checks_real import check_fp4_degrades, check_low_entropy_failures, check_qfit_kv_error
from icml26.papers.reqat._checks_train import check_ptq_degrades, check_reqat_recovers, check_surpasses_ft


@dataclass(frozen=True)
class RealConfig:
    model: str = "smollm2-135m"  # "tiny": a random tiny Llama; "checkpoint": the folder in $ICML26_REQAT_CHECKPOINT
    scheme: str = "nvfp4"
    docs: int = 16  # held-out documents (the unit of the bootstrap)
    calib_docs: int = 4  # Q-FIT calibration documents
    lines: int = 16  # addition lines drawn per document (cut at `length` tokens)
    length: int = 128  # tokens per document
    shots: int = 3  # leading lines that are not scored
    batch: int = 4
    grid: int = 10  # Q-FIT grid points per axis (the paper: 20)
    n_bins: int = 4  # entropy quantile bins (quartiles: the paper's bottom / top 25 %)
    eps: float = 1e-3  # the ε of the tail-mass ratio


@dataclass(frozen=True)
class TrainConfig:
    d_model: int = 64
    n_layer: int = 2
    n_head: int = 4  # head dim 16: one NVFP4 block per key/value
    min_terms: int = 3
    max_terms: int = 5
    low: int = 0  # terms are uniform in low..high
    high: int = 9
    block: int = 48
    n_pre: int = 4000  # pretraining traces (corrupted with probability `corrupt`)
    corrupt: float = 0.3
    n_ft: int = 2000  # D_FT
    taq_fraction: float = 0.5  # D_TAQ = the first half of D_FT
    base_steps: int = 250
    budget_steps: int = 160  # B: optimiser steps per method
    stage2_steps: int = 40  # TAQ's QAT stage within B (the paper: 70M of 280M tokens)
    batch: int = 64
    lr_base: float = 3e-3
    lr: float = 1e-3
    sem_lambda: float = 0.1
    qfit_grid: int = 10
    calib: int = 64  # Q-FIT calibration traces (from D_FT)
    scheme: str = "nvfp4"
    n_test: int = 150
    samples: int = 2
    temperature: float = 0.6
    top_p: float = 0.95
    ablation: bool = True  # also TAQ alone (without Q-FIT and SEM)
    full_scale: bool = False  # the paper's scale: unsupported here


_REAL_SMOKE = RealConfig(model="tiny", docs=3, calib_docs=1, lines=10, length=64, shots=2, batch=3, grid=3)
_REAL_SMALL = RealConfig()
_REAL_FULL = RealConfig(model="checkpoint", docs=64, calib_docs=16, lines=24, length=192, grid=20)
_TRAIN_SMOKE = TrainConfig(d_model=32, n_layer=1, n_head=2, min_terms=2, max_terms=3, block=32, n_pre=200, n_ft=100,
                           base_steps=20, budget_steps=8, stage2_steps=4, batch=16, calib=8, qfit_grid=3, n_test=16,
                           samples=1, ablation=False)
_TRAIN_SMALL = TrainConfig()
_TRAIN_FULL = TrainConfig(full_scale=True)


CLAIMS = [
    Claim("fp4_degrades", check=check_fp4_degrades, budgets={
        "smoke": Budget(_REAL_SMOKE, seeds=1, expected_s=6),
        "small": Budget(_REAL_SMALL, seeds=1, expected_s=240, requires=("models",)),
        "full": Budget(_REAL_FULL, seeds=1, expected_s=7200, requires=("models", "gpu")),
    }),
    Claim("low_entropy_failures", check=check_low_entropy_failures, budgets={
        "smoke": Budget(_REAL_SMOKE, seeds=1, expected_s=6),
        "small": Budget(_REAL_SMALL, seeds=1, expected_s=240, requires=("models",)),
        "full": Budget(_REAL_FULL, seeds=1, expected_s=7200, requires=("models", "gpu")),
    }),
    Claim("qfit_kv_error", check=check_qfit_kv_error, budgets={
        "smoke": Budget(_REAL_SMOKE, seeds=1, expected_s=6),
        "small": Budget(_REAL_SMALL, seeds=1, expected_s=240, requires=("models",)),
        "full": Budget(_REAL_FULL, seeds=1, expected_s=7200, requires=("models", "gpu")),
    }),
    Claim("ptq_degrades", check=check_ptq_degrades, budgets={
        "smoke": Budget(_TRAIN_SMOKE, seeds=1, expected_s=6),
        "small": Budget(_TRAIN_SMALL, seeds=3, expected_s=280),
        "full": Budget(_TRAIN_FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("reqat_recovers", check=check_reqat_recovers, budgets={
        "smoke": Budget(_TRAIN_SMOKE, seeds=1, expected_s=6),
        "small": Budget(_TRAIN_SMALL, seeds=3, expected_s=280),
        "full": Budget(_TRAIN_FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("surpasses_ft", check=check_surpasses_ft, budgets={
        "smoke": Budget(_TRAIN_SMOKE, seeds=1, expected_s=6),
        "small": Budget(_TRAIN_SMALL, seeds=3, expected_s=280),
        "full": Budget(_TRAIN_FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
]
