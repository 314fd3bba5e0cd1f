"""Playing a match: the registry, the runner and its store, seat feeds, acts, sessions, clocks and accounts."""
