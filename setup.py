"""The package list of the one `kernlint` namespace, spread over three roots.

analyzer/kernlint is `kernlint` (the engine), rules/kernlint/rules is
`kernlint.rules` and kernels/kernlint/kernels is `kernlint.kernels`: every
module's path is its root plus its import name, so editors, mypy and
import-linter follow imports with analyzer/, rules/ and kernels/ on their
path (see [tool.mypy] in pyproject.toml). Subpackages (a new pair in the
kernel library) are found here, so adding one needs no edit.
"""

import ast
from pathlib import Path

from setuptools import find_namespace_packages, setup

ROOTS = {
    "kernlint": "analyzer/kernlint",
    "kernlint.rules": "rules/kernlint/rules",
    "kernlint.kernels": "kernels/kernlint/kernels",
}


def version() -> str:
    """`__version__` of analyzer/kernlint/version.py, the one place the
    version is written (read, not imported: nothing is installed yet)."""
    tree = ast.parse((Path(__file__).parent / "analyzer" / "kernlint" / "version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            return ast.literal_eval(node.value)
    raise RuntimeError("analyzer/kernlint/version.py has no __version__")


def packages_under(package: str, folder: str) -> list[str]:
    return [package] + [f"{package}.{name}" for name in find_namespace_packages(folder, exclude=["*__pycache__*"])]


setup(
    version=version(),
    package_dir=ROOTS,
    packages=[pkg for package, folder in ROOTS.items() for pkg in packages_under(package, folder)],
)
