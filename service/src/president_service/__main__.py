"""``python -m president_service serve ...``: the game server alone (`president serve` is the same)."""

import sys

from president_service.server.serve_cli import main

sys.exit(main())
