"""``python -m president_harness ...``: the same as the ``president`` command."""

import sys

from president_harness.president_cli import main

sys.exit(main())
