"""[P07] experiment runs: deterministic, cached runs equal fresh ones, the cache key moves with every field."""

import dataclasses

import numpy as np
import pytest
from torch import nn

from icml26.papers.descent_tf import LISTA, DescentConstrainedTrainer, gaussian_dictionary, sparse_codes
from icml26.papers.descent_tf._experiments import cache_key, run_one
from icml26.papers.descent_tf.claims import SMOKE


def mse(pred, y):
    return (pred - y).pow(2).mean(1)


def test_fit_is_deterministic_and_lowers_the_loss():
    A = gaussian_dictionary(10, 20, seed=0)
    y, x = sparse_codes(A, count=256, density=0.1, noise=0.01, seed=1)

    def fit(method):
        tr = DescentConstrainedTrainer(LISTA(A, n_layers=4), nn.Identity(), mse, method=method, lr=3e-3, seed=3)
        before = tr.evaluate(y, x)
        hist = tr.fit(y, x, epochs=5, batch_size=64)
        return before, tr.evaluate(y, x), hist

    for method in ("constrained", "erm", "deep_supervision"):
        b, a, h = fit(method)
        b2, a2, h2 = fit(method)
        np.testing.assert_array_equal(a, a2)
        assert h.to_dict() == h2.to_dict()
        assert a[-1] < b[-1]
        assert len(h.layer_losses) == 5 and len(h.layer_losses[0]) == 5 and len(h.lambdas[0]) == 4


def test_a_cached_run_equals_a_fresh_one(tmp_path, monkeypatch):
    item = ("sparse", "constrained", 0, SMOKE)
    monkeypatch.delenv("ICML26_CACHE_DIR", raising=False)
    fresh = run_one(item)
    monkeypatch.setenv("ICML26_CACHE_DIR", str(tmp_path))
    built = run_one(item)
    folders = list((tmp_path / "descent_tf").iterdir())
    assert len(folders) == 1 and (folders[0] / "icml26-manifest.json").is_file()
    loaded = run_one(item)
    assert fresh == built == loaded
    assert len(list((tmp_path / "descent_tf").iterdir())) == 1


def test_the_cache_key_holds_every_training_field():
    base = cache_key("denoise", SMOKE, "erm", 0)
    for f in dataclasses.fields(SMOKE.denoise):
        v = getattr(SMOKE.denoise, f.name)
        other = {"encoder": "bert"}.get(f.name, v + 1 if isinstance(v, (int, float)) else v)
        cfg = dataclasses.replace(SMOKE, denoise=dataclasses.replace(SMOKE.denoise, **{f.name: other}))
        assert cache_key("denoise", cfg, "erm", 0) != base, f.name
    for f in ("epsilon", "dual_lr"):
        assert cache_key("denoise", dataclasses.replace(SMOKE, **{f: 0.123}), "erm", 0) != base
    assert cache_key("denoise", SMOKE, "constrained", 0) != base != cache_key("denoise", SMOKE, "erm", 1)


@pytest.mark.parametrize("task", ["denoise", "rows", "sparse"])
def test_a_run_measures_every_layer(task):
    row = run_one((task, "constrained", 0, SMOKE))
    L = row["n_layers"]
    assert len(row["layer_loss"]) == len(row["ood_layer_loss"]) == L + 1 and row["perturb_layer"] == max(1, L // 2)
    assert all(v >= 0 for v in row["lambda_final"]) and len(row["lambda_final"]) == L
    if row["kind"] == "accuracy":
        assert 0.0 <= row["id"] <= 1.0
    else:
        assert row["id"] == row["layer_loss"][-1] and row["ood"] == row["ood_layer_loss"][-1]
