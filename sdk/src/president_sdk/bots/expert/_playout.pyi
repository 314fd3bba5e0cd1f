from president_engine.worlds import PlayoutState

def finish(rules: tuple[int, ...], state: PlayoutState, first: tuple[int, int, int],
           trace: list[tuple[int, int, int, int]] | None) -> tuple[int, ...]:
    """`state` played to the end of its deal, after `first` (rank position, size, wild cards; (-1, 0, 0) a pass)
    unless its size is -1; the players in finishing order.  `trace` (a list) gets (player, position or -1, size,
    wild cards) for every move.  ValueError for numbers no state or move of the hand to act can hold (the
    first move's legality against the table is not checked: give an action the engine listed)."""
