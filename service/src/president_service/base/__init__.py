"""The service's vocabulary, below every room: errors with reasons, limits, tokens, throttled logs, loop lag."""
