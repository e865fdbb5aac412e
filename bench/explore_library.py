"""Exploration (not a record): torch library kernels at shapes of our own,
against the streaming floor of the bytes they must move, and convolutions in
NCHW against channels-last. Prints one line per case."""
import torch, torch.nn as nn, torch.nn.functional as F, json, sys

dev = "cuda"
def t_us(fn, iters=10, reps=5):
    fn(); torch.cuda.synchronize()
    best = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(iters): fn()
        e.record(); torch.cuda.synchronize()
        best.append(s.elapsed_time(e) * 1000 / iters)
    best.sort(); return best[len(best)//2]

big = torch.empty(1 << 28, device=dev)
out = torch.empty_like(big)
copy_us = t_us(lambda: out.copy_(big)); bw = 8 * (1 << 28) / copy_us
rows = {"bw_bytes_per_us": bw}
print(f"copy bw {bw/1e6:.2f} TB/s", flush=True)

def stream(name, fn, nbytes):
    us = t_us(fn); rows[name] = {"us": us, "floor_us": nbytes / bw}
    print(f"{name}: {us:.0f} us, floor {nbytes/bw:.0f} us, ratio {us/(nbytes/bw):.2f}", flush=True)

def conv_case(name, mod, shape, cl=True):
    mod = mod.to(dev); x = torch.randn(*shape, device=dev)
    y = mod(x); fl = 0
    nchw = t_us(lambda: mod(x))
    r = {"nchw_us": nchw, "out_bytes": y.numel() * 4, "in_bytes": x.numel() * 4}
    if cl and x.dim() in (4, 5):
        fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
        m2 = mod.to(memory_format=fmt); x2 = x.contiguous(memory_format=fmt)
        r["cl_us"] = t_us(lambda: m2(x2))
        r["to_cl_us"] = t_us(lambda: x.contiguous(memory_format=fmt))
        y2 = m2(x2); r["back_us"] = t_us(lambda: y2.contiguous())
        mod.to(memory_format=torch.contiguous_format)
    torch.backends.cudnn.benchmark = True
    r["nchw_bench_us"] = t_us(lambda: mod(x))
    torch.backends.cudnn.benchmark = False
    rows[name] = r
    print(name, {k: round(v, 1) for k, v in r.items()}, flush=True)

with torch.no_grad():
    conv_case("conv2d_stem_3_64_k7s2", nn.Conv2d(3, 64, 7, 2, 3), (64, 3, 224, 224))
    conv_case("conv2d_3_64_k3", nn.Conv2d(3, 64, 3), (32, 3, 256, 256))
    conv_case("conv2d_64_64_k3", nn.Conv2d(64, 64, 3, padding=1), (32, 64, 128, 128))
    conv_case("conv2d_32_64_k5x3", nn.Conv2d(32, 64, (5, 3)), (16, 32, 256, 256))
    conv_case("conv2d_1x1_64_128", nn.Conv2d(64, 128, 1), (16, 64, 256, 256))
    conv_case("dw2d_128_k3", nn.Conv2d(128, 128, 3, padding=1, groups=128), (32, 128, 128, 128))
    conv_case("dw2d_32_k5x3", nn.Conv2d(32, 32, (5, 3), groups=32), (32, 32, 256, 256))
    conv_case("conv1d_64_128_k3", nn.Conv1d(64, 128, 3), (64, 64, 16384))
    conv_case("conv1d_32_32_k5_d2s2", nn.Conv1d(32, 32, 5, stride=2, dilation=2), (64, 32, 32768))
    conv_case("conv3d_3_32_k3", nn.Conv3d(3, 32, 3), (8, 3, 32, 128, 128))
    conv_case("conv3d_32_32_k3", nn.Conv3d(32, 32, 3, padding=1), (8, 32, 32, 64, 64))
    conv_case("conv3d_16_32_k3x5x1", nn.Conv3d(16, 32, (3, 5, 1)), (8, 16, 32, 64, 64))
    conv_case("convT2d_64_32_k3s2", nn.ConvTranspose2d(64, 32, 3, 2, 1), (16, 64, 128, 128))
    conv_case("convT2d_32_32_k3", nn.ConvTranspose2d(32, 32, 3), (16, 32, 256, 256))
    conv_case("convT2d_32_64_k5x3_g4", nn.ConvTranspose2d(32, 64, (5, 3), groups=4), (16, 32, 128, 256))
    conv_case("convT1d_64_32_k5", nn.ConvTranspose1d(64, 32, 5), (32, 64, 8192))
    conv_case("convT3d_32_16_k3s2", nn.ConvTranspose3d(32, 16, 3, 2, 1), (8, 32, 16, 32, 32))
    conv_case("convT3d_16_16_k3", nn.ConvTranspose3d(16, 16, 3), (8, 16, 32, 64, 64))
    conv_case("convT3d_16_32_k3x5x3_g2", nn.ConvTranspose3d(16, 32, (3, 5, 3), groups=2), (4, 16, 16, 32, 64))

    x = torch.randn(32, 64, 256, 256, device=dev)  # 512 MiB
    for name, fn in [("maxpool2d_k2s2", lambda: F.max_pool2d(x, 2, 2)), ("maxpool2d_k3s1", lambda: F.max_pool2d(x, 3, 1)),
                     ("maxpool2d_k3s2p1", lambda: F.max_pool2d(x, 3, 2, 1)), ("avgpool2d_k2s2", lambda: F.avg_pool2d(x, 2, 2)),
                     ("avgpool2d_k3s1", lambda: F.avg_pool2d(x, 3, 1))]:
        y = fn(); stream(name, fn, 4 * (x.numel() + y.numel()))
    x1 = torch.randn(32, 64, 65536, device=dev)
    for name, fn in [("maxpool1d_k4s2", lambda: F.max_pool1d(x1, 4, 2)), ("maxpool1d_k3s1", lambda: F.max_pool1d(x1, 3, 1)),
                     ("avgpool1d_k4s1", lambda: F.avg_pool1d(x1, 4, 1)), ("avgpool1d_k2s2", lambda: F.avg_pool1d(x1, 2, 2))]:
        y = fn(); stream(name, fn, 4 * (x1.numel() + y.numel()))
    x3 = torch.randn(8, 32, 64, 64, 64, device=dev)
    for name, fn in [("maxpool3d_k2s2", lambda: F.max_pool3d(x3, 2, 2)), ("maxpool3d_k3s1", lambda: F.max_pool3d(x3, 3, 1)),
                     ("avgpool3d_k2s2", lambda: F.avg_pool3d(x3, 2, 2)), ("avgpool3d_k3s1", lambda: F.avg_pool3d(x3, 3, 1))]:
        y = fn(); stream(name, fn, 4 * (x3.numel() + y.numel()))
    bn = nn.BatchNorm2d(64).to(dev).train()
    stream("batchnorm2d_train", lambda: bn(x), 4 * 3 * x.numel())
    bn.eval(); stream("batchnorm2d_eval", lambda: bn(x), 4 * 2 * x.numel()); bn.train()
    inorm = nn.InstanceNorm2d(64).to(dev); stream("instancenorm2d", lambda: inorm(x), 4 * 3 * x.numel())
    gn = nn.GroupNorm(8, 64).to(dev); stream("groupnorm", lambda: gn(x), 4 * 3 * x.numel())
    ln_few = nn.LayerNorm((64, 256, 256)).to(dev); xl = x[:8].contiguous()
    stream("layernorm_8rows_4M", lambda: ln_few(xl), 4 * 2 * xl.numel())
    ln = nn.LayerNorm(4096).to(dev); xr = torch.randn(32768, 4096, device=dev)
    stream("layernorm_32k_4096", lambda: ln(xr), 4 * 2 * xr.numel())
    xs = torch.randn(512, 262144, device=dev)
    stream("softmax_rows_256k", lambda: torch.softmax(xs, 1), 4 * 2 * xs.numel())
    stream("logsoftmax_rows_256k", lambda: torch.log_softmax(xs, 1), 4 * 2 * xs.numel())
    stream("softmax_32k_4096", lambda: torch.softmax(xr, 1), 4 * 2 * xr.numel())
    xc = torch.randn(16384, 16384, device=dev)
    stream("cumsum_16k", lambda: torch.cumsum(xc, 1), 8 * xc.numel())
    stream("cumprod_16k", lambda: torch.cumprod(xc, 1), 8 * xc.numel())
    stream("cumsum_dim0_16k", lambda: torch.cumsum(xc, 0), 8 * xc.numel())
    yc = torch.randn_like(xc)
    stream("smooth_l1_mean", lambda: F.smooth_l1_loss(xc, yc), 8 * xc.numel())
    stream("mse_mean", lambda: F.mse_loss(xc, yc), 8 * xc.numel())
    stream("sum_dim1", lambda: xc.sum(1), 4 * xc.numel())
    stream("argmax_dim1", lambda: xc.argmax(1), 4 * xc.numel())
    stream("norm_dim1", lambda: xc.norm(dim=1), 4 * xc.numel())
    stream("pairwise_distance", lambda: F.pairwise_distance(xc, yc), 8 * xc.numel())
    stream("triplet", lambda: F.triplet_margin_loss(xc, yc, yc), 12 * xc.numel())
    stream("cross_entropy_4096x16k", lambda: F.cross_entropy(xc[:4096], torch.zeros(4096, dtype=torch.long, device=dev)), 4 * 4096 * 16384)
json.dump(rows, open(sys.argv[1], "w"), indent=1)

import time, triton, triton.language as tl
@triton.jit
def k2(a, b, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK); tl.store(b + o, tl.load(a + o, mask=o < n), mask=o < n)
@triton.jit
def k16(a, b, c, d, e, f, g, h, i, j, s0, s1, s2, s3, s4, s5, s6, s7, n, eps, BLOCK: tl.constexpr, G: tl.constexpr):
    o = tl.arange(0, BLOCK); tl.store(b + o, tl.load(a + o, mask=o < n), mask=o < n)
ts = [torch.ones(16, device=dev) for _ in range(10)]
def host(fn, n=200):
    fn(); torch.cuda.synchronize(); t0 = time.perf_counter()
    for _ in range(n): fn()
    t1 = time.perf_counter(); torch.cuda.synchronize(); return (t1 - t0) / n * 1e6
h2 = host(lambda: k2[(1,)](ts[0], ts[1], 16, BLOCK=16))
h16 = host(lambda: k16[(1,)](*ts, 1, 2, 3, 4, 5, 6, 7, 8, 16, 1e-5, BLOCK=16, G=2))
hop = host(lambda: ts[0] + 1.0)
print(f"host per launch: 3 args {h2:.1f} us, 20 args {h16:.1f} us, torch add {hop:.1f} us")
