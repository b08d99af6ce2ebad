"""[P34] the OLMoE model trained here: transformers' class with 8 experts top-2 and its load-balancing loss,
deterministic training, and a cache keyed by every config field."""

import dataclasses

import pytest
import torch

from icml26.papers.moe_tta import build_olmoe, moe_layers, trained_olmoe
from icml26.papers.moe_tta._model import _key
from icml26.papers.moe_tta.claims import SMOKE_MODEL, ModelConfig


def test_the_model_is_an_olmoe_with_eight_experts_top_two():
    m = build_olmoe(SMOKE_MODEL, seed=0)
    assert type(m).__name__ == "OlmoeForCausalLM"
    assert {(layer.n_experts, layer.top_k) for layer in moe_layers(m)} == {(8, 2)}
    x = torch.randint(0, 11, (2, 9), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        out = m(input_ids=x, labels=x)
    assert out.aux_loss is not None and float(out.aux_loss) > 0  # the load-balancing loss is in the objective
    ce = torch.nn.functional.cross_entropy(out.logits[:, :-1].reshape(-1, 11), x[:, 1:].reshape(-1))
    assert float(out.loss) == pytest.approx(float(ce) + SMOKE_MODEL.aux_coef * float(out.aux_loss), rel=1e-5)


def test_init_is_seeded_and_leaves_the_global_rng_alone():
    state = torch.random.get_rng_state()
    a, b, c = build_olmoe(SMOKE_MODEL, seed=1), build_olmoe(SMOKE_MODEL, seed=1), build_olmoe(SMOKE_MODEL, seed=2)
    assert torch.equal(torch.random.get_rng_state(), state)
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa) and not all(torch.equal(sa[k], sc[k]) for k in sa)


def test_training_is_deterministic_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML26_CACHE_DIR", str(tmp_path))
    a = trained_olmoe(SMOKE_MODEL)
    folders = list((tmp_path / "moe_tta").iterdir())
    assert len(folders) == 1 and (folders[0] / "olmoe.pt").is_file()
    b = trained_olmoe(SMOKE_MODEL)  # from the cache
    monkeypatch.setenv("ICML26_CACHE_DIR", "off")
    c = trained_olmoe(SMOKE_MODEL)  # trained again, no cache
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) and torch.equal(sa[k], sc[k]) for k in sa)
    untrained = build_olmoe(SMOKE_MODEL, seed=SMOKE_MODEL.train_seed).state_dict()
    assert not all(torch.equal(sa[k], untrained[k]) for k in sa)


def test_the_cache_key_holds_every_config_field():
    base = _key(ModelConfig())
    assert set(base["config"]) == {f.name for f in dataclasses.fields(ModelConfig)}
    for f in dataclasses.fields(ModelConfig):
        v = getattr(ModelConfig(), f.name)
        changed = (v + (1,)) if isinstance(v, tuple) else v + 1
        assert _key(dataclasses.replace(ModelConfig(), **{f.name: changed})) != base, f.name
