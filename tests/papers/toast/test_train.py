"""[P35] experiments' plumbing: seeded models and training, the digits split, the checked checkpoint cache."""

import json

import numpy as np
import pytest
import torch
from _toast_models import plain

from icml26.common.cache import MANIFEST
from icml26.papers.toast import TrainSpec, accuracy, build_vit, digits_split, fit, trained_vit
from icml26.papers.toast._experiments import PruneSpec, finetuned, last_blocks

TINY = TrainSpec(arch="plain", embed_dim=16, depth=2, num_heads=2, epochs=1, batch_size=32, train_limit=64,
                 test_size=50)


@pytest.mark.parametrize("arch", ["plain", "transformers"])
def test_models_are_drawn_from_the_seed_alone(arch):
    state = torch.get_rng_state()
    a, b, c = (build_vit(TrainSpec(arch=arch, embed_dim=16, depth=1, num_heads=2), seed=s) for s in (1, 1, 2))
    assert torch.equal(torch.get_rng_state(), state)  # the global RNG is untouched
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert any(not torch.equal(sa[k], sc[k]) for k in sa)


def test_training_is_deterministic_and_learns():
    data = digits_split(test_size=100, train_limit=600, seed=0)
    runs = []
    for _ in range(2):
        m = plain(depth=2, width=32, heads=2, seed=0).train()
        losses = fit(m, data.x_train, data.y_train, epochs=15, lr=2e-3, batch_size=32, weight_decay=0.0, seed=5)
        runs.append((losses, m.state_dict()))
    assert runs[0][0] == runs[1][0] and all(torch.equal(v, runs[1][1][k]) for k, v in runs[0][1].items())
    assert runs[0][0][-1] < 0.9 * runs[0][0][0]  # a ViT this small learns slowly from 600 images
    assert accuracy(m, data.x_test, data.y_test) > 15.0  # chance: 10 %


def test_accuracy_of_a_constant_classifier():
    class Const(torch.nn.Module):
        def forward(self, pixel_values):
            return torch.tensor([0.0, 1.0, 0.0]).expand(pixel_values.shape[0], 3)

    x = torch.zeros(8, 1, 8, 8)
    y = torch.tensor([1, 1, 0, 2, 1, 0, 0, 0])
    assert accuracy(Const(), x, y, batch_size=3) == 37.5
    with pytest.raises(ValueError, match="y"):
        accuracy(Const(), x, y[:5])
    with pytest.raises(ValueError, match="x"):
        accuracy(Const(), x[0], y)


def test_digits_split():
    d = digits_split(test_size=360, seed=0)
    assert d.x_train.shape == (1437, 1, 8, 8) and d.x_test.shape == (360, 1, 8, 8)
    assert np.bincount(d.y_test.numpy()).min() >= 35  # stratified: 10 classes, 36 each
    assert abs(float(d.x_train.mean())) < 1e-5 and abs(float(d.x_train.std()) - 1) < 1e-3
    assert digits_split(test_size=100, train_limit=200, seed=0).x_train.shape[0] == 200
    same = digits_split(test_size=360, seed=0)
    assert torch.equal(d.x_test, same.x_test)


def test_checkpoint_cache_is_keyed_by_every_field_and_reloads_exactly(tmp_path):
    a = trained_vit(TINY, seed=3, cache_dir=tmp_path)
    folders = sorted(tmp_path.joinpath("toast").iterdir())
    assert len(folders) == 1
    key = json.loads((folders[0] / MANIFEST).read_text())["key"]
    assert set(TrainSpec.__dataclass_fields__) | {"seed", "torch", "transformers"} <= set(key)
    b = trained_vit(TINY, seed=3, cache_dir=tmp_path)  # loaded, not retrained
    assert all(torch.equal(v, b.state_dict()[k]) for k, v in a.state_dict().items())
    mem = trained_vit(TINY, seed=3)  # no cache folder: trained in memory, the same weights
    assert all(torch.equal(v, mem.state_dict()[k]) for k, v in a.state_dict().items())
    trained_vit(TrainSpec(**{**TINY.__dict__, "lr": 2e-3}), seed=3, cache_dir=tmp_path)
    trained_vit(TINY, seed=4, cache_dir=tmp_path)
    assert len(list(tmp_path.joinpath("toast").iterdir())) == 3


def test_finetuned_keeps_the_masks_and_the_control_is_dense(monkeypatch, tmp_path):
    monkeypatch.setenv("ICML26_CACHE_DIR", str(tmp_path))
    pruned, info = finetuned(TINY, PruneSpec(0.5, epochs=1), seed=0)
    control, cinfo = finetuned(TINY, PruneSpec(0.0, epochs=1), seed=0)
    assert info["head_keep"] == [8, 4] and cinfo["head_keep"] == [8, 8]
    w = pruned.blocks[1].attn.qkv.weight
    assert int((w.abs().sum(1) == 0).sum()) == 3 * 8  # half of the 16 Q, K and V rows of the pruned block
    assert int((control.blocks[1].attn.qkv.weight.abs().sum(1) == 0).sum()) == 0
    again, info2 = finetuned(TINY, PruneSpec(0.5, epochs=1), seed=0)  # from the cache
    assert info2 == info and torch.equal(again.blocks[1].attn.qkv.weight, w)
    assert last_blocks(4, 2, 0.5) == [0.0, 0.0, 0.5, 0.5]
