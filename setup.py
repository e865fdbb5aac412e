"""The package list of the one `kernlint` namespace, spread over three roots.

analyzer/kernlint is `kernlint` (the engine), rules/kernlint/rules is
`kernlint.rules` and kernels/kernlint/kernels is `kernlint.kernels`: every
module's path is its root plus its import name, so editors, mypy and
import-linter follow imports with analyzer/, rules/ and kernels/ on their
path (see [tool.mypy] in pyproject.toml). Subpackages (a new pair in the
kernel library) are found here, so adding one needs no edit.
"""

from setuptools import find_namespace_packages, setup

ROOTS = {"kernlint": "analyzer/kernlint", "kernlint.rules": "rules/kernlint/rules", "kernlint.kernels": "kernels/kernlint/kernels"}


def packages_under(package: str, folder: str) -> list[str]:
    return [package] + [f"{package}.{name}" for name in find_namespace_packages(folder, exclude=["*__pycache__*"])]


setup(
    package_dir=ROOTS,
    packages=[pkg for package, folder in ROOTS.items() for pkg in packages_under(package, folder)],
)
