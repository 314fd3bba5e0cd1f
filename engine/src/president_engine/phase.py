"""The phases of a deal: the exchange steps, then play; OVER when the match has ended."""

from __future__ import annotations

from enum import Enum


class Phase(Enum):
    REQUEST = "request"
    GIVE_BACK = "give_back"
    PLAY = "play"
    OVER = "over"
