"""President for learning bots."""
