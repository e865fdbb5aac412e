"""Maps the repository's folders into the single `kernlint` import namespace.

The layout keeps the engine, the rules and the kernel library in folders of
their own (analyzer/, rules/, kernels/); installed, they are kernlint,
kernlint.rules and kernlint.kernels, so nothing generic lands at the top of
site-packages.
"""

from setuptools import find_packages, setup

FOLDERS = {"kernlint": "analyzer", "kernlint.rules": "rules", "kernlint.kernels": "kernels"}


def packages_under(namespace: str, folder: str) -> list[str]:
    return [namespace] + [f"{namespace}.{name}" for name in find_packages(folder)]


setup(
    package_dir=FOLDERS,
    packages=[pkg for ns, folder in FOLDERS.items() for pkg in packages_under(ns, folder)],
)
