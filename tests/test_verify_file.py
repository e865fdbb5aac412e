"""`kernlint verify FILE`: the user's KernelBench file against its reference.

CPU only: the models run under the Triton interpreter (`--interpret`) on the
tiny files in fixtures/verify/; each case checks the exact result rows and the
exit code.
"""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, ROOT, run_kernlint

VERIFY = FIXTURES / "verify"
REF = "fixtures/verify/reference.py"

pytest.importorskip("torch")
pytest.importorskip("triton")


def verify(*args: str, cwd=None):
    proc = run_kernlint("verify", *args, cwd=cwd, env={"TRITON_INTERPRET": "0"})
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert "Traceback" not in out + err, out + err
    return proc.returncode, out, err


def rows(out: str) -> list[str]:
    """The status lines of the two models and the result line."""
    return [line for line in out.splitlines() if line.startswith(("Model:", "ModelNew:", "result:"))]


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_correct_file_passes_and_writes_a_valid_record(tmp_path):
    record = tmp_path / "rec.json"
    code, out, _ = verify(
        "fixtures/verify/correct.py",
        "--reference",
        REF,
        "--interpret",
        "--trials",
        "2",
        "--timeout",
        "120",
        "--quiet",
        "--record",
        str(record),
    )
    assert code == 0, out
    assert rows(out) == ["result: correct"]
    table = out.splitlines()[2:4]
    assert table[0].split()[:4] == ["Model", "(reference.py)", "ok", "reference"]
    assert table[1].split()[:6] == ["ModelNew", "(correct.py)", "ok", "2/2", "0.00e+00", "0.00e+00"]
    data = json.loads(record.read_text())
    pytest.importorskip("jsonschema")
    from kernlint.kernels.verify_file import validate_record

    validate_record(data)
    ref, new = data["models"]
    assert (ref["status"], new["status"], data["ok"]) == ("ok", "ok", True)
    assert new["correctness"] == {"trials": 2, "passed": 2, "max_abs_err": 0.0, "max_rel_err": 0.0, "tolerance": 1e-4}
    # x [4, 64] fp32 and bias [64] fp32 read, y [4, 64] fp32 written.
    assert new["memory"] == {"bytes_read": 4 * 64 * 4 + 64 * 4, "bytes_written": 4 * 64 * 4, "floor_us": None}
    assert new["timing"] is None and data["speedup"] is None and data["settings"]["timing"] is None
    assert data["findings"] == [] and data["lint"]["source"] == "linted here"
    assert data["notes"] == ["correctness only: no timing was taken under --interpret"]


def test_wrong_result_is_a_row_and_exit_1():
    code, out, _ = verify(
        "fixtures/verify/wrong.py", "--reference", REF, "--interpret", "--trials", "2", "--timeout", "120", "--quiet"
    )
    assert code == 1
    assert rows(out) == ["ModelNew: wrong: 2 of 2 trials failed: outside atol = rtol = 0.0001", "result: FAILED"]


def test_json_format_prints_the_record_of_a_crash():
    code, out, _ = verify(
        "fixtures/verify/raises.py",
        "--reference",
        REF,
        "--interpret",
        "--trials",
        "1",
        "--timeout",
        "120",
        "--quiet",
        "--format",
        "json",
    )
    assert code == 1
    data = json.loads(out)
    ref, new = data["models"]
    assert ref["status"] == "ok"
    assert (new["status"], new["detail"]) == ("crash", "ValueError: BLOCK must be a power of 2, got 96")
    assert data["ok"] is False


def test_hang_is_a_timeout_row_within_the_limit():
    code, out, _ = verify(
        "fixtures/verify/hangs.py", "--reference", REF, "--interpret", "--trials", "1", "--timeout", "25", "--quiet"
    )
    assert code == 1
    assert rows(out) == [
        "ModelNew: timeout: no result within --timeout 25 s (it was in its correctness phase)",
        "result: FAILED",
    ]
    data_line = [line for line in out.splitlines() if line.startswith("ModelNew (hangs.py)")]
    assert data_line[0].split()[2] == "timeout"


def test_file_without_get_inputs_is_invalid_and_the_candidate_does_not_run():
    code, out, _ = verify("fixtures/verify/no_get_inputs.py", "--interpret", "--timeout", "120", "--quiet")
    assert code == 1
    assert rows(out) == [
        "Model: invalid: no_get_inputs.py defines no get_inputs()",
        "ModelNew: not-run: the reference Model produced no outputs to compare with",
        "result: FAILED",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope.py", "--interpret"), "kernlint verify: FILE nope.py: no such file"),
        (
            ("fixtures/verify/correct.py", "--reference", "missing.py", "--interpret"),
            "kernlint verify: --reference missing.py: no such file",
        ),
        (("README.md", "--interpret"), "kernlint verify: FILE README.md: not a Python file (.py)"),
        (
            ("fixtures/verify/correct.py", "--pair", "kl001_upcast_before_dot"),
            "kernlint verify: --pair selects library pairs; it does not apply to verify FILE",
        ),
        (("--reference", REF), "kernlint verify: --reference needs FILE (kernlint verify FILE --reference ...)"),
        (
            ("fixtures/verify/correct.py", "--timeout", "0"),
            "kernlint verify: Invalid value for '--timeout': 0.0 is not in the range x>0.",
        ),
        (("fixtures/verify/correct.py", "--bogus"), "kernlint verify: No such option '--bogus'."),
        (
            ("fixtures/verify/correct.py", "--static", "fixtures/verify/reference.py", "--interpret"),
            "kernlint verify: --static fixtures/verify/reference.py: cannot read: Extra data: line 1 column 3 (char 2)",
        ),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args, message):
    code, out, err = verify(*args)
    assert (code, out) == (2, "")
    assert one_line(err) == message


def test_without_a_gpu_verify_file_needs_interpret():
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is present")
    code, _, err = verify("fixtures/verify/correct.py", "--reference", REF)
    assert code == 2
    assert one_line(err) == (
        "kernlint verify: no CUDA GPU found: pass --interpret to check correctness on the CPU "
        "with the Triton interpreter (small shapes, no timing)"
    )


def test_static_only_writes_the_seed_findings_with_claims_and_runs_nothing(tmp_path):
    code, out, _ = verify("fixtures/seed/kernel.py", "--static-only")
    assert code == 0
    data = json.loads(out)
    assert [(f["code"], f["line"], f["column"]) for f in data["findings"]] == [
        ("KL009", 23, 13),
        ("KL001", 54, 16),
        ("KL014", 54, 37),
        ("KL002", 112, 9),
        ("KL003", 122, 5),
    ]
    claims = {f["code"]: f["claim"] for f in data["findings"]}
    assert claims["KL014"] is None
    for code_ in ("KL001", "KL002", "KL003"):
        assert "(CUDA graph)" in claims[code_] and "record kernels/measurements/" in claims[code_]
    assert data["gemm"]["dtype"] == "tf32"  # fp32 casts of int8 loads, allow_tf32=True
    fixed = json.loads(verify("fixtures/seed/kernel_fixed.py", "--static-only")[1])
    assert fixed["findings"] == [] and fixed["gemm"]["dtype"] == "int8"


def test_static_facts_must_match_the_file(tmp_path):
    static = tmp_path / "static.json"
    static.write_text(verify("fixtures/verify/correct.py", "--static-only")[1])
    changed = tmp_path / "correct.py"
    changed.write_text((VERIFY / "correct.py").read_text() + "\n# edited\n")
    code, _, err = verify(str(changed), "--reference", REF, "--static", str(static), "--interpret")
    assert code == 2
    assert one_line(err) == (
        f"kernlint verify: --static {static}: written for other contents of fixtures/verify/correct.py (sha256 differs)"
    )


def test_help_says_it_executes_the_named_file():
    code, out, _ = verify("--help")
    assert code == 0
    assert "THIS EXECUTES FILE (and the file --reference names), and nothing else." in out
    assert "Linting (`kernlint FILE`) never executes anything; only `verify FILE` does." in out


# ---- pure parts: no child processes


def test_compute_floor_from_the_peak_table():
    from kernlint.kernels.verify_file import _compute_floor, peak_for

    dims = {"M": 128, "K": 2048, "N": 2048}
    floor = _compute_floor("NVIDIA H100 80GB HBM3", {"dtype": "int8"}, dims, False, [])
    assert floor == {
        "dtype": "int8",
        "flops": 2 * 128 * 2048 * 2048,
        "peak_table": "H100 SXM",
        "peak_tflops": 1978.9,
        "floor_us": 0.5426,
    }
    assert peak_for("NVIDIA H100 PCIe")[0] == "H100 PCIe"
    notes: list[str] = []
    assert _compute_floor("NVIDIA H100 80GB HBM3", {"dtype": None}, dims, False, notes) is None
    assert notes == ["compute floor: the tl.dot operand dtypes are unknown or differ between dots"]
    notes = []
    assert _compute_floor("Some GPU", {"dtype": "float16"}, dims, False, notes)["floor_us"] is None
    assert notes == ["compute floor: no float16 peak for Some GPU in the table"]


def test_lint_is_skipped_with_a_note_without_libcst(monkeypatch):
    from kernlint.kernels import verify_file

    def no_libcst(path):
        raise ImportError("No module named 'libcst'")

    monkeypatch.setattr(verify_file, "static_facts", no_libcst)
    monkeypatch.chdir(ROOT)
    code, rec = verify_file.run_verify_file(
        "fixtures/verify/correct.py", reference=REF, interpret=True, trials=1, timeout=120, quiet=True
    )
    assert code == 0
    assert rec["findings"] is None
    assert rec["lint"] == {"source": "skipped", "note": verify_file.LINT_UNAVAILABLE}
    assert verify_file.LINT_UNAVAILABLE in rec["notes"]


def test_timing_summary_keeps_each_repeat():
    from kernlint.kernels.timing import _summarize

    t = _summarize("kernelbench", [[1.0, 3.0, 2.0], [10.0, 20.0, 30.0]])
    assert t.as_dict() == {
        "median_us": 6.5,
        "mean_us": 11.0,
        "std_us": 10.71,
        "min_us": 1.0,
        "max_us": 30.0,
        "samples": 6,
        "repeat_medians_us": [2.0, 20.0],
        "repeat_means_us": [2.0, 20.0],
    }


def test_library_record_with_every_mode_validates_and_renders(tmp_path):
    pytest.importorskip("jsonschema")
    from kernlint.kernels.render import render_markdown
    from kernlint.kernels.timing import MODES, _summarize
    from kernlint.kernels.verify import validate_record

    record = json.loads((ROOT / "kernels/kernlint/kernels/measurements/h100.json").read_text())
    r = record["results"][0]
    for which, scale in (("before", 4.0), ("after", 1.0), ("reference", 5.0)):
        r[which]["modes"] = {
            m: _summarize(m, [[scale * (i + 1), scale * (i + 2)] for i in range(3)]).as_dict() for m in MODES
        }
    r["speedup"].update(kernelbench=4.0, kernelbench_mean=4.0, events_no_flush=4.0)
    validate_record(record)
    md = render_markdown(record)
    assert (
        f"| {r['pair']} | {r['shape']} | KernelBench (flush) | 10.0 [6.0–14.0], mean 10.0 [6.0–14.0] "
        "| 2.5 [1.5–3.5], mean 2.5 [1.5–3.5] | 4.00×; mean 4.00× [4.00 / 4.00 / 4.00] |" in md
    )
    pytest.importorskip("matplotlib")
    from kernlint.kernels.render import render_png

    render_png(record, str(tmp_path / "chart.png"))
    assert (tmp_path / "chart.png").stat().st_size > 10_000


def test_committed_seed_records_validate_and_render_as_committed():
    """The H100 records of the seed kernel and its hand-fixed version: schema, the issue's acceptance
    (both correct, the fixed kernel >= 5x faster in CUDA-graph time), and the summary is their rendering."""
    pytest.importorskip("jsonschema")
    from kernlint.kernels.render_file import render_markdown
    from kernlint.kernels.verify_file import validate_record

    folder = ROOT / "kernels/kernlint/kernels/measurements/verify_file"
    names = ["seed_kernel_h100.json", "seed_kernel_fixed_h100.json"]
    records = [
        (f"kernels/kernlint/kernels/measurements/verify_file/{n}", json.loads((folder / n).read_text())) for n in names
    ]
    for _, rec in records:
        validate_record(rec)
        assert rec["ok"] and not rec["environment"]["interpret"]
        assert [m["status"] for m in rec["models"]] == ["ok", "ok"]
    seed, fixed = (rec["models"][1] for _, rec in records)
    assert seed["timing"]["graph"]["median_us"] / fixed["timing"]["graph"]["median_us"] >= 5
    assert [f["code"] for f in records[0][1]["findings"]] == ["KL009", "KL010", "KL001", "KL014", "KL002", "KL003"]
    assert (seed["compute"]["dtype"], fixed["compute"]["dtype"]) == ("tf32", "int8")
    assert (folder / "seed_h100.md").read_text() == render_markdown(records)


def test_the_references_estimate_is_shown_beside_the_measurement(tmp_path):
    """Issue 25: `verify AFTER --reference BEFORE` prints kernlint's estimate
    for the before's findings, so every run is also a check of the model."""
    record = tmp_path / "rec.json"
    code, out, _ = verify(
        "fixtures/costmodel/kl006_small_after.py",
        "--reference",
        "fixtures/costmodel/kl006_small_before.py",
        "--interpret",
        "--trials",
        "1",
        "--timeout",
        "120",
        "--quiet",
        "--record",
        str(record),
    )
    assert code == 0, out
    data = json.loads(record.read_text())
    (estimate,) = data["estimates"]
    assert (estimate["code"], estimate["line"], estimate["status"]) == ("KL006", 13, "estimated")
    assert estimate["graph"] is None and estimate["kernelbench"] > 1.2
    assert f"kernlint's estimate for fixing KL006 (line 13) of the reference: eager {estimate['eager']:.2f}x" in out


def test_tolerance_replaces_kernelbenchs_by_dtype_check():
    """A result rounded as TF32 products are (about 5e-4 relative) fails KernelBench's fp32 tolerance of 1e-4 and
    passes `--tolerance 1e-2` (KernelBench v0/v0.1's check), which the record's settings and command name."""
    args = ("fixtures/verify/rounded.py", "--reference", REF, "--interpret", "--trials", "2", "--timeout", "120")
    code, out, _ = verify(*args, "--quiet")
    assert code == 1 and rows(out)[0].startswith("ModelNew: wrong: 2 of 2 trials failed: outside atol = rtol = 0.0001")
    code, out, _ = verify(*args, "--quiet", "--tolerance", "1e-2", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True
    assert data["models"][1]["correctness"]["tolerance"] == 1e-2
    assert "--tolerance 0.01" in data["command"] and "tol 0.01 for every output" in data["settings"]["correctness"]
    code, _, err = verify("--tolerance", "1e-2")
    assert (
        code == 2 and one_line(err) == "kernlint verify: --tolerance needs FILE (kernlint verify FILE --tolerance ...)"
    )
