"""Planted rows on both sides of each [P22] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def extraction_rows(clean, distorted, wrong, right=0.95, chance=0.7, seeds=3, per_seed=8):
    """Every secret gets the same accuracies; ``right``/``wrong`` are the keyed baseline's with its right/a wrong key."""
    return [{"seed": s, "image": i, "acc_clean": clean, "acc_distorted": distorted, "acc_right_key": right,
             "acc_wrong_key": wrong, "acc_chance": chance} for s in range(seeds) for i in range(per_seed)]


def fidelity_rows(dps_psnr, dps_ssim, seeds=3, per_seed=8):
    """DPS at (dps_psnr + jitter, dps_ssim); baselines at 18 dB / 0.6 ('blur') and 15 dB / 0.5 ('median')."""
    return [{"seed": s, "image": i, "psnr_dps": dps_psnr + 0.1 * (i % 3), "ssim_dps": dps_ssim + 0.01 * (i % 2),
             "baselines": {"blur 0.5": {"psnr": 18.0, "ssim": 0.6}, "median 3": {"psnr": 15.0, "ssim": 0.5}}}
            for s in range(seeds) for i in range(per_seed)]


def steg_rows(logistic, cnn, seeds=3):
    return [{"seed": s, "detector": d, "auc": a + 0.01 * s} for s in range(seeds)
            for d, a in (("logistic", logistic), ("cnn", cnn))]


PLANTED = {
    "keyfree_extraction": Planted(
        holds={"rows": extraction_rows(1.0, 0.99, 0.71)},
        fails={"rows": extraction_rows(1.0, 0.90, 0.71)},
        budget_variants=((
            {"rows": extraction_rows(1.0, 0.99, 0.71, seeds=5, per_seed=32)},
            {"rows": extraction_rows(1.0, 0.99, 0.95, seeds=5, per_seed=32)}),),
    ),
    "posterior_fidelity": Planted(
        holds={"rows": fidelity_rows(21.0, 0.7)},
        fails={"rows": fidelity_rows(18.5, 0.7)},
        budget_variants=((
            {"rows": fidelity_rows(21.0, 0.7, seeds=5, per_seed=32)},
            {"rows": fidelity_rows(21.0, 0.55, seeds=5, per_seed=32)}),),
    ),
    "steganalysis_chance": Planted(
        holds={"rows": steg_rows(0.52, 0.55)},
        fails={"rows": steg_rows(0.52, 0.95)},
        budget_variants=(({"rows": steg_rows(0.5, 0.5, seeds=6)}, {"rows": steg_rows(0.99, 0.5, seeds=6)}),),
    ),
}
