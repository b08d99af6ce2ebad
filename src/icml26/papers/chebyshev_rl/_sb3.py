"""PPO from stable-baselines3 with a Chebyshev actor-critic as a drop-in custom policy ([P10], CH-PPO), and the
MLP 2-64-64-1 baseline (SB3's default ``MlpPolicy``). torch and stable-baselines3 are imported lazily.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np

from icml26.common import validation

__all__ = ["CH_PPO_HP", "ENV_IDS", "ZOO_MLP_PPO_HP", "ppo", "sb3_actor_params"]

ENV_IDS = {"mc": "MountainCarContinuous-v0", "pendulum": "Pendulum-v1"}
#: the authors' CH-PPO hyper-parameters for Mountain Car (notebook 03)
CH_PPO_HP: dict[str, Any] = dict(learning_rate=1e-3, n_steps=2048, batch_size=1048, n_epochs=2, clip_range=0.4,
                                 clip_range_vf=0.4)
#: rl-baselines3-zoo's tuned PPO settings for the MLP on MountainCarContinuous-v0 (hyperparams/ppo.yml: 20K steps,
#: one env, VecNormalize on observations and rewards, gSDE); n_steps is the rollout length per update
ZOO_MLP_PPO_HP: dict[str, Any] = {
    "batch_size": 256, "n_steps": 8, "gamma": 0.9999, "learning_rate": 7.77e-5, "ent_coef": 0.00429, "clip_range": 0.1,
    "n_epochs": 10, "gae_lambda": 0.9, "max_grad_norm": 5.0, "vf_coef": 0.19, "use_sde": True,
    "policy_kwargs": {"log_std_init": -3.29, "ortho_init": False},
}


def _chebyshev_policy_class(degree: int):
    import torch
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class ChebyshevFeatures(BaseFeaturesExtractor):
        """phi(z(s)): tensor-product Chebyshev basis of the box-normalised observation (float32, clamped to [-1, 1])."""

        def __init__(self, observation_space: Any) -> None:
            n = int(np.prod(observation_space.shape))
            super().__init__(observation_space, features_dim=(degree + 1) ** n)
            low, high = observation_space.low.astype(np.float64), observation_space.high.astype(np.float64)
            if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
                raise ValueError("observation_space must have finite bounds for Chebyshev features")
            self.register_buffer("low", torch.as_tensor(low, dtype=torch.float32))
            self.register_buffer("width", torch.as_tensor(high - low, dtype=torch.float32))
            self.n = n

        def forward(self, obs: Any) -> Any:
            z = (2.0 * (obs - self.low) / self.width - 1.0).clamp(-1.0, 1.0)
            T = [torch.ones_like(z), z]
            for _ in range(1, degree):
                T.append(2.0 * z * T[-1] - T[-2])
            T = torch.stack(T[: degree + 1], dim=-1)  # (B, n, d+1)
            phi = T[:, 0, :]
            for j in range(1, self.n):
                phi = (phi[:, :, None] * T[:, j, None, :]).reshape(z.shape[0], -1)
            return phi

    class ChebyshevActorCritic(ActorCriticPolicy):
        """Actor mu = C phi, critic V = w phi (no hidden layers, no bias: T_0 = 1 is the constant term)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.update(features_extractor_class=ChebyshevFeatures, net_arch=dict(pi=[], vf=[]),
                          share_features_extractor=True, ortho_init=False)
            super().__init__(*args, **kwargs)

        def _build(self, lr_schedule: Any) -> None:
            super()._build(lr_schedule)
            k = self.features_dim
            self.action_net = torch.nn.Linear(k, int(np.prod(self.action_space.shape or (1,))), bias=False)
            self.value_net = torch.nn.Linear(k, 1, bias=False)
            torch.nn.init.constant_(self.action_net.weight, 1e-6)  # the authors' initialisation
            torch.nn.init.zeros_(self.value_net.weight)
            # SB3 types optimizer_class as a bare Optimizer, whose stub has no lr
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),  # pyright: ignore[reportCallIssue]
                                                  **self.optimizer_kwargs)

    return ChebyshevActorCritic


def _box_norm_class():
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class BoxNormFeatures(BaseFeaturesExtractor):
        """The MLP's input: the observation mapped affinely to [-1, 1] on its box (as for the Chebyshev features)."""

        def __init__(self, observation_space: Any) -> None:
            super().__init__(observation_space, features_dim=int(np.prod(observation_space.shape)))
            low, high = observation_space.low.astype(np.float64), observation_space.high.astype(np.float64)
            self.register_buffer("low", torch.as_tensor(low, dtype=torch.float32))
            self.register_buffer("width", torch.as_tensor(high - low, dtype=torch.float32))

        def forward(self, obs: Any) -> Any:
            return 2.0 * (obs.flatten(1) - self.low) / self.width - 1.0

    return BoxNormFeatures


def sb3_actor_params(model: Any) -> int:
    """Parameters of the deterministic actor (features -> mean action), excluding log-std and critic."""
    pol = model.policy
    n = sum(p.numel() for p in pol.action_net.parameters())
    n += sum(p.numel() for p in pol.mlp_extractor.policy_net.parameters())
    return int(n)


def ppo(kind: str, *, env: str = "mc", total_steps: int, seed: int = 0, degree: int = 3,
        hyper: dict[str, Any] | None = None, n_envs: int = 4, normalize: bool = False) -> tuple[Any, Any]:
    """Train PPO (SB3) with a ``"chebyshev"`` (degree ``degree``) or ``"mlp"`` (64-64, tanh) actor-critic on the real
    gymnasium environment; returns ``(model, act)`` with ``act: obs (B, n) -> deterministic actions (B, m)``.

    The PPO trainer of [P10]'s CH-PPO and MLP-PPO agents (the Chebyshev actor as a drop-in custom policy).

    ``hyper`` (default :data:`CH_PPO_HP`, the authors' CH-PPO settings) is passed to SB3's PPO;
    ``hyper["n_steps"]`` is the number of transitions per update, split over ``n_envs`` parallel copies of the
    environment (4 by default: the same 2048 transitions per update as the authors' single env, 4x faster here).
    ``normalize`` wraps the environments in SB3's ``VecNormalize`` (observations and rewards, as rl-zoo does);
    ``act`` then normalises with the frozen statistics. Without it, the MLP's input is the observation mapped to
    [-1, 1] on the observation box (the Chebyshev policy's normalisation).
    Pass ``hyper=ZOO_MLP_PPO_HP, n_envs=1, normalize=True`` for rl-zoo's tuned MLP baseline.
    """
    import gymnasium as gym
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    validation.choice(kind, "kind", ("chebyshev", "mlp"))
    validation.choice(env, "env", tuple(ENV_IDS))
    total_steps = validation.positive_int(total_steps, "total_steps")
    seed = validation.seed(seed)
    degree = validation.int_at_least(degree, "degree", 0, hi=8)
    n_envs = validation.positive_int(n_envs, "n_envs", hi=64)
    hp = dict(CH_PPO_HP) if hyper is None else dict(hyper)
    per_update = min(int(hp.get("n_steps", 2048)), max(64, total_steps))
    hp["n_steps"] = max(1, per_update // n_envs)
    hp["batch_size"] = min(int(hp.get("batch_size", 64)), hp["n_steps"] * n_envs)
    policy = _chebyshev_policy_class(degree) if kind == "chebyshev" else "MlpPolicy"
    if kind == "chebyshev" and "policy_kwargs" in hp:
        hp["policy_kwargs"] = {k: v for k, v in hp["policy_kwargs"].items() if k != "ortho_init"}
    if kind == "mlp" and not normalize:  # the MLP sees the box-normalised state, like the Chebyshev policy
        hp["policy_kwargs"] = {**hp.get("policy_kwargs", {}), "features_extractor_class": _box_norm_class()}
    venv: Any = DummyVecEnv([(lambda: gym.make(ENV_IDS[env])) for _ in range(n_envs)])
    if normalize:
        venv = VecNormalize(venv, gamma=float(hp.get("gamma", 0.99)))
    # SB3's PPO(seed=...) reseeds Python's, numpy's legacy and torch's global RNGs: restore them afterwards; and
    # a logger without outputs, or learn() would create $TMPDIR/SB3-<timestamp>/ on every call
    py_state, np_state = random.getstate(), np.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]), warnings.catch_warnings():
            # SB3 warns when the mini-batch size does not divide the rollout
            warnings.filterwarnings("ignore", message=".*mini-batch size.*", category=UserWarning)
            model = PPO(policy, venv, seed=seed, device="cpu", verbose=0, **hp)
            model.set_logger(Logger(folder=None, output_formats=[]))
            model.learn(total_timesteps=total_steps)
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)
    if normalize:
        venv.training = False

    def act(obs: np.ndarray) -> np.ndarray:
        o = np.asarray(obs, dtype=np.float32)
        if normalize:
            o = venv.normalize_obs(o).astype(np.float32)
        with torch.no_grad():
            a, _ = model.predict(o, deterministic=True)
        return np.asarray(a)

    return model, act
