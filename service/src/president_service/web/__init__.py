"""The web pages of the server: the match list, a live match as a spectator sees it, and replays.

The pages reach only what a spectator may reach over gRPC (`PresidentServicer.spectate`, `summaries`,
`replay`), as the same messages in their JSON form; the replay's frames are built by the engine, so the
browser only renders.  Every asset ships in this package or, for the replay page and what every page shares
(table.js, style.css), in president_protocol.replay_page, which the SDK renders local replays with: the pages
need no internet.
"""

from pathlib import Path

from president_protocol.replay_page import ASSETS as SHARED_ASSETS

ASSETS = Path(__file__).parent / "assets"
"""The server's own pages and their scripts."""


def assets() -> dict[str, Path]:
    """Every file a page may load, by its name under /assets/: the server's own and the shared ones."""
    found = {path.name: path for folder in (SHARED_ASSETS, ASSETS) for path in folder.iterdir() if path.is_file()}
    return dict(sorted(found.items()))
