"""[P22] capacity / security sweep: the operating-point rule, disjoint calibration and test secrets, and
steganalysers scored on images they were not trained on."""

import dataclasses

import numpy as np
import pytest

from icml26.papers.kistego import (
    GaussianProcessPrior,
    cnn_auc,
    layout_auc,
    logistic_auc,
    pair_layout,
    projection_layout,
    readout_features,
)
from icml26.papers.kistego._checks import measurement_step
from icml26.papers.kistego._embedding import (
    CALIBRATION,
    embed_and_channel,
    operating_point,
    points,
    secrets_for,
)
from icml26.papers.kistego._unet import digits_images
from icml26.papers.kistego.claims import SMOKE


def test_operating_point_is_the_least_detectable_accurate_point_on_calibration_data() -> None:
    cfg = dataclasses.replace(SMOKE, strengths=(0.05, 4.0), projection_strengths=(0.01, 1.0), embed_steps=10)
    op = operating_point(cfg)
    table = op["calibration"]
    assert [(r["layout"], r["strength"]) for r in table] == points(cfg) == [
        ("pairs", 0.05), ("pairs", 4.0), ("projection", 0.01), ("projection", 1.0)]
    acc = {(r["layout"], r["strength"]): r["accuracy"] for r in table}
    assert acc[("pairs", 0.05)] < 0.95 <= acc[("pairs", 4.0)]  # a near-unguided strength cannot carry the bits
    ok = [r for r in table if r["accuracy"] >= 0.95]
    want = min(ok, key=lambda r: (max(r["auc_logistic"], r["auc_cnn"], r["auc_layout"]), -r["accuracy"],
                                  r["strength"]))
    assert op["reached"] and (op["layout"], op["guidance"]) == (want["layout"], want["strength"])
    # with a target nobody reaches the rule falls back to the most accurate point and says so
    none = operating_point(dataclasses.replace(cfg, strengths=(0.05,), projection_strengths=(0.01,)))
    best = max(none["calibration"], key=lambda r: r["accuracy"])
    assert not none["reached"] and (none["layout"], none["guidance"]) == (best["layout"], best["strength"])
    # the calibration is measured the way the test stego runs are: the same embedding, channel and extraction
    run = embed_and_channel(cfg, secrets_for(cfg, 0, split="calibration"), "pairs", 4.0, seed=90_000)
    assert float((run["extracted"] == run["bits"]).mean()) == acc[("pairs", 4.0)]


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
    out = measurement_step(cfg, 4)
    psnrs = out["calibration_psnr"]
    assert psnrs[4.0] > psnrs[0.0]  # guidance toward the shares beats unguided sampling on the GP prior
    assert out["guidance"] == 4.0


def test_the_layout_aware_steganalyser_sees_bits_pushed_beyond_a_margin() -> None:
    """The layout is public, so an adversary reads the soft bits as the receiver does: images whose every projection
    sits at least a margin from its threshold (what margin guidance leaves) are told from unguided samples, which
    have bits near their thresholds; two sets of unguided samples are not told apart."""
    gp = GaussianProcessPrior(16, length_scale=2.0)
    ref = ((gp.sample_x0(400, seed=0)[:, 0].numpy() + 1) / 2).clip(0, 1).astype(np.float64)
    lay = projection_layout(ref[:200], bits_shape=(2, 2))
    covers, other = ref[200:300], ref[300:]
    flat = other.reshape(len(other), -1)
    p = (flat - lay.mean) @ lay.directions.T - lay.thresholds
    pushed = np.sign(p) * np.maximum(np.abs(p), 0.6)  # every bit kept, each at least 0.6 from its threshold
    stegos = np.clip(flat + (pushed - p) @ lay.directions, 0, 1).reshape(other.shape)
    assert np.abs(readout_features(stegos, lay)).min() > 0.3
    assert layout_auc(covers, stegos, layout=lay, seed=0) > 0.8
    assert abs(layout_auc(covers, other, layout=lay, seed=0) - 0.5) < 0.2
    pairs = pair_layout((16, 16), cell=2)
    assert readout_features(covers, pairs).shape == (100, pairs.bits_shape[0] * pairs.bits_shape[1])
    with pytest.raises(TypeError, match="layout"):
        readout_features(covers, layout=None)  # type: ignore[arg-type]
