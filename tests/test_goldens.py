"""The seed files' output in every format is byte-identical to the committed
goldens (tests/goldens/). They were written by the release before the
layout and model restructuring (issue 9), so a refactor that changes a byte
of what users see fails here. A deliberate change (a new measurement record
changes the claims) regenerates them with `python tests/test_goldens.py`.

`seed_folder.*` is the run over the whole seed folder (three files): the
text report ends with one summary of the files worth optimizing, while
every file's verdict stays in the advice and json formats (issue 28).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = ROOT / "tests" / "goldens"
FORMATS = ("text", "json", "advice", "sarif", "github", "gitlab", "json-lines")
SEEDS = ("kernel", "reference")


FOLDER_FORMATS = ("text", "advice", "json")


def kernlint_output(seed: str, fmt: str) -> bytes:
    target = "fixtures/seed/" if seed == "folder" else f"fixtures/seed/{seed}.py"
    proc = subprocess.run(
        [sys.executable, "-m", "kernlint", "check", "--format", fmt, target],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_seed_output_is_byte_identical_to_golden(seed: str, fmt: str) -> None:
    golden = GOLDENS / f"seed_{seed}.{fmt}.out"
    assert kernlint_output(seed, fmt) == golden.read_bytes()


@pytest.mark.parametrize("fmt", FOLDER_FORMATS)
def test_seed_folder_output_is_byte_identical_to_golden(fmt: str) -> None:
    assert kernlint_output("folder", fmt) == (GOLDENS / f"seed_folder.{fmt}.out").read_bytes()


if __name__ == "__main__":
    for seed in SEEDS:
        for fmt in FORMATS:
            (GOLDENS / f"seed_{seed}.{fmt}.out").write_bytes(kernlint_output(seed, fmt))
    for fmt in FOLDER_FORMATS:
        (GOLDENS / f"seed_folder.{fmt}.out").write_bytes(kernlint_output("folder", fmt))
