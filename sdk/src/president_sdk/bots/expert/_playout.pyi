from president_engine.worlds import PlayoutState

def finish(rules: tuple[int, ...], state: PlayoutState, first_position: int, first_size: int,
           trace: list[tuple[int, int, int]] | None) -> tuple[int, ...]:
    """`state` played to the end of its deal (after the first move when `first_size` >= 0: 0 a pass, else
    `first_size` cards of the rank at `first_position`); the players in finishing order.  `trace` (a list)
    gets (player, position or -1, size) for every move."""
