"""`president demo` (what `make run` shows): a real server, four built-in bots over gRPC, narrated live."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


def test_demo_plays_a_match_of_built_in_bots_and_shows_only_public_cards(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "president_harness", "demo", "--db", str(tmp_path / "demo.db"),
         "--port", "0", "--http-port", "0", "--pace", "0", "--deals", "2", "--seed", "3", "--once"],
        capture_output=True, text=True, timeout=180, check=False)
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert re.search(r"serving on localhost:\d+", out)
    assert re.search(r"watch it in a browser: http://localhost:\d+/matches/[0-9a-f]{16}\n", out)
    assert "== deal 1:" in out and "== deal 2:" in out
    assert re.search(r"== match over: \w+ wins with \d+ points", out)
    # the exchange is shown as a spectator sees it: how many cards moved, never which
    assert re.search(r"pays tribute 2 card\(s\) to", out)
    assert not re.search(r"(pays tribute|gives back) \d+[CDHS]", out)
    assert "refused" not in out and "Traceback" not in done.stderr
