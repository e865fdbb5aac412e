"""Launch an int8 GEMV kernel with the library's fused dequant + bias epilogue.

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

`Int8Gemv(kernel, grid)` launches any kernel with the parameters of the
KL015 pair's kernels (x, weight, scale_x, scale_w, bias, out, M, N, K and
the strides of x, weight and out; constexprs from its autotune configs and
heuristics) through `_launch.AutotunedLauncher`: the config is resolved once
per problem key and later calls launch the compiled kernel directly.  The
pair's `before` and `after` both launch this way, so their times differ only
by their kernels.
"""

import torch
from kernlint.kernels._launch import AutotunedLauncher, specialization_key


class Int8Gemv:
    """fp16 [M, N] = dequant(x [M, K] int8 @ weight [N, K] int8 .T) + bias, one autotuned kernel."""

    def __init__(self, kernel, grid):
        self.launcher = AutotunedLauncher(kernel, grid)

    def __call__(self, x, weight_int8, scale_x, scale_w, bias):
        assert x.dtype == torch.int8 and weight_int8.dtype == torch.int8
        M, K = x.shape
        N = weight_int8.shape[0]
        stride_xm, stride_xk = x.stride()
        stride_wn, stride_wk = weight_int8.stride()
        key = specialization_key(
            x.get_device(),
            (M, N, K, stride_xm, stride_xk, stride_wn, stride_wk),
            (x, weight_int8, scale_x, scale_w, bias),
        )
        out = torch.empty((M, N), device=x.device, dtype=torch.float16)
        self.launcher(
            key,
            (x, weight_int8, scale_x, scale_w, bias, out, M, N, K, stride_xm, stride_xk, stride_wn, stride_wk, N, 1),
        )
        return out
