"""The league: the arena's ladder, its ratings and settings, and tournaments."""
