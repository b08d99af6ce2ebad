"""Planted rows on both sides of each [P28] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def seed_rows(n: int, **means: float) -> list[dict]:
    """``n`` seeds; each metric = its mean + a small seed-dependent wobble (paired seeds share it)."""
    wobble = [0.01 * ((-1) ** s) * (s % 3) for s in range(n)]
    return [{"seed": s, **{k: v + wobble[s] for k, v in means.items()}} for s in range(n)]


GOOD = {"mauve_actg": 0.8, "mauve_direct": 0.6, "tv_actg": 0.05, "tv_direct": 0.12, "control_actg": 0.3,
        "control_arl": 0.55, "mauve_arl": 0.78, "control_rl_only": 0.6, "mauve_rl_only": 0.4}
BAD = {"mauve_actg": 0.5, "mauve_direct": 0.7, "tv_actg": 0.15, "tv_direct": 0.08, "control_actg": 0.3,
       "control_arl": 0.31, "mauve_arl": 0.3, "control_rl_only": 0.2, "mauve_rl_only": 0.5}


def accounting(eps_rdp: float = 4.0, eps_pld: float = 3.4, opacus: float = 3.2, exact: float = 1.6,
               opacus_total: float = 4.0) -> list[dict]:
    return [{"q": 0.1, "steps": 80, "epsilon": 4.0, "eps_rdp": eps_rdp, "eps_rdp_no_select": 3.7,
             "eps_pld_no_select": eps_pld, "eps_rdp_stage2": 3.2, "eps_opacus_stage2": opacus,
             "eps_opacus": opacus_total, "eps_pld_stage1": 1.6, "eps_exact_stage1": exact}]


PLANTED = {
    name: Planted(holds={"rows": seed_rows(3, **GOOD)}, fails={"rows": seed_rows(3, **BAD)},
                  budget_variants=(({"rows": seed_rows(6, **GOOD)}, {"rows": seed_rows(6, **BAD)}),))
    for name in ("actg_beats_dpsft", "arl_control", "rl_reward_hacking")
}
PLANTED["privacy_accounting"] = Planted(
    holds={"rows": accounting()}, fails={"rows": accounting(eps_rdp=4.5, eps_pld=3.9, opacus=3.5, exact=1.8)},
    budget_variants=(({"rows": accounting() * 3}, {"rows": accounting(eps_pld=4.2) * 3}),))
