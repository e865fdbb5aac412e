"""kernlint's version (the one place it is written besides pyproject.toml;
tests/test_layout.py checks that the two agree).

`kernlint` itself is a PEP 420 namespace package spread over three path
roots (analyzer/, rules/, kernels/), so it has no __init__.py to hold it.
"""

__version__ = "0.1.0"
