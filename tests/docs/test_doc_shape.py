"""The README states, at most 250 lines, with the first bot's whole path in under 40; every link of the docs leads
to a file of the repository, and every #anchor to a heading of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted({README, ROOT / "sdk" / "README.md", *(ROOT / "examples").glob("*/README.md"),
               *(ROOT / "docs").rglob("*.md")})
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def section(text: str, title: str) -> list[str]:
    """The lines of `## title`, from its heading up to the next `## ` heading (outside code blocks)."""
    lines, out, inside, code = text.splitlines(), [], False, False
    for line in lines:
        code ^= line.startswith("```")
        if not code and line.startswith("## "):
            inside = line == f"## {title}"
        if inside:
            out.append(line)
    return out


def slugs(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file (lower case, punctuation dropped, spaces as -)."""
    seen: dict[str, int] = {}
    out = set()
    code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        code ^= line.startswith("```")
        heading = re.match(r"#{1,6} (.+)", line)
        if code or not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading[1].strip().lower()).replace(" ", "-")
        out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


def test_the_readme_is_at_most_250_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_the_first_bot_section_shows_the_whole_path_in_under_40_lines() -> None:
    """Issue 46: write a bot, its strength with intervals in one command, its replays, a game against it in the
    browser, a bot in another language, both submitted."""
    lines = section(README.read_text(encoding="utf-8"), "Write your first bot")
    text = "\n".join(lines)
    assert 0 < len(lines) < 40, len(lines)
    assert "class FirstBot(Bot):" in text
    assert re.search(r"president-bot \S+ --local --matches \d+ --opponents random easy normal hard", text)
    assert "--replay replays" in text
    assert "Play against" in text
    assert re.search(r"president new \w+ --lang go", text)
    assert len(re.findall(r"president submit \S+/ ", text)) == 2


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_a_file_and_heading_of_the_repository(doc: Path) -> None:
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        name, _, anchor = target.partition("#")
        path = (doc.parent / name).resolve() if name else doc
        if not path.exists() or not path.is_relative_to(ROOT):
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in slugs(path):
            broken.append(f"{target}: no such heading")
    assert broken == []
