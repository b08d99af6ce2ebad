"""PPO from stable-baselines3 with a Chebyshev actor-critic as a drop-in custom policy ([P10], CH-PPO), and the
MLP 2-64-64-1 baseline (SB3's default ``MlpPolicy``). torch and stable-baselines3 are imported lazily.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = ["ppo", "sb3_actor_params", "ENV_IDS"]

ENV_IDS = {"mc": "MountainCarContinuous-v0", "pendulum": "Pendulum-v1"}
#: the authors' CH-PPO hyper-parameters for Mountain Car (notebook 03)
CH_PPO_HP: dict[str, Any] = dict(learning_rate=1e-3, n_steps=2048, batch_size=1048, n_epochs=2, clip_range=0.4,
                                 clip_range_vf=0.4)


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
            self.action_net = torch.nn.Linear(k, self.action_space.shape[0], bias=False)
            self.value_net = torch.nn.Linear(k, 1, bias=False)
            torch.nn.init.constant_(self.action_net.weight, 1e-6)  # the authors' initialisation
            torch.nn.init.zeros_(self.value_net.weight)
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    return ChebyshevActorCritic


def sb3_actor_params(model: Any) -> int:
    """Parameters of the deterministic actor (features -> mean action), excluding log-std and critic."""
    pol = model.policy
    n = sum(p.numel() for p in pol.action_net.parameters())
    n += sum(p.numel() for p in pol.mlp_extractor.policy_net.parameters())
    return int(n)


def ppo(kind: str, *, env: str = "mc", total_steps: int, seed: int = 0, degree: int = 3,
        hyper: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """Train PPO (SB3) with a ``"chebyshev"`` (degree ``degree``) or ``"mlp"`` (64-64, tanh) actor-critic on the real
    gymnasium environment; returns ``(model, act)`` with ``act: obs (B, n) -> deterministic actions (B, m)``.

    ``hyper`` overrides :data:`CH_PPO_HP` (the authors' CH-PPO settings, used for both policies here).
    """
    import gymnasium as gym
    import torch
    from stable_baselines3 import PPO

    if kind not in ("chebyshev", "mlp"):
        raise ValueError(f"kind must be 'chebyshev' or 'mlp', got {kind!r}")
    if env not in ENV_IDS:
        raise ValueError(f"env must be one of {tuple(ENV_IDS)}, got {env!r}")
    if total_steps < 1:
        raise ValueError(f"total_steps must be >= 1, got {total_steps}")
    hp = dict(CH_PPO_HP)
    hp.update(hyper or {})
    hp["n_steps"] = min(hp["n_steps"], max(64, total_steps))
    hp["batch_size"] = min(hp["batch_size"], hp["n_steps"])
    policy = _chebyshev_policy_class(degree) if kind == "chebyshev" else "MlpPolicy"
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with warnings.catch_warnings():  # SB3 warns that the authors' batch 1048 does not divide n_steps 2048
            warnings.filterwarnings("ignore", message=".*mini-batch size.*", category=UserWarning)
            model = PPO(policy, gym.make(ENV_IDS[env]), seed=seed, device="cpu", verbose=0, **hp)
            model.learn(total_timesteps=total_steps)
    finally:
        torch.set_num_threads(threads)

    def act(obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            a, _ = model.predict(np.asarray(obs, dtype=np.float32), deterministic=True)
        return np.asarray(a)

    return model, act
