"""``python -m president_service serve ...``: the game server alone (`president serve` is the same)."""

import sys

from president_service.serve_cli import main

sys.exit(main())
