"""The GitHub Action (action.yml, composite) runs as the Actions runner
would run it: each step's `run:` script under `bash --noprofile --norc -eo
pipefail`, with the step's `env:` (its `${{ inputs.* }}` filled in from the
inputs and their defaults), only when its `if:` holds, the runner's
variables (RUNNER_TEMP, GITHUB_PATH, GITHUB_ACTION_PATH pointing at this
checkout, GITHUB_WORKSPACE as the working directory) and PATH extended by
what a step appends to $GITHUB_PATH. The install step is real: it builds
this checkout into a fresh virtual environment with pip (so it needs the
package index, as on a runner)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

yaml = pytest.importorskip("yaml")
if shutil.which("bash") is None:
    pytest.skip("bash is not installed", allow_module_level=True)

try:
    import pytest_timeout  # noqa: F401

    pytestmark = pytest.mark.timeout(900)
except ImportError:
    pass

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")
CONDITION = re.compile(r"^inputs\.([\w-]+) != ''$")


def run_action(workspace: Path, runner_temp: Path, **given: str) -> list[subprocess.CompletedProcess[str]]:
    """Run the action's steps until one fails, as the runner does."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, unknown
    inputs.update(given)
    github_path = runner_temp / "github_path"
    github_path.write_text("")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "VIRTUAL_ENV"))}
    base.update(
        {
            "RUNNER_TEMP": str(runner_temp),
            "GITHUB_PATH": str(github_path),
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_ACTIONS": "true",
            "NO_COLOR": "1",
        }
    )
    done = []
    for step in ACTION["runs"]["steps"]:
        assert step["shell"] == "bash", step["name"]
        condition = step.get("if")
        if condition is not None:
            match = CONDITION.match(condition)
            assert match, f"the test cannot evaluate {condition!r}"
            if inputs[match[1]] == "":
                continue
        env = dict(base)
        env.update({key: EXPRESSION.sub(lambda m: inputs[m[1]], value) for key, value in step.get("env", {}).items()})
        assert "${{" not in step["run"], "inputs reach scripts through env, never pasted in"
        added = [line for line in github_path.read_text().splitlines() if line]
        env["PATH"] = os.pathsep.join([*reversed(added), base["PATH"]])
        script = runner_temp / "step.sh"
        script.write_text(step["run"])
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        done.append(proc)
        if proc.returncode != 0:
            break
    return done


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[subprocess.CompletedProcess[str]], Path]:
    workspace = tmp_path_factory.mktemp("workspace")
    shutil.copy(FIXTURES / "seed" / "kernel.py", workspace / "kernel.py")
    (workspace / "clean.py").write_text("x = 1\n")
    runner_temp = tmp_path_factory.mktemp("runner_temp")
    return workspace, run_action(workspace, runner_temp, **{"sarif-file": "out/kernlint.sarif"}), runner_temp


def test_the_action_installs_kernlint_and_fails_with_annotations(ran) -> None:
    workspace, steps, _ = ran
    install, sarif, annotate = steps
    assert install.returncode == 0, install.stdout + install.stderr
    assert sarif.returncode == 0, sarif.stderr
    assert annotate.returncode == 1, annotate.stderr
    lines = annotate.stdout.splitlines()
    assert len(lines) == 5
    assert lines[3].startswith(
        "::warning file=kernel.py,line=112,col=9,endLine=112,endColumn=37,title=KL002 (per-call-relayout)::KL002 "
    )
    assert (workspace / "out" / "kernlint.sarif").is_file()


def test_the_action_writes_sarif_when_asked(ran) -> None:
    workspace, _, _ = ran
    report = json.loads((workspace / "out" / "kernlint.sarif").read_text())
    results = report["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == ["KL001", "KL002", "KL003", "KL009", "KL014"]


def test_without_sarif_file_the_sarif_step_is_skipped_and_args_pass_through(ran) -> None:
    workspace, _, runner_temp = ran
    steps = run_action(workspace, runner_temp, args="--exit-zero --select KL014 kernel.py")
    assert len(steps) == 2, [s.stderr for s in steps]
    assert steps[1].returncode == 0, steps[1].stderr
    assert steps[1].stdout.startswith("::notice file=kernel.py,line=54,col=37,")
    assert len(steps[1].stdout.splitlines()) == 1
