"""The [P24] claims: configs per budget and the CLAIMS table (checks in ``_checks*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.aad1._checks import check_causal_collapse, check_drift, check_motion_kept, check_warmup_stability
from icml26.papers.aad1._checks_speed import check_one_step_speed
from icml26.papers.aad1._nets import NetConfig


@dataclass(frozen=True)
class ArmsConfig:
    """Teacher, data and the four student arms (notes §4, scaled to fit the small budget on 2 cores)."""

    net: NetConfig = NetConfig()
    train_videos: int = 4096
    eval_videos: int = 256
    teacher_steps: int = 3000
    teacher_batch: int = 128
    teacher_lr: float = 2e-3
    teacher_sample_steps: int = 50
    batch: int = 32
    init_videos: int = 1024  # teacher samples the students are initialised on (IMLE, ours)
    init_sample_steps: int = 20  # DDIM steps of those samples
    init_steps: int = 1000
    init_candidates: int = 16  # noise draws per target and step (cover the eight velocity modes)
    init_lr: float = 2e-3
    warmup: int = 400  # DMD warm-up generator steps
    adversarial: int = 200  # adversarial (or continued DMD) generator steps after the warm-up
    dmd_lr: float = 1e-4
    adv_lr: float = 2e-5
    r1: float = 1.0
    d_noise: float = 0.5  # instance noise of the discriminators' input: t ~ U(0, d_noise) (ours)
    fake_updates: int = 1
    probe_every: int = 25
    full_scale: bool = False


@dataclass(frozen=True)
class SpeedConfig:
    """Batches of conditioning frames rolled out by the student and sampled by the teacher, paired per repetition."""

    net: NetConfig = NetConfig()
    batch: int = 64
    teacher_steps: int = 50
    reps: int = 10
    full_scale: bool = False


SMOKE = ArmsConfig(net=NetConfig(teacher_hidden=8, student_hidden=8, disc_hidden=8), train_videos=64,
                   eval_videos=16, teacher_steps=8, teacher_batch=16, teacher_sample_steps=4, batch=8, init_videos=16,
                   init_sample_steps=2, init_steps=4, init_candidates=2, warmup=4, adversarial=4, probe_every=2)
SMALL = ArmsConfig()
FULL = ArmsConfig(full_scale=True)

CLAIMS = [
    Claim("motion_kept", check=check_motion_kept, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3),
        "small": Budget(SMALL, seeds=3, expected_s=210),
        "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("causal_collapse", check=check_causal_collapse, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=1),
        "small": Budget(SMALL, seeds=3, expected_s=5),
        "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("warmup_stability", check=check_warmup_stability, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=1),
        "small": Budget(SMALL, seeds=3, expected_s=5),
        "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("drift_2x", check=check_drift, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=1),
        "small": Budget(SMALL, seeds=3, expected_s=5),
        "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("one_step_speed", check=check_one_step_speed, budgets={
        "smoke": Budget(SpeedConfig(net=NetConfig(teacher_hidden=8, student_hidden=8, disc_hidden=8), batch=8,
                                    teacher_steps=4, reps=3), seeds=1, expected_s=2),
        "small": Budget(SpeedConfig(), seeds=1, expected_s=30),
        "full": Budget(SpeedConfig(full_scale=True), seeds=1, expected_s=1.0, requires=("gpu",)),
    }),
]
