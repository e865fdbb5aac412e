"""Regenerate the command outputs shown in README.md.

Each block in the README that follows a marker line
`<!-- output: kernlint ARGS -->` is replaced by what `kernlint ARGS` prints
now (run from the repository root). `--check` exits 1 instead of writing
when a block is stale; tests/test_readme.py runs that, so the README never
shows output the code no longer produces.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- output: (?P<command>[^>]+?) -->\n```text\n)(?P<body>.*?)(```)", re.S)


def output_of(command: str) -> str:
    argv = shlex.split(command)
    assert argv[0] == "kernlint", command
    proc = subprocess.run(
        [sys.executable, "-m", "kernlint", *argv[1:]],
        capture_output=True, text=True, cwd=ROOT,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
        timeout=120,
    )
    return proc.stdout + proc.stderr


def regenerate(text: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + output_of(m.group("command")) + m.group(4), text)


def main() -> int:
    current = README.read_text(encoding="utf-8")
    fresh = regenerate(current)
    if "--check" in sys.argv:
        if fresh != current:
            print("README.md output blocks are stale: run python scripts/update_readme.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
