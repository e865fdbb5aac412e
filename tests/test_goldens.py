"""The seed files' output in every format is byte-identical to the committed
goldens (tests/goldens/). They were written by the release before the
layout and model restructuring (issue 9), so a refactor that changes a byte
of what users see fails here. A deliberate change (a new measurement record
changes the claims) regenerates them with `python tests/test_goldens.py`.
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


def kernlint_output(seed: str, fmt: str) -> bytes:
    proc = subprocess.run(
        [sys.executable, "-m", "kernlint", "check", "--format", fmt, f"fixtures/seed/{seed}.py"],
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


if __name__ == "__main__":
    for seed in SEEDS:
        for fmt in FORMATS:
            (GOLDENS / f"seed_{seed}.{fmt}.out").write_bytes(kernlint_output(seed, fmt))
