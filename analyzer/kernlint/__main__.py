"""`python -m kernlint`.

For `-m`, Python puts the working directory first on sys.path. Run inside a
repository being linted, a file there named like a module kernlint imports
(json.py, click.py, libcst.py, tokenize.py) would be imported, and run,
instead. The entry is dropped before anything else is imported, as `python
-P` would (tests/test_never_executes.py).
"""

import os
import sys

if not sys.flags.safe_path and sys.path and os.path.abspath(sys.path[0] or os.curdir) == os.getcwd():
    del sys.path[0]

from kernlint.cli import main  # noqa: E402 - after the sys.path repair

main()
