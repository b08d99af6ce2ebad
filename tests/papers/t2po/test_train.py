"""The [P15] trainer: every arm runs through icml26.common.rl, the run summary, and the on-disk cache."""

from dataclasses import replace

import numpy as np
import pytest

from icml26.common.rl import grpo_advantages
from icml26.papers.t2po import ARMS, TrainConfig, train_agent
from icml26.papers.t2po._runs import run_seed, summarise
from icml26.papers.t2po._train import _advantages, play, task_set, vocab_of

TINY = TrainConfig(demo_episodes=64, sft_steps=10, sft_batch=16, iterations=2, prompts=2, group=4, eval_every=1,
                   eval_samples=1, block_size=40, d_model=16)


@pytest.mark.parametrize("arm", ARMS)
def test_every_arm_trains_and_records_its_curves(arm) -> None:
    model, run = train_agent(TINY, arm, seed=0)
    assert [r["iteration"] for r in run["train"]] == [1, 2] and [e["iteration"] for e in run["evals"]] == [0, 1, 2]
    for r in run["train"]:
        assert np.isfinite(r["grad_norm"]) and r["kl"] >= 0 and 0 <= r["success"] <= 1
        if arm not in ("t2po", "gigpo_tds"):
            assert r["resample"] == 0 and r["forced"] >= 0  # only the arms with TDS resample turns
        if arm not in ("t2po", "gigpo_tti"):
            assert r["forced"] == 0  # only the arms with TTI force </think>
    assert model.cfg.block_size == TINY.block_size


def test_the_maze_trains_too() -> None:
    cfg = replace(TINY, env="maze", max_turns=8, maze_rooms=2)
    _, run = train_agent(cfg, "t2po", seed=1)
    assert len(run["train"]) == 2 and 0 <= run["evals"][-1]["success"] <= 1


def test_grpo_turn_advantages_are_the_episode_advantage() -> None:
    model, _ = train_agent(replace(TINY, iterations=1), "grpo", seed=0)
    tasks = [t for t in task_set(TINY, 0)[:2] for _ in range(4)]
    ep = play(model, tasks, vocab_of(TINY, 0), seed=3, tti=None, tds=None, weight=0.5)
    adv = _advantages(TINY, "grpo", ep)
    want = grpo_advantages(ep.returns.reshape(2, 4)).reshape(-1)
    np.testing.assert_allclose(adv, np.repeat(want[:, None], adv.shape[1], axis=1))
    gi = _advantages(TINY, "gigpo", ep)
    assert gi.shape == adv.shape and np.all(np.isfinite(gi))


def test_summary_flags_a_collapse() -> None:
    run = {"evals": [{"iteration": i, "success": s, "low_info": 0.1, "think": 1.0}
                     for i, s in enumerate([0.5, 0.8, 0.45, 0.6])],
           "train": [{"low_info": 0.2, "think": 2.0, "resample": 0.0, "tokens": 10.0, "overflow": 0.0, "grad_norm": 1.0,
                      "kl": 0.1, "success": 0.5, "forced": 0.5, "forced_logp": -2.0}]}
    row = summarise(TINY, "grpo", 0, run)
    assert row["drawdown"] == pytest.approx(0.35) and row["collapsed"]
    assert row["final_success"] == 0.6 and row["initial_success"] == 0.5 and row["forced_logp"] == -2.0
    run["evals"][2]["success"] = 0.55
    assert not summarise(TINY, "grpo", 0, run)["collapsed"]


def test_runs_are_cached_by_every_field(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ICML26_CACHE_DIR", str(tmp_path))
    cfg = replace(TINY, iterations=1)
    a = run_seed((cfg, ("grpo",), 0))
    folders = sorted(p.name for p in (tmp_path / "t2po").iterdir())
    assert len(folders) == 2 and folders[0].startswith("cold-") and folders[1].startswith("rl-")
    assert run_seed((cfg, ("grpo",), 0)) == a  # read back
    run_seed((replace(cfg, lr=2e-3), ("grpo",), 0))  # a changed RL field: a new run, the same cold start
    assert len(list((tmp_path / "t2po").iterdir())) == 3


def test_train_agent_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="arm"):
        train_agent(TINY, "ppo", seed=0)
    with pytest.raises(TypeError, match="seed"):
        train_agent(TINY, "grpo", seed=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="env"):
        train_agent(replace(TINY, env="webshop"), "grpo", seed=0)
    with pytest.raises(TypeError, match="cfg"):
        train_agent({"env": "numberhunt"}, "grpo", seed=0)  # type: ignore[arg-type]
