"""What the open-event tests share: `president arena` started as an organiser starts it, and authors who each make
an account and submit a bot folder with the real commands."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from process_support import president, wait_for_text
from support import free_port

PRESIDENT = Path(sys.executable).parent / "president"
MANIFEST = """name = "{name}"
runtime = "python"
build = "{build}"
run = "president-bot bot.py --arena"
"""


def start_arena(tmp_path: Path, port: int, admin: str, db: str) -> subprocess.Popen[str]:
    """`president arena` on `port` with three house bots, once it says it is ready (its output in arena.out)."""
    out = tmp_path / "arena.out"
    with out.open("w") as sink:
        arena = subprocess.Popen([str(PRESIDENT), "arena", "--port", str(port), "--http-port", str(free_port()),
                                  "--db", str(tmp_path / db), "--admin-token", admin, "--queue", "cardverse:4",
                                  "--house", "hard,normal,easy", "--every", "1"],
                                 stdout=sink, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for_text(out, arena, "Ctrl-C stops the arena")
    except BaseException:
        arena.kill()
        arena.wait()
        raise
    return arena


def submit(tmp_path: Path, server: str, admin: str, name: str, bot: str, build: str) -> tuple[str, str]:
    """`name`'s account made and its folder (`bot` as bot.py, `build` in its manifest) submitted: (token, version)."""
    created = president("account", "create", name, "--owner", name.title(), "--server", server,
                        "--admin-token", admin).stdout
    token = re.search(r"^token: (\S+)$", created, re.M).group(1)  # type: ignore[union-attr]
    folder = tmp_path / name
    folder.mkdir()
    (folder / "president-bot.toml").write_text(MANIFEST.format(name=f"{name}'s bot", build=build))
    (folder / "bot.py").write_text(bot)
    submitted = president("submit", str(folder), "--server", server, "--account-token", token).stdout
    return token, re.match(r"version ([0-9a-f]{16}) ", submitted).group(1)  # type: ignore[union-attr]
