"""Start a new rule: `python scripts/new_rule.py KL0NN slug category`.

Writes the three things a rule is made of besides its reference-fix pair:

- rules/kernlint/rules/<code>_<slug>.py: the rule class with its docs
  headings (What it does · Why is this bad? · Example · Use instead · Fix
  safety · Measured speedup), its attributes and empty VALID/INVALID lists;
- fixtures/rules/<code>_<slug>.py: an annotated fixture to fill in
  (`# expect: KL0NN` on lines that must be reported, `# ok: KL0NN` on lines
  that must not);
- the docs entry: docs/rules.md and the README are generated from the rule
  class by `python scripts/update_readme.py`, which this script runs.

Nothing else needs an edit: the registry, the engine, the config, the docs
and the example tests find the rule from its file. Until the rule has at
least 6 VALID and 6 INVALID examples the generic example test fails, and a
performance rule's claim reads "unmeasured" until its pair in
kernels/kernlint/kernels/<code>_<slug>/ has been measured on a GPU
(`kernlint verify --record`). Existing files are never overwritten.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATEGORIES = {
    "operator-fusion": "OPERATOR_FUSION",
    "algorithm-replacement": "ALGORITHM_REPLACEMENT",
    "launch-reduction": "LAUNCH_REDUCTION",
    "memory-layout": "MEMORY_LAYOUT",
    "tuning": "TUNING",
    "hazard": "HAZARD",
    "api": "API",
}

RULE = '''from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.registry import Invalid, Report, Rule, Valid


class {class_name}(Rule):
    """
    ## What it does
    TODO: one paragraph: the pattern this rule finds, in the words of the
    catalog entry.

    ## Why is this bad?
    TODO: what it costs on the GPU (bytes moved, launches, idle units) and
    when it does not matter (the must-not-fire cases).

    ## Example
    ```python
    TODO
    ```

    ## Use instead
    ```python
    TODO
    ```

    ## Fix safety
    TODO: is there an automatic fix; is it safe?

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/{pair}/` (`kernlint rule {code}` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "{code}"
    name = "{slug}"
    category = Category.{category}
    severity = Severity.WARNING
    summary = "TODO: one line for `kernlint rules`."
    bottleneck = "TODO: what limits the code when this fires."
    method = "TODO: the optimization that removes it."

    VALID = [
        # Code on which the rule must stay silent: one per must-not-fire clause.
    ]
    INVALID = [
        # Code the rule must report: Invalid(code, line=..., column=...).
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        # Ask the model (kernlint.model); when a fact is missing, add it there.
        return iter(())
'''

FIXTURE = '''"""Fixture for {code} ({slug}): a line reported by {code} carries
`# expect: {code}`; a line that must stay silent carries `# ok: {code}`."""

import torch
import triton
import triton.language as tl
'''


def class_name(slug: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[-_]", slug))


def write_new(path: Path, text: str) -> None:
    if path.exists():
        raise SystemExit(f"new_rule: {path} exists; nothing was written")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("code", help="KLnnn")
    parser.add_argument("slug", help="the rule's name, lowercase-with-dashes")
    parser.add_argument("category", choices=sorted(CATEGORIES))
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this one)")
    parser.add_argument("--no-docs", action="store_true", help="do not regenerate docs/rules.md and the README")
    args = parser.parse_args(argv)
    code = args.code.upper()
    if not re.fullmatch(r"KL\d{3}", code):
        parser.error(f"code {args.code!r} is not KLnnn")
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", args.slug):
        parser.error(f"slug {args.slug!r} is not lowercase-with-dashes")
    stem = f"{code.lower()}_{args.slug.replace('-', '_')}"
    taken = sorted((args.root / "rules" / "kernlint" / "rules").glob(f"{code.lower()}_*.py"))
    if taken:
        parser.error(f"{code} is taken by {taken[0].name}")
    fields = {
        "code": code,
        "slug": args.slug,
        "class_name": class_name(args.slug),
        "category": CATEGORIES[args.category],
        "pair": stem,
    }
    write_new(args.root / "rules" / "kernlint" / "rules" / f"{stem}.py", RULE.format(**fields))
    write_new(args.root / "fixtures" / "rules" / f"{stem}.py", FIXTURE.format(**fields))
    if not args.no_docs:
        subprocess.run([sys.executable, str(args.root / "scripts" / "update_readme.py")], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
