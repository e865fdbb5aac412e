"""The command line's contract: subcommands, exit codes, stdin."""

from __future__ import annotations

import json

from conftest import FIXTURES, run_kernlint
from kernlint import schemas
from kernlint.registry import all_rules

SEED = str(FIXTURES / "seed" / "kernel.py")
CLEAN = "import triton\n\nx = 1\n"


def test_help_lists_the_subcommands() -> None:
    proc = run_kernlint("--help")
    assert proc.returncode == 0
    for word in ("check", "rule", "rules", "schema"):
        assert word in proc.stdout.decode()


def test_rule_prints_the_docs_of_a_code_or_a_name() -> None:
    by_code = run_kernlint("rule", "KL014")
    by_name = run_kernlint("rule", "deprecated-allow-tf32")
    assert by_code.returncode == 0
    assert by_code.stdout == by_name.stdout
    text = by_code.stdout.decode()
    assert text.startswith("# KL014 deprecated-allow-tf32")
    assert "## Why is this bad?" in text


def test_unknown_rule_is_a_usage_error() -> None:
    proc = run_kernlint("rule", "KL777")
    assert proc.returncode == 2
    assert b"unknown rule 'KL777'" in proc.stderr


def test_rules_table_has_one_row_per_rule() -> None:
    proc = run_kernlint("rules")
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 1 + len(all_rules())
    assert lines[1].startswith("KL000")


def test_schema_prints_valid_json_schemas() -> None:
    for name in ("json", "advice"):
        proc = run_kernlint("schema", name)
        assert json.loads(proc.stdout) == schemas.load(name)


def test_exit_codes_follow_ruff(tmp_path) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text(CLEAN)
    assert run_kernlint(str(clean)).returncode == 0
    assert run_kernlint(SEED).returncode == 1
    assert run_kernlint("--exit-zero", SEED).returncode == 0
    missing = run_kernlint(str(tmp_path / "nope.py"))
    assert missing.returncode == 2
    assert missing.stderr.decode().strip().endswith("nope.py: no such file or directory")
    assert run_kernlint("--format", "nonsense", SEED).returncode == 2


def test_parse_error_is_a_finding_not_a_crash(tmp_path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import triton\n\ndef f(:\n    pass\n")
    proc = run_kernlint(str(broken))
    assert proc.returncode == 1
    assert (
        proc.stdout.decode().splitlines()[0]
        == f"{broken}:3:7: KL000 [parse-error] cannot analyze this file: syntax error: invalid syntax"
    )


def test_stdin_with_a_filename(tmp_path) -> None:
    source = (FIXTURES / "seed" / "kernel.py").read_bytes()
    proc = run_kernlint("-", "--stdin-filename", "pkg/kernel.py", "--format", "json", stdin=source)
    document = json.loads(proc.stdout)
    assert {f["path"] for f in document["findings"]} == {"pkg/kernel.py"}


def test_explicit_check_form_for_a_path_named_like_a_subcommand(tmp_path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "k.py").write_text("import triton.language as tl\nc = tl.dot(a, b, allow_tf32=True)\n")
    proc = run_kernlint("check", "rules", cwd=tmp_path)
    assert (
        proc.stdout.decode().splitlines()[0]
        == "rules/k.py:2:18: KL014 [deprecated-allow-tf32] `allow_tf32=` in tl.dot is deprecated; use `input_precision=` instead"
    )


def test_select_and_ignore_take_codes_or_names() -> None:
    only = json.loads(run_kernlint("--format", "json", "--select", "deprecated-allow-tf32", SEED).stdout)
    assert {f["code"] for f in only["findings"]} == {"KL014"}
    rest = json.loads(run_kernlint("--format", "json", "--ignore", "KL014,KL001", SEED).stdout)
    assert "KL014" not in {f["code"] for f in rest["findings"]}
    assert "KL001" not in {f["code"] for f in rest["findings"]}


def test_stdin_filename_without_dash_reads_stdin_as_ruff_does(tmp_path) -> None:
    """Issue 28: `--stdin-filename` without `-` used to lint the working
    directory and ignore stdin."""
    (tmp_path / "other.py").write_text("import triton.language as tl\nc = tl.dot(a, b, allow_tf32=True)\n")
    source = b"import triton.language as tl\n\nc = tl.dot(a, b, allow_tf32=True)\n"
    alone = run_kernlint("--stdin-filename", "pkg/k.py", "--no-color", stdin=source, cwd=tmp_path)
    assert alone.stdout.decode().splitlines()[0].startswith("pkg/k.py:3:18: KL014 [deprecated-allow-tf32]")
    assert alone.stderr == b""
    beside = run_kernlint("--stdin-filename", "pkg/k.py", "other.py", "--no-color", stdin=source, cwd=tmp_path)
    assert beside.stdout == alone.stdout
    assert beside.stderr.decode() == (
        "kernlint: warning: ignoring other.py in favor of standard input (--stdin-filename)\n"
    )


def test_top_level_help_lists_the_lint_options() -> None:
    """Issue 28: `kernlint --help` listed only --version and -h."""
    text = run_kernlint("--help").stdout.decode()
    for option in ("--select", "--format", "--fix", "--statistics", "--stdin-filename", "--config", "--exit-zero"):
        assert option in text, option
    assert text.index("--version") < text.index("--select") < text.index("Commands:")


def test_a_folder_without_python_files_warns_as_ruff_does(tmp_path) -> None:
    """Issue 28: it used to print "All checks passed (0 files)." A folder
    that exists but holds no Python file exits 0 with ruff's warning on
    stderr and no report; a path that does not exist stays an error (2)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").write_text("# notes\n")
    proc = run_kernlint("docs", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert proc.stderr.decode() == "kernlint: warning: No Python files found under the given path(s)\n"
    missing = run_kernlint("dcos", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.decode() == "kernlint: error: dcos: no such file or directory\n"


def test_color_always_colours_a_pipe_and_never_does_not() -> None:
    """Issue 28: `--color` did nothing when stdout is a pipe."""
    first = "fixtures/seed/kernel.py:23:13:"
    always = run_kernlint("--color", "always", "--select", "KL009", "fixtures/seed/kernel.py").stdout.decode()
    assert always.splitlines()[0].startswith(f"\x1b[1m{first}\x1b[0m \x1b[36m\x1b[1mKL009\x1b[0m ")
    bare = run_kernlint("--color", "--select", "KL009", "fixtures/seed/kernel.py").stdout.decode()
    assert bare == always
    for args in (("--color", "never"), ("--no-color",), ()):
        plain = run_kernlint(*args, "--select", "KL009", "fixtures/seed/kernel.py").stdout.decode()
        assert "\x1b[" not in plain and plain.startswith(f"{first} KL009 "), args


def test_statistics_prints_the_counts_only() -> None:
    """Issue 28: --statistics printed every finding first; ruff's prints counts."""
    proc = run_kernlint("--statistics", SEED)
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines() == [
        "    1  KL001  upcast-before-dot",
        "    1  KL002  per-call-relayout",
        "    1  KL003  hardcoded-launch-config",
        "    1  KL009  missing-l2-swizzle",
        "    1  KL014  deprecated-allow-tf32",
    ]


MULTIPASS_SOFTMAX = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * N
    m = -float("inf")
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.max(tl.load(x_ptr + base + offs, mask=offs < N, other=-float("inf")), axis=0))
    s = 0.0
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        s += tl.sum(tl.exp(tl.load(x_ptr + base + offs, mask=offs < N, other=-float("inf")) - m), axis=0)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < N, other=-float("inf"))
        tl.store(y_ptr + base + offs, tl.exp(x - m) / s, mask=offs < N)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
        return y


def get_inputs():
    return [torch.randn(4096, 65536)]


def get_init_inputs():
    return []
"""


FIXED_TILE_GEMM = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.swizzle2d(tl.program_id(0), tl.program_id(1), M // BM, N // BN, 8)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b, out_dtype=tl.float32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty(M, N, device=a.device, dtype=a.dtype)
        mm_kernel[(M // 64, N // 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32, num_warps=4)
        return c


def get_inputs():
    return [torch.randn(8192, 8192, dtype=torch.float16), torch.randn(8192, 8192, dtype=torch.float16)]


def get_init_inputs():
    return []
"""


RECURRENT_LOOP = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.w = nn.Parameter(torch.randn(hidden, hidden))
        self.u = nn.Parameter(torch.randn(hidden, hidden))

    def forward(self, x):
        h = torch.zeros(x.shape[0], x.shape[2], device=x.device)
        for t in range(x.shape[1]):
            h = torch.tanh(x[:, t] @ self.w + h @ self.u)
        return h


def get_inputs():
    return [torch.randn(16, 512, 256)]


def get_init_inputs():
    return [256]
"""


def test_the_summary_says_why_a_gain_is_the_pairs(tmp_path) -> None:
    """A file whose shapes are known but whose best fix the cost model does
    not model for its code (a recurrence's per-step loop) is not said to have
    unknown shapes; a fixed-tile GEMM (KL003's fix: the best of the autotuning
    set at its shapes), a program looping over scalar loads and a softmax
    reading its rows in three passes are estimated."""
    scalar = (FIXTURES / "generated" / "g03_l1_47_sum_reduction_scalar.py").read_bytes()
    (tmp_path / "scalar.py").write_bytes(scalar)
    (tmp_path / "softmax.py").write_text(MULTIPASS_SOFTMAX)
    (tmp_path / "gemm.py").write_text(FIXED_TILE_GEMM)
    (tmp_path / "rnn.py").write_text(RECURRENT_LOOP)
    (tmp_path / "seed.py").write_bytes((FIXTURES / "seed" / "kernel.py").read_bytes())
    lines = run_kernlint("--no-color", ".", cwd=tmp_path).stdout.decode().splitlines()
    assert "  gemm.py: 1.8x (for this file) from KL003 hardcoded-launch-config (line 27)" in lines
    assert (
        "  rnn.py: 12.9x (the pair's, not estimated for this file) from KL005 per-step-launch-loop (line 14)" in lines
    )
    assert "  softmax.py: 1.3x (for this file) from KL008 multipass-softmax (line 12)" in lines
    assert "  seed.py: 4.9x (the pair's, shapes unknown) from KL002 per-call-relayout (line 112)" in lines
    assert "  scalar.py: 33.1x (for this file) from KL019 scalar-programs (line 43)" in lines


def test_a_run_over_many_files_ends_with_one_summary_of_the_top_files(tmp_path) -> None:
    """Issue 28: a verdict line per file drowned a whole-tree run."""
    seed = (FIXTURES / "seed" / "kernel.py").read_bytes()
    for name in ("a", "b", "c", "d", "e", "f"):
        (tmp_path / f"{name}.py").write_bytes(seed)
    (tmp_path / "clean.py").write_text(CLEAN)
    proc = run_kernlint("--no-color", ".", cwd=tmp_path)
    lines = proc.stdout.decode().splitlines()
    assert not any(line.startswith("Verdict for") for line in lines)
    assert lines[-8:] == [
        "Found 30 findings (18 warning, 12 info) in 6 of 7 files.",
        "6 of 7 files worth optimizing; the 5 with the largest estimated gain:",
        *(
            f"  {name}.py: 4.9x (the pair's, shapes unknown) from KL002 per-call-relayout (line 112)"
            for name in "abcde"
        ),
        "(gain: the KernelBench-mode speedup of the file's best fix, estimated at its shapes, or its rule's "
        "reference pair's where it has no estimate; `kernlint --format advice PATH` for its plan)",
    ]
    advice = json.loads(run_kernlint("--format", "advice", ".", cwd=tmp_path).stdout)
    assert [(a["path"], a["worth_optimizing"]) for a in advice] == [
        *((f"{name}.py", "yes") for name in "abc"),
        ("clean.py", "no"),
        *((f"{name}.py", "yes") for name in "def"),
    ]
