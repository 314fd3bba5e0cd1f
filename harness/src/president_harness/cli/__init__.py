"""The `president` command: its parser (`president_cli`) and one module a subcommand; the top of the harness."""
