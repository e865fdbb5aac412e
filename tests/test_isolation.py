"""Linting never imports torch or triton (the lint path must work on a
machine without them, and must not run their import-time side effects)."""

from __future__ import annotations

import subprocess
import sys

from conftest import FIXTURES, ROOT

PROGRAM = f"""
import sys
import kernlint, kernlint.cli
from kernlint.runner import run
from kernlint.reporters import REPORTERS, render
outcome = run([{str(FIXTURES / "seed")!r}])
for name in REPORTERS:
    render(name, outcome.report)
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'triton', 'numpy'))
print(heavy)
"""


def test_import_and_lint_never_import_torch_or_triton() -> None:
    proc = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
