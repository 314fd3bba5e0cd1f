"""A replay as one self-contained HTML file that plays the match back with no server (like Kaggle's replay files).

It is the server's replay page with its style sheet, its scripts and the
frames written into it, so it opens from a file, offline, in any browser.
"""

from __future__ import annotations

import json
from typing import Any

from president_protocol.replay_page import ASSETS

_STYLE = '<link rel="stylesheet" href="/assets/style.css">'
_SCRIPTS = ("table.js", "replay.js")
_JSON_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
"""Inside a script element the JSON must not close it: these characters are written as JSON escapes."""


class ReplayFileError(RuntimeError):
    """The replay page in this package does not have the shape the file is made from (a broken install)."""


def replay_html(frames: dict[str, Any]) -> str:
    """The replay page with everything inlined; `frames` is what `replay_frames` returns."""
    page = _inline(_read("replay.html"), _STYLE, f"<style>\n{_read('style.css')}</style>")
    data = json.dumps(frames, separators=(",", ":"), ensure_ascii=False).translate(_JSON_ESCAPES)
    first = f'<script src="/assets/{_SCRIPTS[0]}"></script>'
    page = _inline(page, first, f'<script id="replay-data" type="application/json">{data}</script>\n{first}')
    for name in _SCRIPTS:
        script = _read(name)
        if "</script" in script.lower():
            raise ReplayFileError(f"{name} cannot be inlined: it contains the end of a script element")
        page = _inline(page, f'<script src="/assets/{name}"></script>', f"<script>\n{script}</script>")
    return page


def _read(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def _inline(page: str, tag: str, content: str) -> str:
    if page.count(tag) != 1:
        raise ReplayFileError(f"replay.html should hold {tag} once")
    return page.replace(tag, content)
