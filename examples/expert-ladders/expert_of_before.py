"""The expert as issue 28 found it, for deeper.toml: the same search with 150 playouts a decision (it then played
110-170 in its 100 ms), no clock, so that only the depth of the search differs from `builtin = "expert"`."""

from president_sdk.bots import ExpertBot


class ExpertOfBefore(ExpertBot):
    def __init__(self) -> None:
        super().__init__(budget=None, playouts=150)
