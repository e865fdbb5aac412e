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
import pkgutil
from types import ModuleType


def _discover_pairs() -> tuple[str, ...]:
    # A pair is a subpackage; adding one needs no edit here.
    return tuple(
        sorted(info.name for info in pkgutil.iter_modules(__path__) if info.ispkg and not info.name.startswith("_"))
    )


def _performance_rules() -> tuple[str, ...]:
    # The rules whose claims must come from a measured pair: every rule of a
    # performance category, as the registry knows them.
    from kernlint.registry import all_rules

    return tuple(rule.code for rule in all_rules() if rule.category.is_performance)


PAIRS = _discover_pairs()


def __getattr__(name: str):
    if name == "PERFORMANCE_RULES":
        return _performance_rules()
    raise AttributeError(name)


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
