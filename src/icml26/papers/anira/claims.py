"""The [P23] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.anira._checks import (
    check_decision_timing,
    check_depth_tracks_difficulty,
    check_no_length_extrapolation,
)
from icml26.papers.anira._rules import JUDGED
from icml26.papers.anira._runs import BASELINES, Runs
from icml26.papers.anira._train import RunSpec, TaskSpec

#: T1 at our small sizes: 6-10 variables, up to 3 hops in training; 12-18 variables, up to 7 hops out of it
POINTER = TaskSpec()
#: T1 at the notes' sizes: 12 variables, hops up to 6 in training; 16-24 variables, hops 7-10 out of it
POINTER_FULL = TaskSpec("pointer", (("n_vars", (12, 12)), ("max_hops", 6)), (("n_vars", (16, 24)), ("max_hops", 10)),
                        ood_min_difficulty=7)
#: T2: 6-8 digits in training, 10-12 out of it (the notes' sizes), whole sums judged
ADDITION = TaskSpec("addition", (("digits", (6, 8)),), (("digits", (10, 12)),), ood_min_difficulty=0, exact_match=True)
#: T3: DAGs of 6-10 nodes (the notes' sizes)
TOPO = TaskSpec("topo", (("n_nodes", (6, 10)),), (("n_nodes", (12, 16)),), ood_min_difficulty=0)
#: smoke: a few seconds of a tiny model (verdicts are not meant to be decided)
TINY = RunSpec(d_model=16, n_head=2, d_ff=32, max_depth=4, n_train=256, steps=12, batch_size=16)
SMOKE_POINTER = TaskSpec("pointer", (("n_vars", (4, 6)), ("max_hops", 2)), (("n_vars", (8, 10)), ("max_hops", 4)),
                         ood_min_difficulty=3)
SMOKE_TOPO = TaskSpec("topo", (("n_nodes", (4, 6)),), (("n_nodes", (7, 9)),), ood_min_difficulty=0)
#: full: the notes' model (d = 64, 4 heads, T = 8) and ~3 epochs of 20k examples
FULL = RunSpec(d_model=64, n_head=4, d_ff=128, max_depth=8, n_train=20000, steps=940, batch_size=64)

#: the adaptive methods on pointer chasing and addition; the baselines (fixed depth T, fixed depth and
#: Mixture-of-Depths at the adaptive methods' mean compute) join them in no_length_extrapolation
SMOKE_RUNS = Runs(tasks=(SMOKE_POINTER,), methods=JUDGED, model=TINY, n_test=40)
SMALL_RUNS = Runs(tasks=(POINTER, ADDITION), methods=JUDGED)
FULL_RUNS = Runs(tasks=(POINTER_FULL, ADDITION), methods=JUDGED, model=FULL, n_test=2000)


@dataclass(frozen=True)
class AlignmentConfig:
    runs: Runs = SMALL_RUNS
    judged: tuple[str, ...] = JUDGED


@dataclass(frozen=True)
class ExtrapolationConfig:
    runs: Runs = dataclasses.replace(SMALL_RUNS, baselines=BASELINES)  # depth_tracks_difficulty's models, baselines
    judged: tuple[str, ...] = JUDGED


@dataclass(frozen=True)
class TimingConfig:
    runs: Runs = Runs(tasks=(TOPO,), methods=JUDGED)


CLAIMS = [
    Claim("depth_tracks_difficulty", check=check_depth_tracks_difficulty, budgets={
        "smoke": Budget(AlignmentConfig(runs=SMOKE_RUNS), seeds=1, expected_s=3),
        "small": Budget(AlignmentConfig(), seeds=3, expected_s=180),
        "full": Budget(AlignmentConfig(runs=FULL_RUNS), seeds=5, expected_s=7200),
    }),
    Claim("no_length_extrapolation", check=check_no_length_extrapolation, budgets={
        "smoke": Budget(ExtrapolationConfig(runs=dataclasses.replace(SMOKE_RUNS, baselines=BASELINES)), seeds=1,
                        expected_s=4),
        "small": Budget(ExtrapolationConfig(), seeds=3, expected_s=150),
        "full": Budget(ExtrapolationConfig(runs=dataclasses.replace(FULL_RUNS, baselines=BASELINES)), seeds=5,
                       expected_s=7200),
    }),
    Claim("decision_timing", check=check_decision_timing, budgets={
        "smoke": Budget(TimingConfig(runs=Runs(tasks=(SMOKE_TOPO,), methods=JUDGED, model=TINY, n_test=40)), seeds=1,
                        expected_s=3),
        "small": Budget(TimingConfig(), seeds=3, expected_s=200),
        "full": Budget(TimingConfig(runs=Runs(tasks=(TOPO,), methods=JUDGED, model=FULL, n_test=2000)), seeds=5,
                       expected_s=3600),
    }),
]
