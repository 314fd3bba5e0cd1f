"""``python -m president_service serve ...``: the same as the ``president`` command."""

import sys

from president_service.cli import main

sys.exit(main())
