"""`Policy`: a small numpy network from an observation tensor to a choice among the legal action indices.

One hidden layer (ReLU) feeds two heads: logits over the rules' whole action
space (masked to the legal ones, then softmax) and a value, the expected
reward, used as the baseline while training.  Weights live in an ``.npz``
file with the rules they were trained for, so a served policy refuses rules
whose encoding differs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from president_engine import Rules

from president_learn.arrays import Floats, Mask

Params = dict[str, npt.NDArray[np.float64]]
FORMAT = "president-policy/1"


class PolicyFileError(ValueError):
    """A weights file that is not a policy of this format."""


@dataclass(frozen=True, kw_only=True)
class Forward:
    """What one batch's forward pass keeps for the backward pass."""

    inputs: npt.NDArray[np.float64]
    hidden: npt.NDArray[np.float64]
    probs: npt.NDArray[np.float64]
    values: npt.NDArray[np.float64]


class Policy:
    """The network and the rules it plays; `act` picks an index, `forward`/`gradients` train it."""

    def __init__(self, rules: Rules, params: Params) -> None:
        self.rules = rules
        self.params = params

    @classmethod
    def initial(cls, rules: Rules, *, inputs: int, actions: int, hidden: int, rng: np.random.Generator) -> Policy:
        """Random small weights (He initialisation); the policy head starts near uniform."""
        params: Params = {
            "w1": rng.normal(0.0, np.sqrt(2.0 / inputs), (inputs, hidden)),
            "b1": np.zeros(hidden),
            "w2": rng.normal(0.0, 0.01, (hidden, actions)),
            "b2": np.zeros(actions),
            "wv": rng.normal(0.0, 0.01, hidden),
            "bv": np.zeros(1),
        }
        return cls(rules, params)

    @property
    def inputs(self) -> int:
        return int(self.params["w1"].shape[0])

    @property
    def actions(self) -> int:
        return int(self.params["w2"].shape[1])

    def forward(self, inputs: npt.ArrayLike, masks: npt.ArrayLike) -> Forward:
        """Action probabilities (0 outside each row's mask) and values for a batch of observations."""
        x = np.atleast_2d(np.asarray(inputs, dtype=np.float64))
        legal = np.atleast_2d(np.asarray(masks)).astype(bool)
        p = self.params
        hidden = np.maximum(x @ p["w1"] + p["b1"], 0.0)
        logits = np.where(legal, hidden @ p["w2"] + p["b2"], -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        probs = weights / weights.sum(axis=1, keepdims=True)
        return Forward(inputs=x, hidden=hidden, probs=probs, values=hidden @ p["wv"] + p["bv"][0])

    def act(self, observation: Floats, mask: Mask, rng: np.random.Generator | None = None) -> int:
        """The index to play: the most probable legal one, or a draw from the policy with `rng`."""
        probs = self.forward(observation, mask).probs[0]
        if rng is None:
            return int(np.argmax(probs))
        return int(rng.choice(len(probs), p=probs))

    def gradients(self, forward: Forward, chosen: npt.NDArray[np.int64], advantages: npt.NDArray[np.float64],
                  returns: npt.NDArray[np.float64], *, value_weight: float, entropy_weight: float) -> Params:
        """Gradients of the batch's loss: policy gradient, value regression and an entropy bonus (mean per row).

        loss = -A log pi(a) + value_weight (V - G)^2 / 2 - entropy_weight H(pi).
        """
        n = len(chosen)
        probs = forward.probs
        onehot = np.zeros_like(probs)
        onehot[np.arange(n), chosen] = 1.0
        dlogits = (probs - onehot) * advantages[:, None]
        logp = np.log(np.where(probs > 0, probs, 1.0))
        entropy = -(probs * logp).sum(axis=1, keepdims=True)
        dlogits += entropy_weight * probs * (logp + entropy)  # d(-H)/dlogits, 0 outside the mask
        dlogits /= n
        dvalues = value_weight * (forward.values - returns) / n
        p = self.params
        dhidden = dlogits @ p["w2"].T + np.outer(dvalues, p["wv"])
        dhidden *= forward.hidden > 0
        return {
            "w1": forward.inputs.T @ dhidden, "b1": dhidden.sum(axis=0),
            "w2": forward.hidden.T @ dlogits, "b2": dlogits.sum(axis=0),
            "wv": forward.hidden.T @ dvalues, "bv": np.array([dvalues.sum()]),
        }

    # ------------------------------------------------------------------ files

    def save(self, path: Path) -> None:
        """The policy head and hidden layer as float32 (the value head only matters while training)."""
        kept = {name: self.params[name].astype(np.float32) for name in ("w1", "b1", "w2", "b2")}
        meta = json.dumps({"format": FORMAT, "rules": self.rules.to_dict()})
        np.savez_compressed(path, allow_pickle=False, meta=np.array(meta), **kept)

    @classmethod
    def load(cls, path: Path) -> Policy:
        try:
            with np.load(path, allow_pickle=False) as data:
                meta: dict[str, Any] = json.loads(str(data["meta"]))
                params: Params = {name: data[name].astype(np.float64) for name in ("w1", "b1", "w2", "b2")}
        except (OSError, KeyError, ValueError) as exc:
            raise PolicyFileError(f"{path}: not a policy file ({exc})") from None
        if meta.get("format") != FORMAT:
            raise PolicyFileError(f"{path}: format {meta.get('format')!r}, expected {FORMAT!r}")
        params["wv"] = np.zeros(params["w1"].shape[1])
        params["bv"] = np.zeros(1)
        return cls(Rules.from_dict(meta["rules"]), params)
