"""``president new``: a bot folder from a starter kit, with its manifest and a conformance script.

    president new mybot --lang python        # mybot/bot.py, mybot/president-bot.toml, mybot/conformance.sh
    president new gobot --lang go            # the Go kit's source, its Makefile and a copy of the contract

The folder holds what the bot needs and nothing built: the kit's source (examples/LANG), a copy of the contract
(protos/president/v1/president.proto) for the kits that generate or load code from it, the manifest
(president-bot.toml) that `president submit` sends and `president builder` builds by, and conformance.sh, which
builds the bot and puts it through `president conformance`.  It ends by printing the next commands.

The kits are read from a clone of the repository: the one this harness runs from, or --from CLONE.  An installed
harness (a wheel) ships no kits; there, without --from, it says so in one line.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from president_harness.hosting.bot_folder import MANIFEST

CONTRACT = Path("protos/president/v1/president.proto")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
LEFT_OUT = ("build", "bot", "node_modules", "__pycache__", "README.md", MANIFEST)
"""What a kit's folder holds that a new bot's does not: build outputs, installed packages, the kit's own README
(its paths are the repository's) and manifest (written anew)."""


class NewBotError(Exception):
    """A bot folder that cannot be made, in one line."""


@dataclass(frozen=True)
class Language:
    """A kit: examples/`kit`, how its bot is built, run on a seat and checked; `contract_in` are its files that name
    the contract's path from the repository's examples/ (rewritten to the folder's own copy)."""

    kit: str
    build: str
    """The build command, run in the folder ('' for none)."""
    command: str
    """The bot's command, run in the folder, before --server and --token."""
    manifest: tuple[tuple[str, str], ...] = ()
    """runtime, build and run, where the kit has no president-bot.toml of its own."""
    contract_in: tuple[str, ...] = ()
    rewritten: tuple[tuple[str, str], ...] = ()
    """The text in `contract_in` that names the repository's contract, and what it becomes."""


LANGUAGES = {
    "python": Language("python", "", "president-bot bot.py", manifest=(
        ("runtime", "python"), ("build", "python -m compileall -q ."), ("run", "president-bot bot.py --arena"))),
    "node": Language("node", "npm ci", "node bot.js", manifest=(
        ("runtime", "node"), ("build", "node bot.js --help"), ("run", "node bot.js --arena")),
        contract_in=("bot.js",), rewritten=(("path.join(__dirname, '..', '..', 'protos'",
                                             "path.join(__dirname, 'protos'"),
                                            ("default ../../protos/...", "default protos/..."))),
    "go": Language("go", "make", "./bot", contract_in=("Makefile",), rewritten=(("../../protos", "protos"),)),
    "cpp": Language("cpp", "make", "./bot", contract_in=("Makefile",), rewritten=(("../../protos", "protos"),)),
    "java": Language("java", "make", "./bot", contract_in=("Makefile",), rewritten=(("../../protos", "protos"),)),
}


def add_new_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("new", help="a bot folder from a starter kit, ready to build, check and submit",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", metavar="NAME", help="the folder to make (here) and the bot's name: a letter, then"
                                                     " up to 63 letters, digits, - or _")
    parser.add_argument("--lang", required=True, choices=sorted(LANGUAGES), help="the kit to start from")
    parser.add_argument("--from", dest="clone", type=Path, metavar="CLONE",
                        help="a clone of the repository to take the kit from (default: the one this harness runs"
                             " from; an installed harness ships no kits)")
    parser.set_defaults(handler=new_command)


def new_command(args: argparse.Namespace) -> int:
    try:
        folder = make_bot(args.name, LANGUAGES[args.lang], args.clone or this_clone(), Path.cwd())
    except NewBotError as error:
        print(f"president new: {error}", file=sys.stderr)
        return 2
    print(f"made {folder.name}/: the {args.lang} kit's bot, its manifest ({MANIFEST}) and conformance.sh")
    print(next_commands(folder.name, LANGUAGES[args.lang]))
    return 0


def this_clone() -> Path:
    """The clone of the repository this harness runs from (an editable install), where its kits are."""
    root = Path(__file__).resolve().parents[4]
    if not (root / "examples" / "python").is_dir() or not (root / CONTRACT).is_file():
        raise NewBotError("this president is an installed harness, which ships no kits: give --from CLONE, a clone"
                          " of the President repository")
    return root


def make_bot(name: str, language: Language, clone: Path, here: Path) -> Path:
    """The folder `here/name` made from the kit in `clone`, with its manifest and conformance script."""
    if not NAME.fullmatch(name):
        raise NewBotError(f"{name!r} is not a bot name: a letter, then up to 63 letters, digits, - or _")
    folder = here / name
    if folder.exists() or folder.is_symlink():
        raise NewBotError(f"{name}/ already exists: choose another name, or remove it")
    kit = clone / "examples" / language.kit
    if not kit.is_dir() or not (clone / CONTRACT).is_file():
        raise NewBotError(f"{clone} has no examples/{language.kit} and {CONTRACT}: give --from a clone of the"
                          " President repository")
    fields = dict(language.manifest) or _kit_manifest(kit)
    try:
        if language.kit == "python":
            folder.mkdir()
            shutil.copyfile(kit / "first_bot.py", folder / "bot.py")
        else:
            shutil.copytree(kit, folder, ignore=shutil.ignore_patterns(*LEFT_OUT))
            (folder / CONTRACT).parent.mkdir(parents=True)
            shutil.copyfile(clone / CONTRACT, folder / CONTRACT)
        for file in language.contract_in:
            _rewrite(folder / file, language.rewritten)
        (folder / MANIFEST).write_text(manifest_text(name, fields))
        script = folder / "conformance.sh"
        script.write_text(conformance_script(language))
        script.chmod(0o755)
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        raise NewBotError(f"cannot make {name}/: {error.strerror or error}") from None
    return folder


def _kit_manifest(kit: Path) -> dict[str, str]:
    """The runtime, build and run of the kit's own president-bot.toml."""
    with (kit / MANIFEST).open("rb") as file:
        fields = tomllib.load(file)
    return {key: str(fields[key]) for key in ("runtime", "build", "run") if key in fields}


def _rewrite(file: Path, rewritten: tuple[tuple[str, str], ...]) -> None:
    """`file` with the repository's path of the contract replaced by the folder's own copy."""
    text = file.read_text()
    for old, new in rewritten:
        if old not in text:
            raise NewBotError(f"the kit's {file.name} no longer names {old!r}: this president and its kits differ")
        text = text.replace(old, new)
    file.write_text(text)


def manifest_text(name: str, fields: dict[str, str]) -> str:
    """The manifest `president submit` reads: the bot's name, then the kit's runtime, build and run."""
    lines = ["# How a hosted event builds and runs this bot (docs/hosting.md); `president submit` sends this folder.",
             f"name = {json.dumps(name)}"]
    lines += [f"{key} = {json.dumps(fields[key])}" for key in ("runtime", "build", "run") if key in fields]
    return "\n".join(lines) + "\n"


def conformance_script(language: Language) -> str:
    """A script that builds the bot and runs the conformance suite on it (president from PATH, or $PRESIDENT)."""
    build = {"": "", "npm ci": "[ -d node_modules ] || npm ci\n"}.get(language.build, f"{language.build}\n")
    return ("#!/bin/sh\n"
            "# Builds this bot and puts it through `president conformance`, the contract's cases, on a server of the\n"
            "# suite's own: exit status 0 when every case passes.  PRESIDENT=PATH names the president command.\n"
            "set -e\n"
            'PRESIDENT="$(command -v "${PRESIDENT:-president}")" || { echo "conformance.sh: no president command:'
            ' set PRESIDENT=PATH" >&2; exit 2; }\n'
            'case "$PRESIDENT" in /*) ;; *) PRESIDENT="$PWD/$PRESIDENT" ;; esac\n'
            'cd "$(dirname "$0")"\n'
            f"{build}"
            f'exec "$PRESIDENT" conformance -- {language.command} --server {{server}} --token {{token}}\n')


def next_commands(name: str, language: Language) -> str:
    """What to run next: build, play (locally or a seat), the conformance suite, submit."""
    president = _president()
    steps: list[tuple[str, str]] = []
    if language.build == "npm ci":
        steps.append((f"(cd {name} && npm ci)", "its npm packages (submitted with it)"))
    elif language.build:
        steps.append((f"make -C {name}", f"builds {name}/bot"))
    if language.kit == "python":
        steps.append((f"{_beside(president, 'president-bot')} {name}/bot.py --local", "a match in-process"))
    else:
        bot = f"{name}/bot" if language.command == "./bot" else f"node {name}/bot.js"
        steps.append((f"{bot} --server localhost:50051 --token TOKEN", "a seat of `make run`'s match"))
    environment = "" if president == "president" else f"PRESIDENT={president} "
    steps.append((f"{environment}{name}/conformance.sh", "the conformance suite"))
    steps.append((f"{president} submit {name}/ --server HOST:PORT --account-token TOKEN", "a new version"))
    width = max(len(command) for command, _ in steps)
    return "next:\n" + "\n".join(f"  {command.ljust(width)}  # {why}" for command, why in steps)


def _president() -> str:
    """This president command as the author typed it: the name alone where it is the one on PATH."""
    found = shutil.which("president")
    if found and Path(found).resolve() == Path(sys.argv[0]).resolve():
        return "president"
    return sys.argv[0] if "/" in sys.argv[0] else "president"


def _beside(president: str, program: str) -> str:
    return program if "/" not in president else f"{Path(president).parent}/{program}"
