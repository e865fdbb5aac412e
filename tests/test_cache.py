"""The result cache and worker count: output is byte-identical across
--jobs 1, --jobs 2, cold and cached runs; a changed configuration, rule
selection or file misses; a damaged entry is a miss; `kernlint clean`
deletes only a folder kernlint made."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def kernlint(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, timeout=300)


def project(tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    folder.mkdir()
    for name in ("kernel.py", "reference.py", "kernel_fixed.py"):
        shutil.copy(ROOT / "fixtures" / "seed" / name, folder / name)
    (folder / "pyproject.toml").write_text("[tool.kernlint]\n")
    return folder


def entries(folder: Path) -> list[Path]:
    return sorted((folder / ".kernlint_cache").rglob("*.json"))


def test_output_is_identical_across_jobs_and_cold_and_cached_runs(tmp_path: Path) -> None:
    folder = project(tmp_path)
    cold_one = kernlint(folder, "--format", "json", "--no-cache", "--jobs", "1", ".")
    cold_two = kernlint(folder, "--format", "json", "--no-cache", "--jobs", "2", ".")
    assert entries(folder) == []
    filling = kernlint(folder, "--format", "json", "--jobs", "2", ".")
    assert len(entries(folder)) == 3
    cached = kernlint(folder, "--format", "json", "--jobs", "1", ".")
    assert cold_one.returncode == 1
    assert cold_one.stdout == cold_two.stdout == filling.stdout == cached.stdout
    assert (
        (folder / ".kernlint_cache" / "CACHEDIR.TAG")
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )


WHAT_A_RUN_IMPORTED = """
import contextlib, io, sys
from kernlint.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(sys.argv[1:])
linting = ("kernlint.model", "kernlint.rules.", "kernlint.engine", "kernlint.source", "libcst")
print(sorted(name for name in sys.modules if name.startswith(linting)))
"""


def test_a_run_answered_from_the_cache_loads_nothing_that_lints(tmp_path: Path) -> None:
    """Each file's verdict is cached with its result, and the exit code asks
    the registry only about engine findings, so a warm run (the seed kernel
    has findings and a verdict) never imports the rules, the model, the
    engine or the parser."""
    folder = project(tmp_path)

    def imported() -> str:
        proc = subprocess.run(
            [sys.executable, "-c", WHAT_A_RUN_IMPORTED, "--format", "json", "kernel.py"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return proc.stdout.strip()

    cold = imported()
    assert "kernlint.model" in cold  # cold: linted here (one small file)
    assert "'libcst'" in cold and "'libcst._parser.entrypoints'" in cold  # parsed by libcst
    assert imported() == "[]"


def test_a_changed_selection_config_or_file_misses_the_cache(tmp_path: Path) -> None:
    folder = project(tmp_path)
    kernlint(folder, ".")
    assert len(entries(folder)) == 3
    kernlint(folder, "--select", "KL002", ".")
    assert len(entries(folder)) == 6
    (folder / "pyproject.toml").write_text('[tool.kernlint]\nignore = ["KL014"]\n')
    ignored = kernlint(folder, "--format", "json", ".")
    assert len(entries(folder)) == 9
    assert b'"KL014"' not in ignored.stdout
    with open(folder / "kernel.py", "a") as handle:
        handle.write("\n# edited\n")
    kernlint(folder, "kernel.py")
    assert len(entries(folder)) == 10


def test_an_edited_reference_fix_pair_changes_kernlints_fingerprint(tmp_path: Path, monkeypatch) -> None:
    """A claim says whether its pair changed since it was measured, so a
    cached finding (and verdict) must not outlive an edit to the pair."""
    from kernlint import cache, provenance

    library = tmp_path / "kernels"
    (library / "kl001_demo").mkdir(parents=True)
    (library / "measurements").mkdir()
    (library / "kl001_demo" / "after.py").write_text("x = 1\n")
    (library / "measurements" / "gpu.json").write_text("{}")
    monkeypatch.setattr(provenance, "library_folder", lambda: str(library))
    before = cache.code_fingerprint.__wrapped__()
    (library / "kl001_demo" / "after.py").write_text("x = 2\n")
    assert cache.code_fingerprint.__wrapped__() != before


def test_a_damaged_entry_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    folder = project(tmp_path)
    first = kernlint(folder, "--format", "json", "kernel.py")
    (entry,) = entries(folder)
    entry.write_text("{not json")
    again = kernlint(folder, "--format", "json", "kernel.py")
    assert again.stdout == first.stdout
    assert entry.read_text().startswith('{"format":3')


def test_clean_deletes_the_cache_and_refuses_a_folder_kernlint_did_not_make(tmp_path: Path) -> None:
    folder = project(tmp_path)
    kernlint(folder, "kernel.py")
    proc = kernlint(folder, "clean")
    assert proc.returncode == 0 and proc.stdout == b"Removed .kernlint_cache\n"
    assert not (folder / ".kernlint_cache").exists()
    (folder / ".kernlint_cache").mkdir()
    (folder / ".kernlint_cache" / "mine.txt").write_text("keep me")
    proc = kernlint(folder, "clean")
    assert proc.returncode == 2
    assert b"not a kernlint cache" in proc.stderr
    assert (folder / ".kernlint_cache" / "mine.txt").read_text() == "keep me"
