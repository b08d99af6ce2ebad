"""The [P10] claims: configs per budget and the CLAIMS table (checks in ``_checks*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.chebyshev_rl._checks import check_mlp_gap, check_optimum, check_regret_ratio
from icml26.papers.chebyshev_rl._checks_gains import check_consistent_gains, check_pendulum_gains


@dataclass(frozen=True)
class P10Config:
    """Step budgets and evaluation sizes (paper: 100 starts, ARS 80K steps, PPO 70K steps, 50x50 Pendulum grid).

    A budget is checked between updates, the same rule for CH and MLP: ARS / REINFORCE finish the update in progress
    (< 2 n_delta x 999, resp. 8 x 999, steps over on Mountain Car), PPO rounds up to whole 2048-step rollouts."""

    n_starts: int = 100  # of the 100 equidistant x0 in [-0.6, -0.4] (evenly picked) for evaluation and regret
    fine: bool = True  # fine grid for the Eq. (A2) comparison (the Eq. (A3) reference is tabulated)
    ars_steps: int = 80_000
    ppo_steps: int = 70_000  # 0: PPO skipped at this budget
    reinforce_steps: int = 200_000
    pendulum_steps: int = 100_000  # ARS on Pendulum-v1
    pendulum_ppo_steps: int = 200_000  # PPO on Pendulum-v1 (0: skipped)
    pendulum_grid: int = 50
    rich_starts: int = 10  # starts (evenly picked) for the dense local search around R*
    rich_grid: tuple[int, int, int, int, int] = (7, 7, 7, 7, 7)  # points per axis (k1, e_th, k2, c, b)
    cem_pop: int = 300  # cross-entropy search over energy-dependent gain schedules, on every evaluation start
    cem_iters: int = 15
    zoo_steps: int = 20_000  # MLP-PPO with rl-zoo's own settings (0: skipped); rl-zoo trains 20K steps
    zoo_seeds: int = 3


SMOKE = P10Config(n_starts=8, fine=False, ars_steps=4_000, ppo_steps=0, reinforce_steps=4_000, pendulum_steps=1_600,
                  pendulum_ppo_steps=0, pendulum_grid=5, rich_starts=2, rich_grid=(3, 3, 3, 1, 3),
                  cem_pop=16, cem_iters=2, zoo_steps=0)
SMALL = P10Config(ppo_steps=20_000, reinforce_steps=100_000, pendulum_steps=64_000, pendulum_ppo_steps=20_000,
                  pendulum_grid=20, rich_grid=(5, 5, 5, 5, 5), cem_pop=200, cem_iters=12,
                  zoo_steps=0)  # rl-zoo MLP: 2-3 CPU-min per seed
FULL = P10Config()

CLAIMS = [
    Claim("optimum", check=check_optimum, budgets={  # small: trains every agent of the mountain_car group
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=5, expected_s=200),
        "full": Budget(FULL, seeds=20, expected_s=1800)}),
    Claim("mlp_gap", check=check_mlp_gap, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=3, expected_s=120),
        "full": Budget(FULL, seeds=20, expected_s=1800)}),
    Claim("regret_ratio", check=check_regret_ratio, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=5, expected_s=90),
        "full": Budget(FULL, seeds=20, expected_s=1200)}),
    Claim("consistent_gains", check=check_consistent_gains, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=3, expected_s=150),
        "full": Budget(FULL, seeds=20, expected_s=3600)}),
    Claim("pendulum_gains", check=check_pendulum_gains, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=3, expected_s=120),
        "full": Budget(FULL, seeds=20, expected_s=3600)}),
]
