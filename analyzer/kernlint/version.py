"""kernlint's version: the one place it is written. setup.py reads it for
the package metadata (pyproject.toml declares the version dynamic), and
`kernlint --version` prints it; tests/test_release.py checks that a built
wheel carries it and that CHANGELOG.md has a section for it.

`kernlint` itself is a PEP 420 namespace package spread over three path
roots (analyzer/, rules/, kernels/), so it has no __init__.py to hold it.
"""

__version__ = "0.1.0"
