"""[P22] capacity / security sweep: the operating-point rule, disjoint calibration and test secrets, and
steganalysers scored on images they were not trained on."""

import dataclasses

import numpy as np

from icml26.papers.kistego import cnn_auc, logistic_auc
from icml26.papers.kistego._checks import (
    CALIBRATION,
    _embed_and_channel,
    measurement_step,
    operating_point,
    secrets_for,
)
from icml26.papers.kistego._unet import digits_images
from icml26.papers.kistego.claims import SMOKE


def test_operating_point_is_the_weakest_strength_meeting_the_target() -> None:
    cfg = dataclasses.replace(SMOKE, strengths=(0.05, 1.0, 4.0), calibration_images=4, embed_steps=10)
    op = operating_point(cfg)
    acc = op["calibration_accuracy"]
    assert sorted(acc) == [0.05, 1.0, 4.0]
    assert acc[0.05] < 0.95 <= acc[4.0]  # the sweep spans the target: a near-unguided strength cannot carry bits
    want = min(g for g, a in acc.items() if a >= 0.95)
    assert op["reached"] and op["guidance"] == want
    # with a target nobody reaches the rule falls back to the strongest and says so
    none = operating_point(dataclasses.replace(cfg, strengths=(0.05, 0.1)))
    assert not none["reached"] and none["guidance"] == 0.1
    # the calibration is measured the way the test stego runs are: the same embedding, channel and extraction
    run = _embed_and_channel(cfg, secrets_for(cfg, 0, split="calibration"), 4.0, seed=90_000)
    assert float((run["extracted"] == run["bits"]).mean()) == acc[4.0]


def test_calibration_and_test_secrets_are_disjoint() -> None:
    cfg = dataclasses.replace(SMOKE, prior="digits", images=200, calibration_images=CALIBRATION)
    pool = digits_images(split="heldout")
    cal, test = secrets_for(cfg, 0, split="calibration"), secrets_for(cfg, 1)
    flat = {tuple(np.round(x.ravel(), 6)) for x in pool}
    assert len(flat) == len(pool)  # held-out digits are distinct images, so set membership identifies them
    cal_set, test_set = {tuple(np.round(x.ravel(), 6)) for x in cal}, {tuple(np.round(x.ravel(), 6)) for x in test}
    assert len(cal_set) == CALIBRATION and len(test_set) == 200 and not cal_set & test_set
    gp_cal, gp_test = secrets_for(SMOKE, 0, split="calibration"), secrets_for(SMOKE, 0)
    assert not np.allclose(gp_cal[:1], gp_test[:1])


def test_steganalysers_score_only_images_they_did_not_fit() -> None:
    """Pure-noise 'covers' and 'stegos' of one distribution: a detector scored on its own training images could
    memorise them; scored on disjoint images it stays near chance."""
    g = np.random.default_rng(3)
    covers, stegos = g.random((48, 16, 16)), g.random((48, 16, 16))
    assert abs(cnn_auc(covers, stegos, epochs=40, seed=0) - 0.5) < 0.2
    assert abs(logistic_auc(covers, stegos, seed=0) - 0.5) < 0.2


def test_measurement_step_is_the_calibration_grids_best() -> None:
    from icml26.papers.kistego.claims import FidelityConfig

    cfg = FidelityConfig(SMOKE, steps=10, samples=1, guidances=(0.0, 4.0), calibration_images=3)
    out = measurement_step(cfg)
    psnrs = out["calibration_psnr"]
    assert psnrs[4.0] > psnrs[0.0]  # guidance toward the shares beats unguided sampling on the GP prior
    assert out["guidance"] == 4.0
