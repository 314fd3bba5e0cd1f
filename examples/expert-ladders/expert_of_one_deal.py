"""The expert valuing a place by this deal alone, for beyond.toml: the shipped search in every other respect, so that
only the worth of the next deal's exchange differs from `builtin = "expert"`."""

from president_sdk.bots import ExpertBot


class ExpertOfOneDeal(ExpertBot):
    def __init__(self) -> None:
        super().__init__(beyond_the_deal=False)
