"""kernlint: a static analyzer for Triton GPU kernels and the PyTorch host
code that launches them.

Linting never imports torch or triton and never executes the code it reads;
only `kernlint verify` runs kernels (kernlint's own reference-fix library).
"""

__version__ = "0.1.0"
