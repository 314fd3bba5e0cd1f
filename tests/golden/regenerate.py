"""Rewrite the golden transcripts: records from the engine's own random player, and their narration.

Regenerating is a deliberate act: run it only when a rule or the narration
changed on purpose, then read the diff of the .txt files before committing.
The golden test (test_golden.py) fails whenever the engine's behaviour drifts
from what these files say.

    .venv/bin/python tests/golden/regenerate.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from golden_cases import CASES, narrate_record  # noqa: E402


def main() -> None:
    for case in CASES:
        record = HERE / f"{case.name}.json"
        subprocess.run([sys.executable, "-m", "president_engine", "random", "--preset", case.preset,
                        "--deals", str(case.deals), "--seed", str(case.seed), "--out", str(record)], check=True)
        lines = narrate_record(record.read_text())
        (HERE / f"{case.name}.txt").write_text("\n".join(lines) + "\n")
        print(f"wrote {record.name} and {case.name}.txt ({len(lines)} lines)")


if __name__ == "__main__":
    main()
