from president_engine.playout import PlayoutState, SuitedPlayoutState

def finish(rules: tuple[int, ...], state: PlayoutState, first: tuple[int, int, int],
           trace: list[tuple[int, int, int, int]] | None) -> tuple[int, ...]:
    """`state` played to the end of its deal, after `first` (rank position, size, wild cards; (-1, 0, 0) a pass)
    unless its size is -1; the players in finishing order.  `trace` (a list) gets (player, position or -1, size,
    wild cards) for every move.  ValueError for numbers no state or move of the hand to act can hold (the
    first move's legality against the table is not checked: give an action the engine listed)."""

def finish_suited(rules: tuple[int, ...], state: SuitedPlayoutState, first: tuple[int, int, int, int],
                  trace: list[tuple[int, int, int, int, int]] | None) -> tuple[int, ...] | None:
    """`state` played to the end of its deal after `first` (card bits, rank index, joker cell column and row, -1
    for none; a pass (0, -1, -1, -1); no first move (0, -2, -1, -1)); the players in finishing order, None when
    the pass limit ends the deal (the engine draws those places).  `trace` gets (player, card bits, rank index,
    cell column, cell row) for every move.  ValueError as `finish`."""

def moves_suited(rules: tuple[int, ...], state: SuitedPlayoutState) -> list[tuple[int, int, int, int]]:
    """The moves of the hand to act in `state` as `finish_suited` lists them, in its order (as its first move)."""
