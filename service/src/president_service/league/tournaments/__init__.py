"""Tournaments: the director that runs them, their pairing and their standings."""
