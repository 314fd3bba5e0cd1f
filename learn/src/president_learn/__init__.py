"""President for learning bots: the engine's exact rules in the tools bots are trained with.

- `president_learn.pettingzoo_env`: ``env(preset, **options)``, a PettingZoo
  AEC environment (extra ``pettingzoo``);
- `president_learn.openspiel_game`: ``register()``, then
  ``pyspiel.load_game("president", {...})`` (extra ``openspiel``);
- `Policy`: a small numpy network; `president_learn.train` trains it by
  policy gradient in the PettingZoo environment;
- `PolicyBot`, `TrainedBot`: a policy served through the SDK as a `Bot`.

The encoding they share is the engine's (action_space.py,
observation_tensor.py); docs/learning.md describes it.  Importing this
package needs numpy only; each environment module imports its own extra.
"""

from president_learn.policy import Policy, PolicyFileError
from president_learn.policy_bot import PolicyBot, PolicyMismatchError, TrainedBot
from president_learn.reward import Reward

__all__ = ["Policy", "PolicyBot", "PolicyFileError", "PolicyMismatchError", "Reward", "TrainedBot"]
