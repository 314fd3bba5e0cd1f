"""A finished match as the replay page: its frames (`replay_frames`), and the page as one HTML file (`replay_file`).

Here, below both the SDK and the service, so that the server's replay page and
`president-bot --local --replay DIR` render a match alike: the service serves
these assets beside its own pages, and the SDK writes the same file with no
server installed.
"""

from pathlib import Path

ASSETS = Path(__file__).parent / "assets"
"""The replay page, its scripts and the style sheet every page shares."""
