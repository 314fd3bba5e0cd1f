"""``python -m president_harness ...``: the same as the ``president`` command."""

import sys

from president_harness.cli.president_cli import main

sys.exit(main())
