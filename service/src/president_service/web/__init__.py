"""The web pages of the server: the match list, a live match as a spectator sees it, and replays.

The pages reach only what a spectator may reach over gRPC (`PresidentServicer.spectate`, `summaries`,
`replay`), as the same messages in their JSON form; the replay's frames are built by the engine, so the
browser only renders.  Every asset ships in this package: the pages need no internet.
"""

from pathlib import Path

ASSETS = Path(__file__).parent / "assets"
"""The pages, their scripts and their style sheet: everything a page loads comes from here."""
