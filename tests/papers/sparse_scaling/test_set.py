"""SET dynamic sparse training of [P37]: exact density through prune/regrow, masked Adam moments, dense at s = 1."""

import math

import pytest
import torch
from torch import nn

from icml26.papers.sparse_scaling import RunConfig, SETMasker, make_model, sparsifiable

CFG = RunConfig(d_model=8, n_head=2, seq_len=8, unique_sequences=8, batch_size=4)


def _model(seed: int = 0) -> nn.Module:
    return make_model(CFG, vocab=16, seed=seed)


def _train(model: nn.Module, masker: SETMasker | None, steps: int, seed: int = 0) -> torch.optim.Adam:
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        x = torch.randint(0, 16, (4, 9), generator=g)
        loss = model.loss(x[:, :-1], x[:, 1:])  # type: ignore[operator]
        opt.zero_grad()
        loss.backward()
        if masker is not None:
            masker.mask_grads()
        opt.step()
        if masker is not None:
            masker.step(opt)
    return opt


def test_sparsifiable_keeps_embeddings_and_head_dense() -> None:
    names = sparsifiable(_model())
    assert names and all(n.startswith("blocks.") and n.endswith(".weight") for n in names)
    assert "wte.weight" not in names and "lm_head.weight" not in names


def test_density_is_exact_through_regrowth_and_moments_are_masked() -> None:
    model = _model()
    masker = SETMasker(model, density=0.3, update_every=3, prune_rate=0.5, total_steps=40,
                       generator=torch.Generator().manual_seed(1))
    want = {n: round(0.3 * p.numel()) for n, p in masker.params.items()}
    assert masker.active_counts() == want
    before = {n: m.clone() for n, m in masker.masks.items()}
    opt = _train(model, masker, 30)
    assert masker.updates == 10 and masker.active_counts() == want
    assert any(not torch.equal(before[n], m) for n, m in masker.masks.items())  # the topology moved
    for n, mask in masker.masks.items():
        p = masker.params[n]
        assert torch.all(p[~mask] == 0) and int((p != 0).sum()) <= want[n]
        state = opt.state[p]
        assert torch.all(state["exp_avg"][~mask] == 0) and torch.all(state["exp_avg_sq"][~mask] == 0)


def test_regrown_weights_start_at_zero_with_zero_moments() -> None:
    model = _model()
    masker = SETMasker(model, density=0.5, update_every=1000, prune_rate=0.4, total_steps=100,
                       generator=torch.Generator().manual_seed(2))
    opt = _train(model, masker, 5)
    old = {n: m.clone() for n, m in masker.masks.items()}
    moved = masker.update_topology()
    masker.apply(opt)
    assert moved > 0
    for n, mask in masker.masks.items():
        grown = mask & ~old[n]
        assert grown.any() and torch.all(masker.params[n][grown] == 0)
        assert torch.all(opt.state[masker.params[n]]["exp_avg"][grown] == 0)


def test_prune_takes_the_smallest_magnitudes() -> None:
    lin = nn.Linear(10, 10, bias=False)
    with torch.no_grad():
        lin.weight.copy_(torch.arange(1, 101, dtype=torch.float32).view(10, 10))
    masker = SETMasker(lin, density=0.5, update_every=1, prune_rate=0.2, total_steps=10, schedule="constant",
                       generator=torch.Generator().manual_seed(0))
    with torch.no_grad():  # the initial mask zeroed half; give the active weights distinct magnitudes again
        lin.weight.copy_(torch.arange(1, 101, dtype=torch.float32).view(10, 10) * masker.masks["weight"])
    active = lin.weight[masker.masks["weight"]]
    smallest = set(torch.sort(active).values[:10].tolist())  # k = int(0.2 · 50)
    masker.update_topology()
    survivors = set(lin.weight[masker.masks["weight"]].tolist()) - {0.0}
    assert survivors == set(active.tolist()) - smallest and masker.active_counts() == {"weight": 50}


def test_cosine_schedule() -> None:
    masker = SETMasker(_model(), density=0.5, update_every=5, prune_rate=0.3, total_steps=100,
                       generator=torch.Generator().manual_seed(0))
    for step, want in ((0, 0.3), (50, 0.15), (100, 0.0), (25, 0.15 * (1 + math.cos(math.pi / 4)))):
        masker.steps = step
        assert masker.current_prune_rate() == pytest.approx(want)


def test_density_one_is_dense_training_exactly() -> None:
    a, b = _model(), _model()
    masker = SETMasker(a, density=1.0, update_every=2, prune_rate=0.5, total_steps=20,
                       generator=torch.Generator().manual_seed(0))
    assert not masker.masks
    _train(a, masker, 12)
    _train(b, None, 12)
    for (n, p), q in zip(a.named_parameters(), b.parameters()):
        assert torch.equal(p, q), n


def test_same_generator_same_masks_and_frozen_twin_never_moves() -> None:
    m1 = SETMasker(_model(), density=0.4, update_every=1, prune_rate=0.3, total_steps=9,
                   generator=torch.Generator().manual_seed(7))
    m2 = SETMasker(_model(), density=0.4, update_every=1, prune_rate=0.3, total_steps=9,
                   generator=torch.Generator().manual_seed(7))
    assert all(torch.equal(m1.masks[n], m2.masks[n]) for n in m1.masks)
    twin_model = _model()
    twin = m1.frozen(twin_model)
    before = {n: m.clone() for n, m in twin.masks.items()}
    _train(twin_model, twin, 6)
    assert twin.updates == 0 and all(torch.equal(before[n], twin.masks[n]) for n in before)
    assert all(torch.all(dict(twin_model.named_parameters())[n][~m] == 0) for n, m in twin.masks.items())


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="names"):
        SETMasker(_model(), density=0.5, update_every=1, prune_rate=0.1, total_steps=2,
                  generator=torch.Generator(), names=["nope.weight"])
    with pytest.raises(TypeError, match="generator"):
        SETMasker(_model(), density=0.5, update_every=1, prune_rate=0.1, total_steps=2, generator=0)  # type: ignore[arg-type]
