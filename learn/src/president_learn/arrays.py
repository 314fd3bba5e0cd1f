"""The engine's encoding of an observation (observation_tensor.py, action_space.py) as numpy arrays."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from president_engine import Observation
from president_engine.observation_tensor import observation_tensor

Floats = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]


def observation_array(obs: Observation) -> Floats:
    """The player's observation tensor, float32."""
    return np.asarray(observation_tensor(obs), dtype=np.float32)


def mask_array(obs: Observation) -> Mask:
    """The legal-action mask over the rules' action space, int8 (all 0 when it is not the player's turn)."""
    return np.frombuffer(obs.action_mask(), dtype=np.int8).copy()
