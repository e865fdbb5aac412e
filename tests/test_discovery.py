"""Which files a directory argument means."""

from __future__ import annotations

from kernlint.discovery import discover


def tree(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_directories_are_walked_for_python_files_skipping_vcs_venvs_and_gitignore(tmp_path, monkeypatch) -> None:
    tree(
        tmp_path,
        {
            "a.py": "",
            "pkg/b.py": "",
            "pkg/notes.txt": "",
            ".git/hooks/c.py": "",
            ".venv/lib/d.py": "",
            "env/pyvenv.cfg": "",
            "env/e.py": "",
            "build/f.py": "",
            "gen/g.py": "",
            "gen/keep.py": "",
            ".gitignore": "build/\ngen/*.py\n!gen/keep.py\n",
        },
    )
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    monkeypatch.chdir(tmp_path)
    assert discover(["."]).files == ("a.py", "gen/keep.py", "pkg/b.py")


def test_explicit_files_are_linted_whatever_their_name(tmp_path, monkeypatch) -> None:
    tree(tmp_path, {"kernel.txt": "", "z.py": ""})
    monkeypatch.chdir(tmp_path)
    found = discover(["z.py", "kernel.txt", "missing.py"])
    assert found.files == ("kernel.txt", "z.py")
    assert found.errors == ("missing.py: no such file or directory",)


def test_order_does_not_depend_on_argument_order(tmp_path, monkeypatch) -> None:
    tree(tmp_path, {"b.py": "", "a.py": "", "c/d.py": ""})
    monkeypatch.chdir(tmp_path)
    assert discover(["c", "b.py", "a.py"]).files == discover(["a.py", "b.py", "c"]).files
