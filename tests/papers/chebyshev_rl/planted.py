"""Planted measurements on both sides of each [P10] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

CH_ARS, MLP_ARS = [1.0, 1.05, 0.98], [4.0, 4.4, 4.2]  # regret ratio ~4.2, as the paper's 4.18


def optimum(gain: float, n: int = 10, beaten: int = 0) -> dict:
    return {"reaches": [True] * n, "search_gains": [0.0] * (n - 1) + [gain],
            "beaten": {"CH-ARS s0": beaten, "MLP-ARS s0": 0}}


CH_PPO = [1.0, 1.1, 1.2]


def gap(ars: list[float], ppo: list[float]) -> dict:
    """MLP regrets per seed against CH's (CH-ARS ~1.0, CH-PPO ~1.1, repeated to the number of seeds)."""
    return {"regret_mlp": {"ars": ars, "ppo": ppo},
            "regret_ch": {"ars": (CH_ARS * len(ars))[:len(ars)], "ppo": (CH_PPO * len(ppo))[:len(ppo)]}}


def ratio(mlp: list[float], ch: list[float], params_mlp: int = 4417) -> dict:
    return {"regret_mlp": mlp, "regret_ch": ch, "params_mlp": params_mlp, "params_ch": 16}


def mc_gains(reinforce_ch: list[float]) -> dict:
    return {"returns_ch": {"ars": [98.4, 98.3, 98.5], "reinforce": reinforce_ch},
            "returns_mlp": {"ars": [96.0, 96.5, 95.9], "reinforce": [80.0, 82.0, 79.0]},
            "regret_ch": {"ars": 1.2, "reinforce": 8.0}, "regret_mlp": {"ars": 4.0, "reinforce": 20.0}}


def pendulum(ppo_ch: list[float]) -> dict:
    return {"returns_ch": {"ars": [-500.0, -520.0, -510.0], "ppo": ppo_ch},
            "returns_mlp": {"ars": [-900.0, -950.0, -920.0], "ppo": [-800.0, -820.0, -790.0]},
            "zero_torque": -1248.0}


PLANTED = {
    "optimum": Planted(
        holds=optimum(0.01), fails=optimum(0.157),
        budget_variants=((optimum(0.0, n=100), optimum(0.05, n=100)), (optimum(0.0), optimum(0.0, beaten=3)))),
    "mlp_gap": Planted(  # fails: an MLP-ARS merely as good as CH-ARS (its regret of ~1.2 would pass an absolute gap)
        holds=gap([3.9, 4.5, 3.5], [5.0, 6.0, 7.0]), fails=gap([1.1, 1.25, 1.15], [5.0, 6.0, 7.0]),
        budget_variants=((gap([3.9, 4.5, 3.5, 4.1, 3.7], [5.0, 6.0, 7.0, 5.5, 6.5]),
                          gap([3.9, 4.5, 3.5, 4.1, 3.7], [1.2, 1.0, 1.3, 1.2, 1.25])),)),
    "regret_ratio": Planted(
        holds=ratio(MLP_ARS, CH_ARS), fails=ratio([1.5, 1.6, 1.4], [1.0, 1.0, 1.0]),
        budget_variants=((ratio(MLP_ARS * 3, CH_ARS * 3), ratio(MLP_ARS * 3, CH_ARS * 3, params_mlp=1000)),)),
    "consistent_gains": Planted(holds=mc_gains([90.0, 91.0, 92.0]), fails=mc_gains([70.0, 71.0, 69.0])),
    "pendulum_gains": Planted(holds=pendulum([-700.0, -690.0, -710.0]), fails=pendulum([-900.0, -880.0, -910.0])),
}
