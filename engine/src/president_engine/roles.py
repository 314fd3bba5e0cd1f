"""Roles for the next deal, from the finishing places of the last one."""

from __future__ import annotations

from enum import Enum


class Role(Enum):
    NEUTRAL = "neutral"
    PRESIDENT = "president"
    VICE_PRESIDENT = "vice_president"
    VICE_SCUM = "vice_scum"
    SCUM = "scum"


def roles_by_place(players: int) -> tuple[Role, ...]:
    """The role of each finishing place: no vice roles with 3 players."""
    roles = [Role.NEUTRAL] * players
    roles[0] = Role.PRESIDENT
    roles[-1] = Role.SCUM
    if players >= 4:
        roles[1] = Role.VICE_PRESIDENT
        roles[-2] = Role.VICE_SCUM
    return tuple(roles)


LOCAL_NAMES: dict[str, dict[Role, str]] = {
    "italian": {Role.PRESIDENT: "Presidente", Role.VICE_PRESIDENT: "Vicepresidente",
                Role.VICE_SCUM: "Vice miserabile", Role.SCUM: "Miserabile", Role.NEUTRAL: "Cittadino"},
    "norwegian": {Role.PRESIDENT: "President", Role.VICE_PRESIDENT: "Visepresident",
                  Role.VICE_SCUM: "Viseslave", Role.SCUM: "Slave", Role.NEUTRAL: "Borger"},
    "cardverse": {Role.PRESIDENT: "Elnök", Role.VICE_PRESIDENT: "Alelnök",
                  Role.VICE_SCUM: "Helyettes seggfej", Role.SCUM: "Seggfej", Role.NEUTRAL: "Polgár"},
}
"""The presets' own names for the roles, for display; the protocol uses `Role`."""

LANGUAGES: dict[str, tuple[str, ...]] = {"italian": ("it",), "norwegian": ("nb", "nn", "no"), "cardverse": ("hu",)}
"""The language codes (ISO 639-1) of each preset's own role names: a terminal in another language shows English."""
