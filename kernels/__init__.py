"""kernlint's reference-fix kernel library.

One pair per performance rule, each a package `kernlint.kernels.<pair_id>` in
KernelBench form: `reference.py` (the PyTorch `Model`, `get_inputs`,
`get_init_inputs`, `SHAPES`, `INTERPRET_SHAPES`), `before.py` (a `ModelNew`
with the rule's anti-pattern and nothing else wrong) and `after.py` (the same
`ModelNew` with the rule's fix).  `kernlint verify` checks and times them and
writes the measurement records under `measurements/` that the rules' expected
speedups are read from (`kernlint.claims`).

Importing this package never imports torch or triton: the pair metadata lives
in each pair's `__init__.py`, which is plain Python.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# Performance rules whose claims must come from a measurement of a pair.
PERFORMANCE_RULES = ("KL001", "KL002", "KL003", "KL016")

PAIRS = (
    "kl001_upcast_before_dot",
    "kl002_per_call_relayout",
    "kl003_hardcoded_launch_config",
    "kl016_upcast_before_torch_matmul",
    "seed_all_fixes",
)


def pair_meta(pair_id: str) -> ModuleType:
    """The pair's metadata package (RULES, DESCRIPTION, TOLERANCE); no torch."""
    if pair_id not in PAIRS:
        raise KeyError(f"unknown pair {pair_id!r}; known: {', '.join(PAIRS)}")
    return importlib.import_module(f"{__name__}.{pair_id}")


def pairs_for_rule(code: str) -> list[str]:
    """Pairs whose RULES include `code`, the single-rule pairs first."""
    code = code.upper()
    found = [p for p in PAIRS if code in pair_meta(p).RULES]
    return sorted(found, key=lambda p: len(pair_meta(p).RULES))
